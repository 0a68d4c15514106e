package manifest

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vcjob/vcjob"
)

func TestDecodeCronJob(t *testing.T) {
	cj, err := DecodeCronJob([]byte(cronManifest))
	require.NoError(t, err)
	assert.Equal(t, vcjob.APIVersion, cj.APIVersion)
	assert.Equal(t, vcjob.CronJobKind, cj.Kind)
	assert.Equal(t, "nightly", cj.Name)
	assert.Equal(t, "ml", cj.Namespace)
	spec := cj.Spec
	assert.Equal(t, "30 2 * * *", spec.Schedule)
	assert.Equal(t, new("America/New_York"), spec.TimeZone)
	assert.Equal(t, new(int64(600)), spec.StartingDeadlineSeconds)
	assert.Equal(t, vcjob.ForbidConcurrent, spec.ConcurrencyPolicy)
	assert.Nil(t, spec.Suspend)
	assert.Equal(t, new(int32(5)), spec.SuccessfulJobsHistoryLimit)
	assert.Equal(t, new(int32(2)), spec.FailedJobsHistoryLimit)
	assert.Equal(t, map[string]string{"team": "ml"}, spec.JobTemplate.Labels)
	require.Len(t, spec.JobTemplate.Spec.Tasks, 1)
	assert.Equal(t, int32(2), spec.JobTemplate.Spec.Tasks[0].Replicas)

	vcjob.SetCronJobDefaults(cj)
	assert.Equal(t, vcjob.ForbidConcurrent, cj.Spec.ConcurrencyPolicy, "defaults keep what the manifest says")
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
		{"empty", "", ErrEmpty, "empty manifest"},
		{"only separators and comments", "---\n# nothing\n---\n", ErrEmpty, "empty manifest"},
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
	assert.Equal(t, CronJobTypeMismatchError{APIVersion: vcjob.APIVersion, Kind: "Cronjob"}, *mismatch)
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
	cj, err := DecodeCronJobWith([]byte(manifest), Options{AllowUnknownFields: true})
	require.NoError(t, err)
	assert.Equal(t, "30 2 * * *", cj.Spec.Schedule)
}

// A task template given as null is an error naming each such task with
// its line: the Go types cannot tell null from absent, and the CRD's
// schema types the template as an object that may not be null. A
// template left out or empty decodes.
func TestDecodeCronJobNullPodTemplates(t *testing.T) {
	doc := []byte(`apiVersion: batch.volcano.sh/v1alpha1
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
`)
	wantFields := []FieldProblem{
		{Path: "spec.jobTemplate.spec.tasks[0].template", Line: 9, Problem: "must be an object, not null"},
		{Path: "spec.jobTemplate.spec.tasks[2].template", Line: 12, Problem: "must be an object, not null"},
	}
	cj, err := DecodeCronJob(doc)
	assert.Nil(t, cj)
	var de *Error
	require.ErrorAs(t, err, &de)
	assert.Equal(t, wantFields, de.Fields)
	assert.Equal(t, 9, de.Line, "the error is at its first null template")
	assert.Equal(t, `cronjob "nightly"`, de.Object)
	assert.Empty(t, de.UnknownFields(), "a null template is no unknown field")

	// Refused when unknown fields are dropped too: the option is about
	// fields the types lack.
	_, err = DecodeCronJobWith(doc, Options{AllowUnknownFields: true})
	require.ErrorAs(t, err, &de)
	assert.Equal(t, wantFields, de.Fields)

	cj, err = DecodeCronJob([]byte(`{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"CronJob","metadata":{"name":"j"},"spec":{"schedule":"@hourly","jobTemplate":{"spec":{"tasks":[{"name":"t","template":{}}]}}}}`))
	require.NoError(t, err)
	assert.Empty(t, cj.Spec.JobTemplate.Spec.Tasks[0].Template.Spec.Containers)
}

// The cases validation's tests held when ValidateCronJob reported null
// templates: `template:` with nothing under it and `template: null` are
// errors at the template's path and line; a template left out or empty
// decodes (and validation admits it: see validation's tests).
func TestDecodeCronJobNullOrAbsentPodTemplate(t *testing.T) {
	manifest := func(template string) []byte {
		return []byte(`apiVersion: batch.volcano.sh/v1alpha1
kind: CronJob
metadata: {name: nightly, namespace: ml}
spec:
  schedule: "@hourly"
  jobTemplate:
    spec:
      tasks:
      - name: main
        replicas: 1
        template: {spec: {containers: [{name: main, image: busybox}]}}
      - name: worker
        replicas: 1
` + template)
	}
	for _, tc := range []struct {
		name     string
		template string
		want     []FieldProblem
	}{
		{"null", "        template:\n", []FieldProblem{{"spec.jobTemplate.spec.tasks[1].template", 14, "must be an object, not null"}}},
		{"null, written out", "        template: null\n", []FieldProblem{{"spec.jobTemplate.spec.tasks[1].template", 14, "must be an object, not null"}}},
		{"left out", "", nil},
		{"empty", "        template: {}\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cj, err := DecodeCronJob(manifest(tc.template))
			if tc.want == nil {
				require.NoError(t, err)
				assert.Len(t, cj.Spec.JobTemplate.Spec.Tasks, 2)
				return
			}
			assert.Nil(t, cj)
			var de *Error
			require.ErrorAs(t, err, &de)
			assert.Equal(t, tc.want, de.Fields)
			assert.EqualError(t, err, `line 14: cronjob "nightly": spec.jobTemplate.spec.tasks[1].template: must be an object, not null`)
		})
	}
}
