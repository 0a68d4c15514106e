package manifest

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/internal/testfiles"
)

// header starts a manifest with the right type and a name.
const header = "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: demo\n"

// minimalManifest is a one-task Job with a 500m CPU request, 17 lines
// long. The root package's tests read the same file.
var minimalManifest = testfiles.MustRead("../testdata/job-minimal.yaml")

func TestDecodeJobMinimal(t *testing.T) {
	job, err := DecodeJob([]byte(minimalManifest))
	require.NoError(t, err)
	assert.Equal(t, vcjob.APIVersion, job.APIVersion)
	assert.Equal(t, vcjob.JobKind, job.Kind)
	assert.Equal(t, "demo", job.Name)
	assert.Equal(t, int32(1), job.Spec.MinAvailable)
	require.Len(t, job.Spec.Tasks, 1)
	task := job.Spec.Tasks[0]
	assert.Equal(t, "worker", task.Name)
	assert.Equal(t, int32(2), task.Replicas)
	require.Len(t, task.Template.Spec.Containers, 1)
	cpu := task.Template.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU]
	assert.Equal(t, int64(500), cpu.MilliValue())
}

func TestDecodeJobJSON(t *testing.T) {
	for name, doc := range map[string]string{
		"compact": `{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"Job","metadata":{"name":"j"},"spec":{"tasks":[{"name":"t","replicas":1}]}}`,
		// Tabs are not YAML indentation, so this only decodes as JSON.
		"tab indented": "{\n\t\"apiVersion\": \"batch.volcano.sh/v1alpha1\",\n\t\"kind\": \"Job\",\n\t\"metadata\": {\"name\": \"j\"},\n\t\"spec\": {\"tasks\": [{\"name\": \"t\", \"replicas\": 1}]}\n}\n",
	} {
		t.Run(name, func(t *testing.T) {
			job, err := DecodeJob([]byte(doc))
			require.NoError(t, err)
			assert.Equal(t, "j", job.Name)
			require.Len(t, job.Spec.Tasks, 1)
			assert.Equal(t, int32(1), job.Spec.Tasks[0].Replicas)
		})
	}
}

func TestDecodeJobErrors(t *testing.T) {
	cases := []struct {
		name string
		doc  string
		// wantIs is a sentinel the error must wrap, wantText parts of its
		// message; at least one is set.
		wantIs   error
		wantText []string
	}{
		{name: "unknown top-level field", doc: header + "spek: {}\n", wantText: []string{`spek: unknown field`}},
		{name: "unknown spec field", doc: header + "spec:\n  minAvaliable: 1\n", wantText: []string{`line 6: job "demo": spec.minAvaliable: unknown field`}},
		{
			name: "unknown field in a pod template container",
			doc: header + "spec:\n  tasks:\n    - name: t\n      template:\n        spec:\n          containers:\n" +
				"            - name: c\n              imagee: busybox\n",
			wantText: []string{`line 12: job "demo": spec.tasks[0].template.spec.containers[0].imagee: unknown field`},
		},
		{name: "field names are case sensitive", doc: header + "Spec: {}\n", wantText: []string{`Spec: unknown field`}},
		{name: "duplicate key", doc: header + "spec:\n  queue: a\n  queue: b\n", wantText: []string{`"queue" already set`}},
		{
			name:     "duplicate JSON key",
			doc:      `{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "spec": {"queue": "a", "queue": "b"}}`,
			wantText: []string{`spec.queue: duplicate field`},
		},
		{name: "wrong type", doc: header + "spec:\n  minAvailable: two\n", wantText: []string{`line 6: job "demo": spec.minAvailable: must be a number, not a string`}},
		{
			name:     "wrong apiVersion",
			doc:      "apiVersion: batch.volcano.sh/v1\nkind: Job\n",
			wantText: []string{`apiVersion is "batch.volcano.sh/v1", expected "batch.volcano.sh/v1alpha1"`},
		},
		{name: "missing apiVersion", doc: "kind: Job\n", wantText: []string{`apiVersion is missing, expected "batch.volcano.sh/v1alpha1"`}},
		{name: "wrong kind", doc: "apiVersion: batch.volcano.sh/v1alpha1\nkind: CronJob\n", wantText: []string{`kind is "CronJob", expected "Job"`}},
		{name: "missing kind", doc: "apiVersion: batch.volcano.sh/v1alpha1\n", wantText: []string{`kind is missing, expected "Job"`}},
		{name: "apiVersion not a string", doc: "apiVersion: 1\nkind: Job\n", wantText: []string{"apiVersion must be a string"}},
		{name: "list", doc: "- a\n- b\n", wantIs: ErrNotMapping, wantText: []string{"found a list"}},
		{name: "string", doc: "just text\n", wantIs: ErrNotMapping, wantText: []string{"found a string"}},
		{name: "number", doc: "42\n", wantIs: ErrNotMapping, wantText: []string{"found a number"}},
		{name: "JSON list", doc: `[{"kind":"Job"}]`, wantIs: ErrNotMapping},
		{name: "empty", doc: "", wantIs: ErrEmpty},
		{name: "whitespace", doc: " \n\t\n", wantIs: ErrEmpty},
		{name: "comment only", doc: "# nothing here\n", wantIs: ErrEmpty},
		{name: "separators only", doc: "---\n---\n", wantIs: ErrEmpty},
		{name: "bad YAML", doc: "spec: [unclosed\n", wantText: []string{"invalid YAML"}},
		{name: "bad separator", doc: header + "--- not a comment\n" + header, wantText: []string{"document separator"}},
		{name: "two jobs", doc: minimalManifest + "---\n" + minimalManifest, wantIs: ErrMultipleDocuments},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.True(t, tc.wantIs != nil || len(tc.wantText) > 0, "case states no expectation")
			job, err := DecodeJob([]byte(tc.doc))
			require.Error(t, err)
			assert.Nil(t, job)
			if tc.wantIs != nil {
				assert.ErrorIs(t, err, tc.wantIs)
			}
			for _, text := range tc.wantText {
				assert.ErrorContains(t, err, text)
			}
		})
	}
}

// TestErrorPointsAtTheField: a value of the wrong kind is named by
// its full path, indices included, and its line, in the words of JSON
// kinds rather than Go types.
func TestErrorPointsAtTheField(t *testing.T) {
	doc := header + `spec:
  tasks:
  - name: a
    template:
      spec:
        containers: [{name: c, image: busybox}]
  - name: b
    template:
      spec:
        containers:
          name: x
          image: busybox
`
	_, err := DecodeJob([]byte(doc))
	var de *Error
	require.ErrorAs(t, err, &de)
	assert.Equal(t, []FieldProblem{{Path: "spec.tasks[1].template.spec.containers", Line: 14, Problem: "must be a list, not an object"}}, de.Fields)
	assert.Equal(t, `line 14: job "demo": spec.tasks[1].template.spec.containers: must be a list, not an object`, err.Error())
	assert.NotContains(t, err.Error(), "v1.Container", "no Go type names")

	// Every unknown field is listed, each with its line.
	_, err = DecodeJob([]byte(header + "spec:\n  queu: a\n  tasks:\n  - name: t\n    replica: 2\n"))
	require.ErrorAs(t, err, &de)
	assert.Equal(t, []string{"spec.queu", "spec.tasks[0].replica"}, de.UnknownFields())
	assert.Equal(t, []int{6, 9}, []int{de.Fields[0].Line, de.Fields[1].Line})
	assert.Equal(t, 6, de.Line, "the error is at its first field")
}

func TestPathSegments(t *testing.T) {
	for path, want := range map[string][]string{
		"spec":                            {"spec"},
		"spec.tasks[1].template":          {"spec", "tasks", "1", "template"},
		"metadata.labels[volcano.sh/a.b]": {"metadata", "labels", "volcano.sh/a.b"},
		"":                                nil,
	} {
		assert.Equal(t, want, pathSegments(path), path)
	}
}

func TestDecodeJobTypeMismatchError(t *testing.T) {
	_, err := DecodeJob([]byte("apiVersion: v1\nkind: Pod\n"))
	var mismatch *TypeMismatchError
	require.ErrorAs(t, err, &mismatch)
	assert.Equal(t, TypeMismatchError{APIVersion: "v1", Kind: "Pod"}, *mismatch)
	assert.ErrorContains(t, err, `expected "batch.volcano.sh/v1alpha1"`)
	assert.ErrorContains(t, err, `expected "Job"`)
}

func TestDecodeJobUnderlyingErrorsAreWrapped(t *testing.T) {
	_, err := DecodeJob([]byte("apiVersion: 1\nkind: Job\n"))
	var typeErr *json.UnmarshalTypeError
	assert.ErrorAs(t, err, &typeErr)
}

func TestDecodeJobIgnoresEmptyDocumentsAround(t *testing.T) {
	job, err := DecodeJob([]byte("---\n# leading comment\n---\n" + minimalManifest + "---\n"))
	require.NoError(t, err)
	assert.Equal(t, "demo", job.Name)
}

func TestDecodeJobWithAllowUnknownFields(t *testing.T) {
	doc := minimalManifest + "  surprise: true\n"
	_, err := DecodeJob([]byte(doc))
	require.ErrorContains(t, err, `spec.surprise: unknown field`)

	job, err := DecodeJobWith([]byte(doc), Options{AllowUnknownFields: true})
	require.NoError(t, err)
	assert.Equal(t, "demo", job.Name)

	// Duplicate keys are tolerated too, the last one winning.
	job, err = DecodeJobWith([]byte(header+"spec:\n  queue: a\n  queue: b\n"), Options{AllowUnknownFields: true})
	require.NoError(t, err)
	assert.Equal(t, "b", job.Spec.Queue)

	// The opt-out is about fields only: the type is still checked.
	_, err = DecodeJobWith([]byte("apiVersion: v1\nkind: Job\n"), Options{AllowUnknownFields: true})
	var mismatch *TypeMismatchError
	assert.ErrorAs(t, err, &mismatch)
}

func TestDecodeJobs(t *testing.T) {
	second := `{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "second"}}`
	stream := "---\n" + minimalManifest + "---\n# empty\n---\n" + second + "\n---\n"
	jobs, err := DecodeJobs([]byte(stream))
	require.NoError(t, err)
	require.Len(t, jobs, 2)
	assert.Equal(t, "demo", jobs[0].Name)
	assert.Equal(t, "second", jobs[1].Name)
}

func TestDecodeJobsErrorNamesTheDocument(t *testing.T) {
	stream := minimalManifest + "---\n---\napiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nspec:\n  bogus: 1\n"
	_, err := DecodeJobs([]byte(stream))
	require.Error(t, err)
	assert.EqualError(t, err, "line 23: spec.bogus: unknown field", "the line is the field's, counted in the stream")

	_, err = DecodeJobs([]byte("---\n"))
	assert.ErrorIs(t, err, ErrEmpty)

	jobs, err := DecodeJobsWith([]byte(stream), Options{AllowUnknownFields: true})
	require.NoError(t, err)
	assert.Len(t, jobs, 2)
}

func TestDecodeJobRoundTrip(t *testing.T) {
	original, err := DecodeJob([]byte(minimalManifest))
	require.NoError(t, err)
	vcjob.SetDefaults(original)
	assertRoundTrip(t, original)
}

// assertRoundTrip encodes job to JSON and decodes it again: the JSON field
// names must be the ones strict decoding knows, and nothing may be lost.
// Quantities compare by value: decoding "1024Mi" and "1Gi" give equal
// quantities that print differently.
func assertRoundTrip(t *testing.T, job *vcjob.Job) {
	t.Helper()
	encoded, err := json.Marshal(job)
	require.NoError(t, err)
	again, err := DecodeJob(encoded)
	require.NoError(t, err, "the encoding must decode strictly")
	assert.True(t, equality.Semantic.DeepEqual(job, again), "decoded job differs from the one encoded")
	reencoded, err := json.Marshal(again)
	require.NoError(t, err)
	assert.JSONEq(t, string(encoded), string(reencoded))
}

// A task template given as null (`template:` with nothing under it, or
// `template: null`) decodes as the template left out, with no error: an
// API server with the Job CRD prunes a null the schema does not allow
// (the template is an object, not nullable, without a default) before it
// validates, so it stores the task without a template. What validation
// then says of such a task is in validation's tests.
func TestDecodeJobNullPodTemplate(t *testing.T) {
	doc := func(template string) string {
		return header + "spec:\n  tasks:\n  - name: a\n    template: {spec: {containers: [{name: c, image: busybox}]}}\n  - name: b\n" + template
	}
	leftOut, err := DecodeJob([]byte(doc("")))
	require.NoError(t, err)
	require.Len(t, leftOut.Spec.Tasks, 2)
	assert.Equal(t, corev1.PodTemplateSpec{}, leftOut.Spec.Tasks[1].Template)
	for name, template := range map[string]string{
		"null":               "    template:\n",
		"null, written out":  "    template: null\n",
		"null, with a tilde": "    template: ~\n",
	} {
		t.Run(name, func(t *testing.T) {
			job, err := DecodeJob([]byte(doc(template)))
			require.NoError(t, err)
			assert.Equal(t, leftOut, job, "decodes as the template left out")
		})
	}

	// An unknown field beside it is the only problem, and the only field
	// AllowUnknownFields drops.
	_, err = DecodeJob([]byte(doc("    template:\n    replica: 2\n")))
	var de *Error
	require.ErrorAs(t, err, &de)
	assert.Equal(t, []FieldProblem{{"spec.tasks[1].replica", 11, "unknown field"}}, de.Fields)
	job, err := DecodeJobWith([]byte(doc("    template:\n    replica: 2\n")), Options{AllowUnknownFields: true})
	require.NoError(t, err)
	assert.Equal(t, leftOut, job)

	// JSON, and a stream.
	job, err = DecodeJob([]byte(`{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"Job","metadata":{"name":"demo"},"spec":{"tasks":[{"name":"t","template":null}]}}`))
	require.NoError(t, err)
	assert.Equal(t, []vcjob.TaskSpec{{Name: "t"}}, job.Spec.Tasks)
	jobs, err := DecodeJobs([]byte(minimalManifest + "---\n" + doc("    template:\n")))
	require.NoError(t, err)
	require.Len(t, jobs, 2)
	assert.Equal(t, leftOut, jobs[1])
}

// Other nulls below spec, as an API server with the Job CRD treats them:
// a null field is the field left out, a null map value is removed (the
// ssh plugin written as `ssh:` is no plugin), a null list item is refused
// (the schema's items are objects or strings, not nullable). Inside a
// task's template, which the CRD leaves untyped, the server keeps the
// nulls and Go readers decode them as here.
func TestDecodeJobNulls(t *testing.T) {
	job, err := DecodeJob([]byte(header + `spec:
  queue: null
  volumes: null
  plugins:
    ssh:
    svc: []
    env: [a]
  tasks:
  - name: a
    policies: null
    dependsOn: null
    template:
      metadata: {labels: {x: null}}
      spec:
        nodeSelector: {disk: null}
        containers: [{name: c, image: busybox, args: null}]
`))
	require.NoError(t, err)
	assert.Equal(t, map[string][]string{"svc": {}, "env": {"a"}}, job.Spec.Plugins, "the null plugin is removed")
	assert.Empty(t, job.Spec.Queue)
	assert.Nil(t, job.Spec.Volumes)
	task := job.Spec.Tasks[0]
	assert.Nil(t, task.Policies)
	assert.Nil(t, task.DependsOn)
	assert.Equal(t, map[string]string{"x": ""}, task.Template.Labels, "the template's nulls are Go's")
	assert.Equal(t, map[string]string{"disk": ""}, task.Template.Spec.NodeSelector)

	for _, tc := range []struct {
		name string
		spec string
		want []FieldProblem
	}{
		{"task", "  tasks:\n  - {name: a}\n  -\n", []FieldProblem{{"spec.tasks[1]", 8, "must be an object, not null"}}},
		{"task, written out", "  tasks: [{name: a}, null]\n", []FieldProblem{{"spec.tasks[1]", 6, "must be an object, not null"}}},
		{"policy event", "  policies:\n  - events: [PodFailed, null]\n    action: RestartJob\n", []FieldProblem{{"spec.policies[0].events[1]", 7, "must be a string, not null"}}},
		{"dependency", "  tasks:\n  - name: a\n    dependsOn: {name: [null]}\n", []FieldProblem{{"spec.tasks[0].dependsOn.name[0]", 8, "must be a string, not null"}}},
		{"plugin argument", "  plugins: {ssh: [null]}\n", []FieldProblem{{"spec.plugins[ssh][0]", 6, "must be a string, not null"}}},
		{"two", "  tasks: [null]\n  volumes: [null]\n", []FieldProblem{
			{"spec.tasks[0]", 6, "must be an object, not null"},
			{"spec.volumes[0]", 7, "must be an object, not null"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job, err := DecodeJob([]byte(header + "spec:\n" + tc.spec))
			assert.Nil(t, job)
			var de *Error
			require.ErrorAs(t, err, &de)
			assert.Equal(t, tc.want, de.Fields)
			assert.Equal(t, tc.want[0].Line, de.Line)
			assert.Empty(t, de.UnknownFields(), "a null item is no unknown field")
			_, err = DecodeJobWith([]byte(header+"spec:\n"+tc.spec), Options{AllowUnknownFields: true})
			require.ErrorAs(t, err, &de, "the option is about the fields the types lack")
			assert.Equal(t, tc.want, de.Fields)
		})
	}

	// Beside an unknown field, both are listed, the decoder's first; after
	// an error that names no field, the null waits for that one.
	_, err = DecodeJob([]byte(header + "spec:\n  tasks: [null]\n  queu: q\n"))
	var de *Error
	require.ErrorAs(t, err, &de)
	assert.Equal(t, []FieldProblem{{"spec.queu", 7, "unknown field"}, {"spec.tasks[0]", 6, "must be an object, not null"}}, de.Fields)
	_, err = DecodeJob([]byte(header + "spec:\n  tasks: [null]\n  minAvailable: 1.5\n"))
	require.ErrorAs(t, err, &de)
	assert.NotContains(t, err.Error(), "tasks")

	// JSON, and a stream: the line counts in the stream.
	_, err = DecodeJob([]byte(`{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"Job","spec":{"tasks":[null]}}`))
	assert.EqualError(t, err, "line 1: spec.tasks[0]: must be an object, not null")
	_, err = DecodeJobs([]byte(minimalManifest + "---\n" + header + "spec:\n  tasks: [null]\n"))
	assert.EqualError(t, err, `line 24: job "demo": spec.tasks[0]: must be an object, not null`)
}
