//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/internal/admissioncases"

	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
)

// TestVolcanoE2EAdmission sends the admission cases of Volcano's own
// e2e suites (testdata/volcano-e2e-admission.yaml, which validation's
// test of the same name checks on the library) to the real API server
// with the controller's webhooks in force: the Job CRD's schema, then
// /jobs/mutate and /jobs/validate. Each gets Volcano's verdict, a
// refusal names the case's field, an admitted job is stored with the
// fields the case wants, and an update is sent as Volcano's test sends it
// (the stored job, edited, written back).
func TestVolcanoE2EAdmission(t *testing.T) {
	cases, err := admissioncases.Load("../../../testdata/volcano-e2e-admission.yaml")
	if err != nil {
		t.Fatal(err)
	}
	installWebhooksFor(t, &metav1.LabelSelector{MatchLabels: map[string]string{volcanoSuiteLabel: "volcano"}})
	ns := newVolcanoNamespace(t, "vc-admission")
	eventually(t, 30*time.Second, "the mutating webhook in force", func() (bool, string) {
		name := fmt.Sprintf("probe-%d", time.Now().UnixNano()%1e6)
		u, err := createUnstructured(ns, clients.JobsResource.Resource, strings.Replace(webhookJob, "NAME", name, 1))
		if err != nil {
			return false, err.Error()
		}
		_ = dyn.Resource(clients.JobsResource).Namespace(ns).Delete(bg, name, metav1.DeleteOptions{})
		queue, _, _ := unstructured.NestedString(u.Object, "spec", "queue")
		return queue == vcjob.DefaultQueue, "spec.queue " + queue
	})
	for _, c := range cases {
		t.Run(c.Name(), func(t *testing.T) {
			var obj map[string]any
			if err := json.Unmarshal(c.Job, &obj); err != nil {
				t.Fatal(err)
			}
			u := &unstructured.Unstructured{Object: obj}
			name := u.GetName()
			// Several cases share a job name: each starts from none.
			_ = dyn.Resource(clients.JobsResource).Namespace(ns).Delete(bg, name, metav1.DeleteOptions{})
			eventually(t, 10*time.Second, "no job "+name, func() (bool, string) {
				_, err := dyn.Resource(clients.JobsResource).Namespace(ns).Get(bg, name, metav1.GetOptions{})
				return apierrors.IsNotFound(err), fmt.Sprint(err)
			})
			created, err := dyn.Resource(clients.JobsResource).Namespace(ns).Create(bg, u, metav1.CreateOptions{})
			if c.Update != nil {
				if err != nil {
					t.Fatalf("the job to update is refused: %v", err)
				}
				err = updateAsVolcano(ns, name, c.Update)
			}
			if c.Verdict == admissioncases.Refused {
				switch {
				case err == nil:
					t.Fatal("admitted; Volcano refuses it")
				case !apierrors.IsInvalid(err) && !apierrors.IsForbidden(err) && !apierrors.IsBadRequest(err):
					t.Fatalf("refused with %v, not as admission refuses", err)
				case !strings.Contains(err.Error(), c.Field):
					t.Errorf("the refusal names no %s: %v", c.Field, err)
				}
				t.Logf("refused: %v", err)
				return
			}
			if err != nil {
				t.Fatalf("refused, Volcano admits it: %v", err)
			}
			stored := &vcjob.Job{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(created.Object, stored); err != nil {
				t.Fatal(err)
			}
			for path, want := range c.Want {
				if got, err := admissioncases.Get(stored, path); err != nil || got != want {
					t.Errorf("stored %s = %q (%v), want %q", path, got, err, want)
				}
			}
		})
	}
}

// updateAsVolcano reads the job, makes the edits and writes it back,
// again on a conflict with the controller's status writes.
func updateAsVolcano(ns, name string, edits []string) error {
	for range 20 {
		u, err := dyn.Resource(clients.JobsResource).Namespace(ns).Get(bg, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		job := &vcjob.Job{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, job); err != nil {
			return err
		}
		if err := admissioncases.Apply(job, edits); err != nil {
			return err
		}
		spec, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&job.Spec)
		if err != nil {
			return err
		}
		u.Object["spec"] = spec
		_, err = dyn.Resource(clients.JobsResource).Namespace(ns).Update(bg, u, metav1.UpdateOptions{})
		if !apierrors.IsConflict(err) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("update of %s: conflicts", name)
}
