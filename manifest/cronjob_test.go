package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

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

// A task template given as null decodes as the template left out, with
// no error, wherever the task is in the list: an API server with the
// CronJob CRD prunes the null (the schema types the template as an
// object, not nullable, without a default) and stores the task without a
// template. A template left out or empty decodes too.
func TestDecodeCronJobNullPodTemplates(t *testing.T) {
	doc := func(a, c string) []byte {
		return []byte(`apiVersion: batch.volcano.sh/v1alpha1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "@hourly"
  jobTemplate:
    spec:
      tasks:
      - {name: a` + a + `}
      - {name: b}
      - name: c
` + c)
	}
	leftOut, err := DecodeCronJob(doc("", ""))
	require.NoError(t, err)
	tasks := leftOut.Spec.JobTemplate.Spec.Tasks
	require.Len(t, tasks, 3)
	assert.Equal(t, []vcjob.TaskSpec{{Name: "a"}, {Name: "b"}, {Name: "c"}}, tasks)

	cj, err := DecodeCronJob(doc(", template: null", "        template:\n"))
	require.NoError(t, err)
	assert.Equal(t, leftOut, cj, "decodes as the templates left out")
	cj, err = DecodeCronJobWith(doc(", template: null", "        template:\n"), Options{AllowUnknownFields: true})
	require.NoError(t, err)
	assert.Equal(t, leftOut, cj)

	cj, err = DecodeCronJob([]byte(`{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"CronJob","metadata":{"name":"j"},"spec":{"schedule":"@hourly","jobTemplate":{"spec":{"tasks":[{"name":"t","template":{}}]}}}}`))
	require.NoError(t, err)
	assert.Empty(t, cj.Spec.JobTemplate.Spec.Tasks[0].Template.Spec.Containers)
	withNull, err := DecodeCronJob([]byte(`{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"CronJob","metadata":{"name":"j"},"spec":{"schedule":"@hourly","jobTemplate":{"spec":{"tasks":[{"name":"t","template":null}]}}}}`))
	require.NoError(t, err)
	assert.Equal(t, cj, withNull, "JSON: null and {} decode alike")
}

// The cases validation's tests hold: `template:` with nothing under it
// and `template: null` decode to the same cronjob as the template left
// out (and validation admits it: see validation's tests); an empty
// template decodes too.
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
	leftOut, err := DecodeCronJob(manifest(""))
	require.NoError(t, err)
	require.Len(t, leftOut.Spec.JobTemplate.Spec.Tasks, 2)
	assert.Equal(t, corev1.PodTemplateSpec{}, leftOut.Spec.JobTemplate.Spec.Tasks[1].Template)
	for _, tc := range []struct {
		name     string
		template string
	}{
		{"null", "        template:\n"},
		{"null, written out", "        template: null\n"},
		{"empty", "        template: {}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cj, err := DecodeCronJob(manifest(tc.template))
			require.NoError(t, err)
			assert.Equal(t, leftOut, cj)
		})
	}
}

// A CronJob's nulls as an API server with the CronJob CRD treats them,
// its job template included: a null field is the field left out (the
// defaulted ones then get their defaults, as left out), a null map value
// is removed, the job template's labels and plugins among them, and a
// null list item is refused.
func TestDecodeCronJobNulls(t *testing.T) {
	head := "apiVersion: batch.volcano.sh/v1alpha1\nkind: CronJob\nmetadata: {name: nightly}\nspec:\n  schedule: \"@hourly\"\n"
	cj, err := DecodeCronJob([]byte(head + `  concurrencyPolicy: null
  timeZone: null
  jobTemplate:
    metadata:
      labels: {team: ml, owner: null}
      annotations: {note: null}
    spec:
      plugins: {ssh: null, svc: []}
      tasks:
      - {name: a, template: null}
`))
	require.NoError(t, err)
	assert.Empty(t, cj.Spec.ConcurrencyPolicy)
	assert.Nil(t, cj.Spec.TimeZone)
	assert.Equal(t, map[string]string{"team": "ml"}, cj.Spec.JobTemplate.Labels)
	assert.Empty(t, cj.Spec.JobTemplate.Annotations)
	assert.Equal(t, map[string][]string{"svc": {}}, cj.Spec.JobTemplate.Spec.Plugins)

	for _, tc := range []struct {
		name string
		spec string
		want FieldProblem
	}{
		{"task", "      tasks: [{name: a}, null]\n", FieldProblem{"spec.jobTemplate.spec.tasks[1]", 8, "must be an object, not null"}},
		{"finalizer", "      tasks: [{name: a}]\n    metadata: {finalizers: [null]}\n", FieldProblem{"spec.jobTemplate.metadata.finalizers[0]", 9, "must be a string, not null"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cj, err := DecodeCronJob([]byte(head + "  jobTemplate:\n    spec:\n" + tc.spec))
			assert.Nil(t, cj)
			var de *Error
			require.ErrorAs(t, err, &de)
			assert.Equal(t, []FieldProblem{tc.want}, de.Fields)
			assert.EqualError(t, err, fmt.Sprintf("line %d: cronjob \"nightly\": %s: %s", tc.want.Line, tc.want.Path, tc.want.Problem))
		})
	}
}
