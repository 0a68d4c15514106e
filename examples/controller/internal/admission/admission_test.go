package admission

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/validation"

	"github.com/vcjob/vcjob/examples/controller/pkg/metrics"
)

// A job as a user writes it: no queue, scheduler, retries, task name or
// minAvailable, and a field the typed encoding would spell otherwise
// (the quantity 1000m).
const bareJob = `apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: bare, namespace: ns}
spec:
  plugins: {pytorch: ["--master=master"]}
  tasks:
  - replicas: 2
    template:
      spec:
        containers:
        - name: c
          image: busybox
          resources: {requests: {cpu: 1000m}}
`

func raw(t *testing.T, doc string) runtime.RawExtension {
	t.Helper()
	data, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return runtime.RawExtension{Raw: data}
}

func request(op admissionv1.Operation, obj, old runtime.RawExtension) *admissionv1.AdmissionRequest {
	return &admissionv1.AdmissionRequest{UID: "uid-1", Operation: op, Namespace: "ns", Object: obj, OldObject: old}
}

// The mutating webhook's patch, applied to the object as the API server
// would, gives vcjob.SetDefaults' job and touches nothing else.
func TestMutateJobPatchesTheDefaults(t *testing.T) {
	obj := raw(t, bareJob)
	resp := MutateJob(request(admissionv1.Create, obj, runtime.RawExtension{}))
	if !resp.Allowed || resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch {
		t.Fatalf("response %+v, want allowed with a JSON patch", resp)
	}
	patch, err := jsonpatch.DecodePatch(resp.Patch)
	if err != nil {
		t.Fatal(err)
	}
	patched, err := patch.Apply(obj.Raw)
	if err != nil {
		t.Fatal(err)
	}
	var got, want vcjob.Job
	if err := json.Unmarshal(patched, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(obj.Raw, &want); err != nil {
		t.Fatal(err)
	}
	vcjob.SetDefaults(&want)
	gotJSON, _ := json.Marshal(&got)
	wantJSON, _ := json.Marshal(&want)
	if !bytes.Equal(gotJSON, wantJSON) {
		t.Errorf("patched job\n%s\nwant\n%s", gotJSON, wantJSON)
	}
	if s := got.Spec; s.Queue != "default" || s.SchedulerName != "volcano" || s.MaxRetry != 3 ||
		s.Tasks[0].Name != "default0" || s.MinAvailable != 2 || s.Plugins["svc"] == nil {
		t.Errorf("defaults missing: %+v", s)
	}
	if strings.Contains(string(resp.Patch), "cpu") {
		t.Errorf("the patch rewrites the quantity as typed encoding spells it: %s", resp.Patch)
	}
}

// A job that has its defaults gets no patch, and updates are not mutated.
func TestMutateJobLeavesDefaultedJobsAndUpdatesAlone(t *testing.T) {
	var job vcjob.Job
	if err := json.Unmarshal(raw(t, bareJob).Raw, &job); err != nil {
		t.Fatal(err)
	}
	vcjob.SetDefaults(&job)
	data, _ := json.Marshal(&job)
	obj := runtime.RawExtension{Raw: data}
	if resp := MutateJob(request(admissionv1.Create, obj, runtime.RawExtension{})); !resp.Allowed || resp.Patch != nil {
		t.Errorf("defaulted job: %+v, want allowed without a patch", resp)
	}
	if resp := MutateJob(request(admissionv1.Update, raw(t, bareJob), obj)); !resp.Allowed || resp.Patch != nil {
		t.Errorf("update: %+v, want allowed without a patch", resp)
	}
}

// An invalid job is refused with the library's message for it.
func TestValidateJobCreate(t *testing.T) {
	bad := strings.Replace(bareJob, "  tasks:\n", "  minAvailable: 5\n  tasks:\n", 1)
	obj := raw(t, bad)
	var job vcjob.Job
	if err := json.Unmarshal(obj.Raw, &job); err != nil {
		t.Fatal(err)
	}
	want := validation.ValidateJob(&job)
	if len(want) == 0 {
		t.Fatal("the test's job is valid")
	}
	resp := ValidateJob(request(admissionv1.Create, obj, runtime.RawExtension{}))
	if resp.Allowed || resp.Result == nil || resp.Result.Message != want.ToAggregate().Error() || resp.Result.Code != http.StatusUnprocessableEntity {
		t.Errorf("response %+v, want refused with %q", resp.Result, want.ToAggregate().Error())
	}
	vcjob.SetDefaults(&job)
	job.Spec.MinAvailable = 2
	data, _ := json.Marshal(&job)
	if resp := ValidateJob(request(admissionv1.Create, runtime.RawExtension{Raw: data}, runtime.RawExtension{})); !resp.Allowed {
		t.Errorf("a valid job was refused: %s", resp.Result.Message)
	}
}

// An update may change only what Volcano lets change.
func TestValidateJobUpdate(t *testing.T) {
	var old vcjob.Job
	if err := json.Unmarshal(raw(t, bareJob).Raw, &old); err != nil {
		t.Fatal(err)
	}
	vcjob.SetDefaults(&old)
	oldData, _ := json.Marshal(&old)
	scaled := old.DeepCopy()
	scaled.Spec.Tasks[0].Replicas = 3
	scaledData, _ := json.Marshal(scaled)
	if resp := ValidateJob(request(admissionv1.Update, runtime.RawExtension{Raw: scaledData}, runtime.RawExtension{Raw: oldData})); !resp.Allowed {
		t.Errorf("scaling a task was refused: %s", resp.Result.Message)
	}
	changed := old.DeepCopy()
	changed.Spec.Tasks[0].Template.Spec.Containers[0].Image = "alpine"
	changedData, _ := json.Marshal(changed)
	want := validation.ValidateJobUpdate(changed, &old)
	resp := ValidateJob(request(admissionv1.Update, runtime.RawExtension{Raw: changedData}, runtime.RawExtension{Raw: oldData}))
	if resp.Allowed || len(want) == 0 || resp.Result.Message != want.ToAggregate().Error() {
		t.Errorf("changing a template: %+v, want refused with %q", resp.Result, want.ToAggregate().Error())
	}
}

func TestValidateCronJob(t *testing.T) {
	good := `apiVersion: batch.volcano.sh/v1alpha1
kind: CronJob
metadata: {name: nightly, namespace: ns}
spec:
  schedule: "0 2 * * *"
  jobTemplate:
    spec:
      tasks: [{name: w, replicas: 1, template: {spec: {containers: [{name: c, image: busybox}]}}}]
`
	if resp := ValidateCronJob(request(admissionv1.Create, raw(t, good), runtime.RawExtension{})); !resp.Allowed {
		t.Errorf("a valid cronjob was refused: %s", resp.Result.Message)
	}
	bad := strings.Replace(good, `"0 2 * * *"`, `"TZ=UTC 0 2 * * *"`, 1)
	var cj vcjob.CronJob
	if err := json.Unmarshal(raw(t, bad).Raw, &cj); err != nil {
		t.Fatal(err)
	}
	vcjob.SetCronJobDefaults(&cj)
	want := validation.ValidateCronJob(&cj)
	resp := ValidateCronJob(request(admissionv1.Update, raw(t, bad), raw(t, good)))
	if resp.Allowed || len(want) == 0 || resp.Result.Message != want.ToAggregate().Error() {
		t.Errorf("a TZ in the schedule: %+v, want refused with %q", resp.Result, want.ToAggregate().Error())
	}
}

// Over HTTP: the review comes back with the request's UID, as the kind
// and version it was sent as; anything else is a client error.
func TestHandlerOverHTTP(t *testing.T) {
	srv := httptest.NewServer(Mux(metrics.New()))
	defer srv.Close()
	review := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request:  request(admissionv1.Create, raw(t, bareJob), runtime.RawExtension{}),
	}
	body, _ := json.Marshal(&review)
	for _, p := range []string{MutateJobsPath, "/" + MutateJobsPath} { // envtest doubles the slash
		resp, err := http.Post(srv.URL+p, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var out admissionv1.AdmissionReview
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil || out.Kind != "AdmissionReview" || out.Response == nil || out.Response.UID != "uid-1" || !out.Response.Allowed || len(out.Response.Patch) == 0 {
			t.Errorf("%s: %+v, %v", p, out, err)
		}
	}
	for _, tc := range []struct {
		method, path, body string
		code               int
	}{
		{http.MethodGet, ValidateJobsPath, "", http.StatusMethodNotAllowed},
		{http.MethodPost, ValidateJobsPath, "{}", http.StatusBadRequest},
		{http.MethodPost, "/pods/validate", string(body), http.StatusNotFound},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.code {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, resp.StatusCode, tc.code)
		}
	}
}
