package vcjob

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeCronJob(t *testing.T) {
	cj, err := DecodeCronJob([]byte(cronManifest))
	require.NoError(t, err)
	assert.Equal(t, APIVersion, cj.APIVersion)
	assert.Equal(t, CronJobKind, cj.Kind)
	assert.Equal(t, "nightly", cj.Name)
	assert.Equal(t, "ml", cj.Namespace)
	spec := cj.Spec
	assert.Equal(t, "30 2 * * *", spec.Schedule)
	assert.Equal(t, new("America/New_York"), spec.TimeZone)
	assert.Equal(t, new(int64(600)), spec.StartingDeadlineSeconds)
	assert.Equal(t, ForbidConcurrent, spec.ConcurrencyPolicy)
	assert.Nil(t, spec.Suspend)
	assert.Equal(t, new(int32(5)), spec.SuccessfulJobsHistoryLimit)
	assert.Equal(t, new(int32(2)), spec.FailedJobsHistoryLimit)
	assert.Equal(t, map[string]string{"team": "ml"}, spec.JobTemplate.Labels)
	require.Len(t, spec.JobTemplate.Spec.Tasks, 1)
	assert.Equal(t, int32(2), spec.JobTemplate.Spec.Tasks[0].Replicas)

	SetCronJobDefaults(cj)
	assert.Equal(t, ForbidConcurrent, cj.Spec.ConcurrencyPolicy, "defaults keep what the manifest says")
}

// The JSON field names are Volcano's: encoding a decoded manifest gives
// back the manifest's own keys.
func TestDecodeCronJobRoundTrip(t *testing.T) {
	manifest := `{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"CronJob","metadata":{"name":"c"},` +
		`"spec":{"schedule":"@hourly","timeZone":"UTC","startingDeadlineSeconds":30,"concurrencyPolicy":"Replace",` +
		`"suspend":true,"jobTemplate":{"metadata":{"labels":{"a":"b"}},"spec":{"queue":"q","tasks":[{"name":"t","replicas":1,"template":{"metadata":{},"spec":{"containers":null}}}]}},` +
		`"successfulJobsHistoryLimit":0,"failedJobsHistoryLimit":4},` +
		`"status":{"active":[{"kind":"Job","namespace":"ns","name":"c-1","uid":"u1","apiVersion":"batch.volcano.sh/v1alpha1"}],` +
		`"lastScheduleTime":"2026-01-01T00:00:00Z","lastSuccessfulTime":"2026-01-01T00:05:00Z"}}`
	cj, err := DecodeCronJob([]byte(manifest))
	require.NoError(t, err)
	encoded, err := json.Marshal(cj)
	require.NoError(t, err)

	var want, got map[string]any
	require.NoError(t, json.Unmarshal([]byte(manifest), &want))
	require.NoError(t, json.Unmarshal(encoded, &got))
	delete(got["metadata"].(map[string]any), "creationTimestamp") // metav1 writes null
	jt := got["spec"].(map[string]any)["jobTemplate"].(map[string]any)
	delete(jt["metadata"].(map[string]any), "creationTimestamp")
	podMeta := jt["spec"].(map[string]any)["tasks"].([]any)[0].(map[string]any)["template"].(map[string]any)["metadata"].(map[string]any)
	delete(podMeta, "creationTimestamp")
	assert.Equal(t, want, got)
}

func TestDecodeCronJobErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		doc    string
		is     error
		detail string
	}{
		{"empty", "", ErrEmptyManifest, "empty manifest"},
		{"only separators and comments", "---\n# nothing\n---\n", ErrEmptyManifest, "empty manifest"},
		{"a list", "- 1\n", ErrNotMapping, "a list"},
		{"a Job", strings.Replace(cronManifest, "kind: CronJob", "kind: Job", 1), nil, `kind is "Job", expected "CronJob"`},
		{"no apiVersion", strings.Replace(cronManifest, "apiVersion: batch.volcano.sh/v1alpha1\n", "", 1), nil, "apiVersion is missing"},
		{"Kubernetes CronJob", strings.Replace(cronManifest, "batch.volcano.sh/v1alpha1", "batch/v1", 1), nil, `apiVersion is "batch/v1"`},
		{"unknown spec field", strings.Replace(cronManifest, "  schedule:", "  schedules: x\n  schedule:", 1), nil, `spec.schedules: unknown field`},
		{"unknown field deep in the template", strings.Replace(cronManifest, "      minAvailable: 2", "      minAvailable: 2\n      minAvaliable: 2", 1),
			nil, `spec.jobTemplate.spec.minAvaliable: unknown field`},
		{"duplicate key", strings.Replace(cronManifest, "  schedule:", "  suspend: true\n  suspend: false\n  schedule:", 1), nil, `"suspend" already set`},
		{"wrong type", strings.Replace(cronManifest, "startingDeadlineSeconds: 600", "startingDeadlineSeconds: soon", 1), nil, "startingDeadlineSeconds"},
		{"two cronjobs", cronManifest + "---\n" + cronManifest, ErrMultipleDocuments, "line 33: a manifest holds one cronjob"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cj, err := DecodeCronJob([]byte(tc.doc))
			require.Error(t, err)
			assert.Nil(t, cj)
			if tc.is != nil {
				assert.ErrorIs(t, err, tc.is)
			}
			assert.ErrorContains(t, err, tc.detail)
		})
	}
}

func TestDecodeCronJobTypeMismatch(t *testing.T) {
	_, err := DecodeCronJob([]byte(strings.Replace(cronManifest, "kind: CronJob", "kind: Cronjob", 1)))
	var mismatch *CronJobTypeMismatchError
	require.True(t, errors.As(err, &mismatch), "got %v", err)
	assert.Equal(t, CronJobTypeMismatchError{APIVersion: APIVersion, Kind: "Cronjob"}, *mismatch)
}

func TestDecodeCronJobSkipsEmptyDocuments(t *testing.T) {
	cj, err := DecodeCronJob([]byte("---\n" + cronManifest + "---\n"))
	require.NoError(t, err)
	assert.Equal(t, "nightly", cj.Name)
}

func TestDecodeCronJobWithAllowUnknownFields(t *testing.T) {
	manifest := strings.Replace(cronManifest, "schedule:", "scheduel: typo\n  schedule:", 1)
	_, err := DecodeCronJob([]byte(manifest))
	require.ErrorContains(t, err, "scheduel", "strict decoding names the unknown field")
	cj, err := DecodeCronJobWith([]byte(manifest), DecodeOptions{AllowUnknownFields: true})
	require.NoError(t, err)
	assert.Equal(t, "30 2 * * *", cj.Spec.Schedule)
}

// Decoding keeps what the Go types lose: which task templates the
// manifest gave as null (the CRD refuses them; absent ones it admits).
func TestDecodeCronJobNullPodTemplates(t *testing.T) {
	cj, err := DecodeCronJob([]byte(`apiVersion: batch.volcano.sh/v1alpha1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "@hourly"
  jobTemplate:
    spec:
      tasks:
      - {name: a, template: null}
      - {name: b}
      - name: c
        template:
`))
	require.NoError(t, err)
	assert.Equal(t, []int{0, 2}, NullPodTemplates(cj))
	assert.Equal(t, []int{0, 2}, NullPodTemplates(cj.DeepCopy()))
	assert.Nil(t, NullPodTemplates(&CronJob{}))
	assert.Nil(t, NullPodTemplates(nil))

	cj, err = DecodeCronJob([]byte(`{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"CronJob","metadata":{"name":"j"},"spec":{"schedule":"@hourly","jobTemplate":{"spec":{"tasks":[{"name":"t","template":{}}]}}}}`))
	require.NoError(t, err)
	assert.Nil(t, NullPodTemplates(cj))
}
