package manifest

import (
	"os"
	"testing"

	"github.com/vcjob/vcjob/internal/testnote"
)

// TestMain says, in the output of a plain go test ./..., when the tests on
// real Volcano manifests and recorded vectors skip.
func TestMain(m *testing.M) {
	if _, err := os.Stat(manifestsDir); err != nil {
		testnote.Say("manifest: ../shared/manifests is missing (Volcano's own example manifests with their verdicts, kept beside the repository): the tests on real manifests skip")
	}
	os.Exit(m.Run())
}
