package jobinfo_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/jobinfo"
)

func leasePod(name string, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{vcjob.TaskSpecKey: "w"}},
		Status:     corev1.PodStatus{Phase: phase},
	}
}

// TestCopiesOfALeaseOutliveIt: a clone or a lease made from a leased copy
// may be used after that copy's Release, so the original must never again
// change in place what they share.
func TestCopiesOfALeaseOutliveIt(t *testing.T) {
	job := &vcjob.Job{ObjectMeta: metav1.ObjectMeta{Name: "j"}, Spec: vcjob.JobSpec{Tasks: []vcjob.TaskSpec{{Name: "w", Replicas: 2}}}}
	for _, copyOf := range []struct {
		name string
		take func(*jobinfo.Info) *jobinfo.Info
	}{
		{"clone", (*jobinfo.Info).Clone},
		{"lease", (*jobinfo.Info).Lease},
	} {
		t.Run(copyOf.name, func(t *testing.T) {
			owner, err := jobinfo.New(job, leasePod("j-w-0", corev1.PodPending))
			if err != nil {
				t.Fatal(err)
			}
			// The owner makes its own nodes, then leases them out.
			owner.Release()
			owner.Lease().Release()
			if err := owner.AddPod(leasePod("j-w-1", corev1.PodPending)); err != nil {
				t.Fatal(err)
			}
			lease := owner.Lease()
			kept := copyOf.take(lease)
			lease.Release()
			for _, phase := range []corev1.PodPhase{corev1.PodRunning, corev1.PodSucceeded} {
				if err := owner.AddPod(leasePod("j-w-1", phase)); err != nil {
					t.Fatal(err)
				}
				if err := owner.AddPod(leasePod("j-w-2", phase)); err != nil {
					t.Fatal(err)
				}
			}
			if got := kept.Pod("w", "j-w-1").Status.Phase; got != corev1.PodPending {
				t.Errorf("the %s of a released lease sees the owner's change: j-w-1 is %s", copyOf.name, got)
			}
			if kept.PodCount() != 2 || kept.Pod("w", "j-w-2") != nil || kept.Task("w").Counts().Phases.Pending != 2 {
				t.Errorf("the %s of a released lease moved: %d pods, counts %+v", copyOf.name, kept.PodCount(), kept.Task("w").Counts())
			}
		})
	}
}

// TestACopyThatLeasesStartsAboveWhatItShares: a copy that leases in turn
// becomes an owner; it must not take the nodes it shares with the JobInfo
// it was copied from for its own.
func TestACopyThatLeasesStartsAboveWhatItShares(t *testing.T) {
	job := &vcjob.Job{ObjectMeta: metav1.ObjectMeta{Name: "j"}, Spec: vcjob.JobSpec{Tasks: []vcjob.TaskSpec{{Name: "w", Replicas: 3}}}}
	owner, err := jobinfo.New(job)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ { // many generations in the owner
		owner.Lease().Release()
		if err := owner.AddPod(leasePod("j-w-0", corev1.PodPending)); err != nil {
			t.Fatal(err)
		}
	}
	copied := owner.Clone()
	copied.Lease().Release() // the copy now owns what it makes
	if err := copied.AddPod(leasePod("j-w-0", corev1.PodFailed)); err != nil {
		t.Fatal(err)
	}
	if got := owner.Pod("w", "j-w-0").Status.Phase; got != corev1.PodPending {
		t.Errorf("the copy's change reached the owner: j-w-0 is %s", got)
	}
	if got := owner.Task("w").Counts().Phases; got.Pending != 1 || got.Failed != 0 {
		t.Errorf("the owner's counts moved with the copy's change: %+v", got)
	}
}

// TestJobInfoRefusesBadPods: a nil pod, or one that names no task, is an
// error naming the pod, never a panic; deleting a nil pod does nothing.
func TestJobInfoRefusesBadPods(t *testing.T) {
	if _, err := jobinfo.New(nil, leasePod("a", corev1.PodPending), nil); err == nil || err.Error() != "pods[1]: nil pod" {
		t.Errorf("a nil pod: %v", err)
	}
	ji, err := jobinfo.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	noTask := leasePod("b", corev1.PodPending)
	noTask.Annotations[vcjob.TaskSpecKey] = ""
	if err := ji.AddPod(noTask); err == nil {
		t.Error("a pod with an empty task-spec annotation was filed")
	}
	ji.DeletePod(nil)
	if ji.PodCount() != 0 {
		t.Errorf("%d pods", ji.PodCount())
	}
}

// TestPodNameIndexBounds: an index beyond int32 is no index at all.
func TestPodNameIndexBounds(t *testing.T) {
	for name, want := range map[string]bool{"j-w-2147483647": true, "j-w-2147483648": false, "j-w-4294967296": false} {
		if _, ok := vcjob.PodNameIndex(name, "j", "w"); ok != want {
			t.Errorf("PodNameIndex(%q): %v, want %v", name, ok, want)
		}
	}
}
