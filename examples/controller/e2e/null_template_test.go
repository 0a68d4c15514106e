//go:build e2e

package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/manifest"
	"github.com/vcjob/vcjob/validation"
)

// nullTasks are two tasks, the second with its template given as JSON
// null.
const nullTasks = `[{"name":"main","replicas":1,"template":{"spec":{"containers":[{"name":"c","image":"busybox"}]}}},` +
	`{"name":"worker","replicas":1,"template":null}]`

// nullTemplateJob and nullTemplateCronJob are sent as they are written
// here, so that the null reaches the API server.
const (
	nullTemplateJob = `{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"Job","metadata":{"name":"NAME"},` +
		`"spec":{"tasks":` + nullTasks + `}}`
	nullTemplateCronJob = `{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"CronJob","metadata":{"name":"NAME"},` +
		`"spec":{"schedule":"@hourly","jobTemplate":{"spec":{"tasks":` + nullTasks + `}}}}`
)

var (
	nullJobs     = vcjob.SchemeGroupVersion.WithResource("jobs")
	nullCronJobs = vcjob.SchemeGroupVersion.WithResource("cronjobs")
)

// TestNullTemplate sends a Job and a CronJob whose second task's template
// is null to the real API server. With the CRDs alone both are admitted
// and stored without that template (the server prunes a null its schema
// does not allow), which is what package manifest decodes. With the
// controller's webhooks in force, each gets what package validation
// predicts for a task without a template: the CronJob is admitted (its
// webhook does not validate the template as a Job), the Job is refused
// for the empty template's missing containers. The other nulls package
// manifest decodes as the server treats them are checked beside.
func TestNullTemplate(t *testing.T) {
	t.Run("crd", func(t *testing.T) {
		ns := newNamespace(t, "null-crd")
		for _, c := range []struct {
			gvr  schema.GroupVersionResource
			body string
		}{{nullJobs, nullTemplateJob}, {nullCronJobs, nullTemplateCronJob}} {
			t.Run(c.gvr.Resource, func(t *testing.T) {
				body := strings.Replace(c.body, "NAME", "null-template", 1)
				created, err := postRaw(ns, c.gvr, body)
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				checkStoredWithoutTemplate(t, ns, c.gvr, created, body)
			})
		}
	})

	// The other nulls package manifest decodes as the server treats them:
	// a null map value pruned, a null list item refused, the nulls inside
	// a task's template (untyped in the CRD) kept.
	t.Run("other nulls", func(t *testing.T) {
		ns := newNamespace(t, "null-other")
		body := `{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"Job","metadata":{"name":"plugins","labels":{"team":null}},"spec":{` +
			`"plugins":{"ssh":null,"svc":[]},` +
			`"tasks":[{"name":"main","replicas":1,"template":{"spec":{"nodeSelector":{"disk":null},"containers":[{"name":"c","image":"busybox"}]}}}]}}`
		created, err := postRaw(ns, nullJobs, body)
		if err != nil {
			t.Fatalf("refused: %v", err)
		}
		plugins, _, _ := unstructured.NestedMap(created.Object, "spec", "plugins")
		if _, ok := plugins["ssh"]; ok || len(plugins) != 1 {
			t.Errorf("stored plugins %v; want svc alone (the null ssh pruned)", plugins)
		}
		tasks, _, _ := unstructured.NestedSlice(created.Object, "spec", "tasks")
		if len(tasks) != 1 {
			t.Fatalf("stored tasks %v; want one", tasks)
		}
		selector, _, _ := unstructured.NestedFieldNoCopy(tasks[0].(map[string]any), "template", "spec", "nodeSelector")
		if sel, ok := selector.(map[string]any); !ok || len(sel) != 1 || sel["disk"] != nil {
			t.Errorf("stored nodeSelector %v; want disk: null kept (the template is untyped)", selector)
		}
		t.Logf("stored plugins %v, nodeSelector %v", plugins, selector)
		job, err := manifest.DecodeJob([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := job.Spec.Plugins["ssh"]; ok || len(job.Spec.Plugins) != 1 {
			t.Errorf("manifest decodes plugins %v; want svc alone", job.Spec.Plugins)
		}
		// The object's own metadata is the API server's ObjectMeta, not
		// the CRD's schema: a null label value is the empty string there,
		// as in Go.
		jobLabels, _, _ := unstructured.NestedFieldNoCopy(created.Object, "metadata", "labels")
		if got := created.GetLabels(); len(got) != 1 || got["team"] != "" || len(job.Labels) != 1 || job.Labels["team"] != "" {
			t.Errorf("labels: stored %v, decoded %v; want team: \"\" in both", jobLabels, job.Labels)
		}

		// A job template's metadata is typed by the CronJob CRD: a null
		// label is pruned.
		body = strings.Replace(nullTemplateCronJob, "NAME", "labels", 1)
		body = strings.Replace(body, `"jobTemplate":{`, `"jobTemplate":{"metadata":{"labels":{"team":"ml","owner":null}},`, 1)
		created, err = postRaw(ns, nullCronJobs, body)
		if err != nil {
			t.Fatalf("refused: %v", err)
		}
		labels, _, _ := unstructured.NestedStringMap(created.Object, "spec", "jobTemplate", "metadata", "labels")
		cj, err := manifest.DecodeCronJob([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		if len(labels) != 1 || labels["team"] != "ml" || len(cj.Spec.JobTemplate.Labels) != 1 {
			t.Errorf("job template labels: stored %v, decoded %v; want team: ml alone in both", labels, cj.Spec.JobTemplate.Labels)
		}
		t.Logf("stored job labels %#v, job template labels %v", jobLabels, labels)

		body = strings.Replace(nullTemplateJob, "NAME", "null-task", 1)
		body = strings.Replace(body, `{"name":"worker","replicas":1,"template":null}`, "null", 1)
		_, err = postRaw(ns, nullJobs, body)
		if err == nil || !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.tasks[1]") {
			t.Errorf("a null task: %v; want refused as invalid at spec.tasks[1]", err)
		}
		t.Logf("a null task: %v", err)
		var de *manifest.Error
		if _, derr := manifest.DecodeJob([]byte(body)); !errors.As(derr, &de) || len(de.Fields) != 1 || de.Fields[0].Path != "spec.tasks[1]" {
			t.Errorf("manifest.DecodeJob: %v; want the null item spec.tasks[1] refused", derr)
		}
	})

	t.Run("webhooks", func(t *testing.T) {
		ns := newNamespace(t, "null-webhook")
		installWebhooks(t, ns)
		waitAdmissionWebhooks(t, ns)

		t.Run("cronjob", func(t *testing.T) {
			body := strings.Replace(nullTemplateCronJob, "NAME", "nightly", 1)
			cj, err := manifest.DecodeCronJob([]byte(body))
			if err != nil {
				t.Fatal(err)
			}
			vcjob.SetCronJobDefaults(cj)
			if errs := validation.ValidateCronJob(cj); len(errs) > 0 {
				t.Fatalf("validation refuses the cronjob (%v); the test wants one it admits", errs.ToAggregate())
			}
			created, err := postRaw(ns, nullCronJobs, body)
			if err != nil {
				t.Fatalf("refused, validation admits it: %v", err)
			}
			checkStoredWithoutTemplate(t, ns, nullCronJobs, created, body)
		})

		t.Run("job", func(t *testing.T) {
			body := strings.Replace(nullTemplateJob, "NAME", "train", 1)
			job, err := manifest.DecodeJob([]byte(body))
			if err != nil {
				t.Fatal(err)
			}
			vcjob.SetDefaults(job)
			want := validation.ValidateJob(job)
			if len(want) != 1 || want[0].Field != "spec.tasks[1].template.spec.containers" || want[0].Type != field.ErrorTypeRequired {
				t.Fatalf("validation says %v; the test wants the missing containers of the null template alone", want.ToAggregate())
			}
			_, err = postRaw(ns, nullJobs, body)
			checkRefused(t, err, want.ToAggregate().Error())
			if _, gerr := dyn.Resource(nullJobs).Namespace(ns).Get(bg, "train", metav1.GetOptions{}); !apierrors.IsNotFound(gerr) {
				t.Errorf("after the refusal, get job: %v; want not found", gerr)
			}
		})
	})
}

// postRaw creates an object from body, JSON sent as it is (a typed or
// unstructured client would encode it anew), and returns the object the
// API server answers with, or its refusal as the *StatusError the
// answer's Status makes.
func postRaw(ns string, gvr schema.GroupVersionResource, body string) (*unstructured.Unstructured, error) {
	raw, err := kube.Discovery().RESTClient().Post().
		AbsPath("/apis", gvr.Group, gvr.Version, "namespaces", ns, gvr.Resource).
		SetHeader("Content-Type", "application/json").
		SetHeader("Accept", "application/json").
		Body([]byte(body)).
		Do(bg).Raw()
	if err != nil {
		var status metav1.Status
		if json.Unmarshal(raw, &status) == nil && status.Kind == "Status" {
			return nil, &apierrors.StatusError{ErrStatus: status}
		}
		return nil, err
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("the API server's answer: %w", err)
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

// checkStoredWithoutTemplate checks the object the create answered with,
// and the one stored (read back): the second task has no template key,
// the first keeps its own, and the tasks are the ones package manifest
// decodes from the body sent.
func checkStoredWithoutTemplate(t *testing.T, ns string, gvr schema.GroupVersionResource, created *unstructured.Unstructured, body string) {
	t.Helper()
	stored, err := dyn.Resource(gvr).Namespace(ns).Get(bg, created.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path := []string{"spec", "tasks"}
	var decoded []vcjob.TaskSpec
	if gvr == nullCronJobs {
		path = []string{"spec", "jobTemplate", "spec", "tasks"}
		cj, err := manifest.DecodeCronJob([]byte(body))
		if err != nil {
			t.Fatalf("manifest.DecodeCronJob: %v", err)
		}
		decoded = cj.Spec.JobTemplate.Spec.Tasks
	} else {
		job, err := manifest.DecodeJob([]byte(body))
		if err != nil {
			t.Fatalf("manifest.DecodeJob: %v", err)
		}
		decoded = job.Spec.Tasks
	}
	for _, answer := range []struct {
		what string
		u    *unstructured.Unstructured
	}{{"created", created}, {"stored", stored}} {
		what, u := answer.what, answer.u
		tasks, found, err := unstructured.NestedSlice(u.Object, path...)
		if err != nil || !found || len(tasks) != 2 {
			t.Fatalf("%s: %s = %v (found %v, %v); want two tasks", what, strings.Join(path, "."), tasks, found, err)
		}
		if _, ok := tasks[0].(map[string]any)["template"]; !ok {
			t.Errorf("%s: the first task lost its template: %v", what, tasks[0])
		}
		if tmpl, ok := tasks[1].(map[string]any)["template"]; ok {
			t.Errorf("%s: the second task has template %v; want no template key (the null pruned)", what, tmpl)
		}
		got, _ := json.Marshal(tasks[1])
		t.Logf("%s %s %s: second task %s", what, gvr.Resource, u.GetName(), got)

		var asTasks []vcjob.TaskSpec
		for i, task := range tasks {
			var ts vcjob.TaskSpec
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(task.(map[string]any), &ts); err != nil {
				t.Fatalf("%s: task %d: %v", what, i, err)
			}
			asTasks = append(asTasks, ts)
		}
		if !jsonEqual(asTasks, decoded) {
			a, _ := json.Marshal(asTasks)
			b, _ := json.Marshal(decoded)
			t.Errorf("%s: tasks\n%s\ndiffer from what manifest decodes:\n%s", what, a, b)
		}
	}
}

func jsonEqual(a, b any) bool {
	x, errA := json.Marshal(a)
	y, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(x) == string(y)
}

// waitAdmissionWebhooks waits until the API server calls both webhooks
// for ns: a job comes back defaulted (the mutating webhook), and a job
// whose minAvailable exceeds its pods is refused (the validating
// configuration, which holds the CronJob webhook too).
func waitAdmissionWebhooks(t *testing.T, ns string) {
	t.Helper()
	eventually(t, 30*time.Second, "the webhooks in force", func() (bool, string) {
		name := fmt.Sprintf("probe-%d", time.Now().UnixNano()%1e6)
		probe := `{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"Job","metadata":{"name":"` + name + `"},` +
			`"spec":{"tasks":[{"replicas":1,"template":{"spec":{"containers":[{"name":"c","image":"busybox"}]}}}]}}`
		u, err := postRaw(ns, nullJobs, probe)
		if err != nil {
			return false, err.Error()
		}
		_ = dyn.Resource(nullJobs).Namespace(ns).Delete(bg, name, metav1.DeleteOptions{})
		if queue, _, _ := unstructured.NestedString(u.Object, "spec", "queue"); queue != vcjob.DefaultQueue {
			return false, "not defaulted: spec.queue " + queue
		}
		invalid := strings.Replace(strings.Replace(probe, `"spec":{`, `"spec":{"minAvailable":5,`, 1), name, name+"-invalid", 1)
		switch _, err := postRaw(ns, nullJobs, invalid); {
		case err == nil:
			_ = dyn.Resource(nullJobs).Namespace(ns).Delete(bg, name+"-invalid", metav1.DeleteOptions{})
			return false, "a job with minAvailable 5 of 1 pod admitted"
		case !apierrors.IsInvalid(err):
			return false, err.Error()
		}
		return true, ""
	})
}
