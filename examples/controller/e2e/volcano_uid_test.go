//go:build e2e

package e2e

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"

	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
)

// The job of Volcano's jobp case "Reconciles a VCJob recreated with the
// same name after stale cleanup retries" (job_lifecycle_uid.go, U1): a
// svc plugin, PodEvicted restarts the job, 8 pods that ignore SIGTERM
// with a grace period of 1 s. The helper's task maxRetry -1 is left out
// (the CRD refuses it).
const uidJob = `
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: same-name-recreate-job
spec:
  schedulerName: volcano
  minAvailable: 8
  plugins: {svc: []}
  policies:
  - {events: [PodEvicted], action: RestartJob}
  tasks:
  - name: worker
    replicas: 8
    template:
      metadata: {name: worker}
      spec:
        restartPolicy: Never
        terminationGracePeriodSeconds: 1
        containers:
        - name: busybox
          image: "busybox:1.24"
          imagePullPolicy: IfNotPresent
          command: [/bin/sh]
          args: [-c, "trap '' TERM; while true; do sleep 1; done"]
`

const holdFinalizer = "e2e.volcano.sh/pod-name-hold"

// TestVolcanoJobUIDIsolation plays U1 on the API server, three rounds,
// with the Consistently windows shortened (20 s to 4 s, 15 s to 3 s;
// nothing in the controller waits on a timer in them). This API server
// runs no garbage collector: the test deletes what the deleted job owned,
// as Kubernetes' would, and the finalizer keeps one pod of the old job
// being deleted under the name the new job's first pod needs.
func TestVolcanoJobUIDIsolation(t *testing.T) {
	ns := newNamespace(t, "vc-uid")
	sim.setMode(ns, everything)
	startController(t, "ctrl")
	job := createJob(t, ns, uidJob)
	waitPods(t, ns, job.Name, 30*time.Second, "8 running pods", allPods(8, corev1.PodRunning))
	for round := 1; round <= 3; round++ {
		t.Logf("round %d: job UID %s", round, job.UID)
		job = recreateSameName(t, ns, job)
	}
}

// recreateSameName is one round of U1; it returns the new job.
func recreateSameName(t *testing.T, ns string, old *vcjob.Job) *vcjob.Job {
	t.Helper()
	held := fmt.Sprintf("%s-worker-0", old.Name)
	patchPodFinalizers(t, ns, held, []string{holdFinalizer})
	released := false
	release := func() {
		if !released {
			patchPodFinalizers(t, ns, held, nil)
			released = true
		}
	}
	t.Cleanup(release)

	if err := dyn.Resource(clients.JobsResource).Namespace(ns).Delete(bg, old.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	collectOwnedPods(t, ns, old.UID)
	eventually(t, time.Minute, "the old job gone and a pod of it being deleted", func() (bool, string) {
		_, err := dyn.Resource(clients.JobsResource).Namespace(ns).Get(bg, old.Name, metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return false, fmt.Sprint(err)
		}
		for _, p := range jobPods(t, ns, old.Name) {
			if o := metav1.GetControllerOf(&p); o != nil && o.UID == old.UID && p.DeletionTimestamp != nil {
				return true, ""
			}
		}
		return false, describePods(jobPods(t, ns, old.Name))
	})

	job := createJob(t, ns, uidJob)
	if job.UID == old.UID {
		t.Fatalf("the new job has the old UID %s", job.UID)
	}
	consistently(t, 4*time.Second, "the new job neither restarted nor finished while the old pod holds the name", func() (bool, string) {
		j := getJob(t, ns, job.Name)
		p := j.Status.State.Phase
		ok := j.UID == job.UID && j.Status.Version == 0 && j.Status.RetryCount == 0 &&
			p != vcjob.Failed && p != vcjob.Terminating && p != vcjob.Terminated
		return ok, describeStatus(j)
	})

	release()
	var pods []corev1.Pod
	eventually(t, 2*time.Minute, "exactly 8 running pods of the new job", func() (bool, string) {
		pods = ownedPods(t, ns, job)
		return allPods(8, corev1.PodRunning)(pods), describePods(pods)
	})
	consistently(t, 3*time.Second, "the same job with 8 pods", func() (bool, string) {
		j := getJob(t, ns, job.Name)
		n := len(ownedPods(t, ns, job))
		return j.UID == job.UID && n == 8, fmt.Sprintf("uid %s, %d pods", j.UID, n)
	})
	if j := getJob(t, ns, job.Name); j.Status.Version != 0 || j.Status.RetryCount != 0 {
		t.Fatalf("before the eviction: %s, want version 0 and retryCount 0", describeStatus(j))
	}

	victim := pods[1]
	zero := int64(0)
	if err := kube.CoreV1().Pods(ns).Delete(bg, victim.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 2*time.Minute, "the evicted pod back under its name, a restart counted and the Service the new job's", func() (bool, string) {
		p, err := kube.CoreV1().Pods(ns).Get(bg, victim.Name, metav1.GetOptions{})
		if err != nil || p.UID == victim.UID || !metav1.IsControlledBy(p, job) {
			return false, fmt.Sprintf("pod %s: %v", victim.Name, err)
		}
		j := getJob(t, ns, job.Name)
		svc, err := kube.CoreV1().Services(ns).Get(bg, job.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		o := metav1.GetControllerOf(svc)
		return j.Status.Version == 1 && j.Status.RetryCount == 1 && o != nil && o.UID == job.UID,
			fmt.Sprintf("%s; service owner %v", describeStatus(j), o)
	})
	waitPods(t, ns, job.Name, time.Minute, "8 running pods", func(p []corev1.Pod) bool { return allPods(8, corev1.PodRunning)(ownedOnly(p, job)) })
	return getJob(t, ns, job.Name)
}

func patchPodFinalizers(t *testing.T, ns, name string, finalizers []string) {
	t.Helper()
	patch := `{"metadata":{"finalizers":null}}`
	if len(finalizers) > 0 {
		patch = fmt.Sprintf(`{"metadata":{"finalizers":[%q]}}`, finalizers[0])
	}
	if _, err := kube.CoreV1().Pods(ns).Patch(bg, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("finalizers of %s: %v", name, err)
	}
}

// collectOwnedPods plays Kubernetes' garbage collector for a deleted job:
// its pods are deleted (with their grace period; the simulated kubelet
// ends them).
func collectOwnedPods(t *testing.T, ns string, uid types.UID) {
	t.Helper()
	list, err := kube.CoreV1().Pods(ns).List(bg, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list.Items {
		if o := metav1.GetControllerOf(&p); o != nil && o.UID == uid {
			if err := kube.CoreV1().Pods(ns).Delete(bg, p.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Fatal(err)
			}
		}
	}
	pgs, err := dyn.Resource(clients.PodGroupsResource).Namespace(ns).List(bg, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, pg := range pgs.Items {
		for _, o := range pg.GetOwnerReferences() {
			if o.UID == uid {
				_ = dyn.Resource(clients.PodGroupsResource).Namespace(ns).Delete(bg, pg.GetName(), metav1.DeleteOptions{})
			}
		}
	}
}

func ownedPods(t *testing.T, ns string, job *vcjob.Job) []corev1.Pod {
	return ownedOnly(jobPods(t, ns, job.Name), job)
}

func ownedOnly(pods []corev1.Pod, job *vcjob.Job) []corev1.Pod {
	var out []corev1.Pod
	for _, p := range pods {
		if metav1.IsControlledBy(&p, job) {
			out = append(out, p)
		}
	}
	return out
}

// consistently checks cond every 200 ms for d; it must hold each time.
func consistently(t *testing.T, d time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if ok, state := cond(); !ok {
			t.Fatalf("%s: broken: %s", what, state)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
