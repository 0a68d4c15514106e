package vcjob

import (
	"os"
	"testing"

	"github.com/vcjob/vcjob/internal/testnote"
)

// TestMain says, in the output of a plain go test ./..., when the tests on
// real Volcano manifests and recorded vectors skip.
func TestMain(m *testing.M) {
	if _, err := os.Stat("../shared"); err != nil {
		testnote.Say("vcjob: ../shared is missing (Volcano's own example manifests and the steps recorded from its controller, kept beside the repository): the tests on real manifests and the conformance replay skip")
	}
	os.Exit(m.Run())
}
