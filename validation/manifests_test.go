package validation

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vcjob/vcjob"
)

// Real Volcano manifests, beside the repository (../shared from its root).
const (
	manifestsDir  = "../../shared/manifests/volcano-examples"
	invalidPrefix = "invalid_jobs__"
)

// rejectedManifests maps each invalid_jobs__ file to the one error create
// validation must give, the reason its comment states.
func rejectedManifests() map[string]wantErr {
	return map[string]wantErr{
		"invalid_jobs__duplicatedPolicyEvent-webhook-deny.yaml": {field.ErrorTypeDuplicate, "spec.policies[1].event"},
		"invalid_jobs__duplicatedTaskName-webhook-deny.yaml":    {field.ErrorTypeDuplicate, "spec.tasks[1].name"},
		"invalid_jobs__minAvailable-webhook-deny.yaml":          {field.ErrorTypeInvalid, "spec.minAvailable"},
	}
}

func readManifests(t testing.TB) map[string][]byte {
	entries, err := os.ReadDir(manifestsDir)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s is absent: no real manifests to check", manifestsDir)
	}
	require.NoError(t, err)
	files := map[string][]byte{}
	for _, entry := range entries {
		if entry.IsDir() || !strings.HasSuffix(entry.Name(), ".yaml") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(manifestsDir, entry.Name()))
		require.NoError(t, err)
		files[entry.Name()] = data
	}
	require.NotEmpty(t, files, "no manifests in %s", manifestsDir)
	return files
}

// TestManifests: every real manifest gets the verdict Volcano's admission
// gives it. The root package checks how they decode; a few carry fields
// the API server prunes, so they are decoded leniently here.
func TestManifests(t *testing.T) {
	files := readManifests(t)
	rejected := rejectedManifests()
	for name := range rejected {
		require.Contains(t, files, name, "verdict for a manifest that is not there")
	}
	for name, data := range files {
		t.Run(name, func(t *testing.T) {
			jobs, err := vcjob.DecodeJobsWith(data, vcjob.DecodeOptions{AllowUnknownFields: true})
			require.NoError(t, err)
			require.NotEmpty(t, jobs)
			for _, job := range jobs {
				vcjob.SetDefaults(job)
				errs := ValidateJob(job)
				want, isRejected := rejected[name]
				switch {
				case isRejected:
					assert.Equal(t, []wantErr{want}, keysOf(errs), "errors: %v", errs)
				case strings.HasPrefix(name, invalidPrefix):
					t.Errorf("%s has no verdict in rejectedManifests", name)
				default:
					assert.Empty(t, errs, "job %s", job.Name)
					assert.Empty(t, ValidateJobUpdate(job.DeepCopy(), job), "job %s", job.Name)
				}
			}
		})
	}
}
