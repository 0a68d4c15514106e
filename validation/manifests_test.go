package validation

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/internal/testfiles"
	"github.com/vcjob/vcjob/manifest"
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

// TestManifests: every real manifest gets the verdict Volcano's admission
// gives it. The root package checks how they decode; a few carry fields
// the API server prunes, so they are decoded leniently here.
func TestManifests(t *testing.T) {
	files := testfiles.Manifests(t, manifestsDir)
	rejected := rejectedManifests()
	for name := range rejected {
		require.Contains(t, files, name, "verdict for a manifest that is not there")
	}
	for name, data := range files {
		t.Run(name, func(t *testing.T) {
			jobs, err := manifest.DecodeJobsWith(data, manifest.Options{AllowUnknownFields: true})
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
