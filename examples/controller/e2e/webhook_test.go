//go:build e2e

package e2e

import (
	"crypto/tls"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/manifest"
	"github.com/vcjob/vcjob/validation"

	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
)

// webhookJob is a job as a user writes it, without Volcano's defaults.
const webhookJob = `apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: NAME}
spec:
  tasks:
  - replicas: 2
    template:
      spec:
        containers: [{name: c, image: busybox}]
`

// TestWebhooks installs config/webhook's configurations (envtest makes the
// serving certificate and points them at the controller), scoped to the
// test's namespace, and has the real API server call the controller's
// webhook server: a job created without defaults comes back defaulted, an
// invalid job, an invalid update and an invalid CronJob are refused with
// the library's messages.
func TestWebhooks(t *testing.T) {
	ns := newNamespace(t, "webhook")
	opts := installWebhooks(t, ns)

	// Until the API server's webhook informer has the configurations, a
	// create is not mutated: probe with throwaway jobs.
	eventually(t, 30*time.Second, "the mutating webhook in force", func() (bool, string) {
		name := fmt.Sprintf("probe-%d", time.Now().UnixNano()%1e6)
		u, err := createUnstructured(ns, clients.JobsResource.Resource, strings.Replace(webhookJob, "NAME", name, 1))
		if err != nil {
			return false, err.Error()
		}
		_ = dyn.Resource(clients.JobsResource).Namespace(ns).Delete(bg, name, metav1.DeleteOptions{})
		queue, _, _ := unstructured.NestedString(u.Object, "spec", "queue")
		return queue == vcjob.DefaultQueue, "spec.queue " + strconv.Quote(queue)
	})
	t.Logf("webhooks served at %s:%d", opts.LocalServingHost, opts.LocalServingPort)

	t.Run("defaulted", func(t *testing.T) { testWebhookDefaults(t, ns) })
	t.Run("invalid job", func(t *testing.T) { testWebhookRefusesJob(t, ns) })
	t.Run("invalid update", func(t *testing.T) { testWebhookRefusesUpdate(t, ns) })
	t.Run("invalid cronjob", func(t *testing.T) { testWebhookRefusesCronJob(t, ns) })
}

// installWebhooks starts a controller serving the webhooks with envtest's
// certificate and installs the configurations for ns only.
func installWebhooks(t *testing.T, ns string) *envtest.WebhookInstallOptions {
	t.Helper()
	return installWebhooksFor(t, &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}})
}

// installWebhooksFor is installWebhooks for the namespaces only selects.
func installWebhooksFor(t *testing.T, only *metav1.LabelSelector) *envtest.WebhookInstallOptions {
	t.Helper()
	opts := &envtest.WebhookInstallOptions{Paths: []string{"../config/webhook"}, LocalServingHost: "127.0.0.1"}
	if err := opts.PrepWithoutInstalling(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = opts.Cleanup() })
	for _, c := range opts.MutatingWebhooks {
		for i := range c.Webhooks {
			c.Webhooks[i].NamespaceSelector = only
		}
	}
	for _, c := range opts.ValidatingWebhooks {
		for i := range c.Webhooks {
			c.Webhooks[i].NamespaceSelector = only
		}
	}
	addr := net.JoinHostPort(opts.LocalServingHost, strconv.Itoa(opts.LocalServingPort))
	startController(t, "ctrl", "--webhook-addr="+addr,
		"--tls-cert-file="+filepath.Join(opts.LocalServingCertDir, "tls.crt"),
		"--tls-private-key-file="+filepath.Join(opts.LocalServingCertDir, "tls.key"))
	eventually(t, 20*time.Second, "the webhook server up", func() (bool, string) {
		conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // only whether it answers
		if err != nil {
			return false, err.Error()
		}
		conn.Close()
		return true, ""
	})
	if err := opts.Install(restConfig); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, c := range opts.MutatingWebhooks {
			_ = kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(bg, c.Name, metav1.DeleteOptions{})
		}
		for _, c := range opts.ValidatingWebhooks {
			_ = kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(bg, c.Name, metav1.DeleteOptions{})
		}
	})
	return opts
}

func createUnstructured(ns, resource, manifest string) (*unstructured.Unstructured, error) {
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(manifest), &obj); err != nil {
		return nil, err
	}
	gvr := clients.JobsResource
	if resource == clients.CronJobsResource.Resource {
		gvr = clients.CronJobsResource
	}
	return dyn.Resource(gvr).Namespace(ns).Create(bg, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
}

// The job as stored has vcjob.SetDefaults' values (the test reads the
// API server's object, not a defaulted copy).
func testWebhookDefaults(t *testing.T, ns string) {
	u, err := createUnstructured(ns, "jobs", strings.Replace(webhookJob, "NAME", "bare", 1))
	if err != nil {
		t.Fatal(err)
	}
	stored, err := dyn.Resource(clients.JobsResource).Namespace(ns).Get(bg, u.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got vcjob.Job
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(stored.Object, &got); err != nil {
		t.Fatal(err)
	}
	want := got.DeepCopy()
	vcjob.SetDefaults(want)
	s := got.Spec
	if s.Queue != "default" || s.SchedulerName != "volcano" || s.MinAvailable != 2 || s.Tasks[0].Name != "default0" ||
		s.Tasks[0].MinAvailable == nil || *s.Tasks[0].MinAvailable != 2 || s.Tasks[0].MaxRetry != 3 {
		t.Errorf("stored spec lacks the defaults: %+v", s)
	}
	wantJSON, _ := yaml.Marshal(want.Spec)
	gotJSON, _ := yaml.Marshal(got.Spec)
	if string(wantJSON) != string(gotJSON) {
		t.Errorf("stored spec\n%s\nis not vcjob.SetDefaults' fixed point:\n%s", gotJSON, wantJSON)
	}
}

// A job whose minAvailable exceeds its replicas is refused with
// validation.ValidateJob's message.
func testWebhookRefusesJob(t *testing.T, ns string) {
	manifest := strings.Replace(strings.Replace(webhookJob, "NAME", "too-many", 1), "  tasks:\n", "  minAvailable: 5\n  tasks:\n", 1)
	_, err := createUnstructured(ns, "jobs", manifest)
	job := decodeManifest(t, manifest)
	vcjob.SetDefaults(job)
	want := validation.ValidateJob(job)
	checkRefused(t, err, want.ToAggregate().Error())
}

// Changing a task's template is refused with validation.ValidateJobUpdate's
// message.
func testWebhookRefusesUpdate(t *testing.T, ns string) {
	if _, err := createUnstructured(ns, "jobs", strings.Replace(webhookJob, "NAME", "updated", 1)); err != nil {
		t.Fatal(err)
	}
	// The controller writes the job's status meanwhile: read it afresh
	// for each try, until an answer is not a conflict.
	var err error
	var old, next vcjob.Job
	for range 20 {
		u, gerr := dyn.Resource(clients.JobsResource).Namespace(ns).Get(bg, "updated", metav1.GetOptions{})
		if gerr != nil {
			t.Fatal(gerr)
		}
		if cerr := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &old); cerr != nil {
			t.Fatal(cerr)
		}
		tasks, _, _ := unstructured.NestedSlice(u.Object, "spec", "tasks")
		if serr := unstructured.SetNestedSlice(tasks[0].(map[string]any), []any{map[string]any{"name": "c", "image": "alpine"}}, "template", "spec", "containers"); serr != nil {
			t.Fatal(serr)
		}
		if serr := unstructured.SetNestedSlice(u.Object, tasks, "spec", "tasks"); serr != nil {
			t.Fatal(serr)
		}
		if cerr := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &next); cerr != nil {
			t.Fatal(cerr)
		}
		_, err = dyn.Resource(clients.JobsResource).Namespace(ns).Update(bg, u, metav1.UpdateOptions{})
		if !apierrors.IsConflict(err) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	want := validation.ValidateJobUpdate(&next, &old)
	checkRefused(t, err, want.ToAggregate().Error())
}

// A CronJob whose schedule names a time zone is refused with
// validation.ValidateCronJob's message.
func testWebhookRefusesCronJob(t *testing.T, ns string) {
	manifest := `apiVersion: batch.volcano.sh/v1alpha1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "TZ=UTC 0 2 * * *"
  jobTemplate:
    spec:
      tasks: [{name: w, replicas: 1, template: {spec: {containers: [{name: c, image: busybox}]}}}]
`
	_, err := createUnstructured(ns, clients.CronJobsResource.Resource, manifest)
	var cj vcjob.CronJob
	if uerr := yaml.Unmarshal([]byte(manifest), &cj); uerr != nil {
		t.Fatal(uerr)
	}
	vcjob.SetCronJobDefaults(&cj)
	want := validation.ValidateCronJob(&cj)
	if len(want) == 0 {
		t.Fatal("the test's cronjob is valid")
	}
	checkRefused(t, err, want.ToAggregate().Error())
}

func decodeManifest(t *testing.T, doc string) *vcjob.Job {
	t.Helper()
	job, err := manifest.DecodeJob([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return job
}

// checkRefused wants err to be the API server's refusal carrying the
// webhook's message.
func checkRefused(t *testing.T, err error, message string) {
	t.Helper()
	if err == nil {
		t.Fatalf("admitted; want refused with %q", message)
	}
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "denied the request: "+message) {
		t.Errorf("refused with %v; want 422 Invalid carrying %q", err, message)
	}
	t.Logf("refused: %v", err)
}
