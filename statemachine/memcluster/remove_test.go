package memcluster

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
)

func TestRemoveJob(t *testing.T) {
	c := New(metav1.Now())
	job := &vcjob.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "j", UID: "u1"}}
	other := &vcjob.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "k", UID: "u2"}}
	c.PutJob(job)
	c.PutJob(other)
	pod := func(name, owner string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Annotations: map[string]string{vcjob.JobNameKey: owner}}}
	}
	c.PutPod(pod("j-t-0", "j"))
	c.PutPod(pod("j-t-1", "j"))
	c.PutPod(pod("k-t-0", "k"))
	c.SetPodGroupPhase("ns", podgroup.Name(job), podgroup.PhaseRunning)
	c.SetPodGroupPhase("ns", podgroup.Name(other), podgroup.PhaseRunning)
	c.Watch = true

	got := c.RemoveJob("ns", "j")
	if got == nil || got.UID != "u1" {
		t.Fatalf("removed %v", got)
	}
	if c.Job("ns", "j") != nil || len(c.Pods("ns", "j")) != 0 || c.PodGroup(job).Exists {
		t.Fatal("the job, its pods or its PodGroup remain")
	}
	if c.Job("ns", "k") == nil || len(c.Pods("ns", "k")) != 1 || !c.PodGroup(other).Exists {
		t.Fatal("another job's objects were removed")
	}
	chs := c.Drain()
	var kinds []string
	for _, ch := range chs {
		switch {
		case ch.OldPod != nil:
			kinds = append(kinds, "pod "+ch.OldPod.Name)
		case ch.OldJob != nil:
			kinds = append(kinds, "job "+ch.OldJob.Name)
		default:
			kinds = append(kinds, "podgroup "+ch.PodGroupJob)
		}
		if ch.Type != Deleted {
			t.Errorf("change %+v is not a deletion", ch)
		}
	}
	want := []string{"pod j-t-0", "pod j-t-1", "podgroup j", "job j"}
	if len(kinds) != len(want) {
		t.Fatalf("changes %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("changes %v, want %v", kinds, want)
		}
	}
	if c.RemoveJob("ns", "j") != nil || len(c.Drain()) != 0 {
		t.Fatal("removing a missing job did something")
	}
}

// A pod a finalizer holds outlives its job, being deleted, and outlives
// FinishTerminating until the finalizer goes.
func TestRemoveJobLeavesFinalizedPods(t *testing.T) {
	c := New(metav1.Now())
	c.PutJob(&vcjob.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "j", UID: "u1"}})
	held := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "j-t-0", Finalizers: []string{"hold"},
		Annotations: map[string]string{vcjob.JobNameKey: "j"}}}
	c.PutPod(held)
	c.PutPod(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "j-t-1", Annotations: map[string]string{vcjob.JobNameKey: "j"}}})
	c.RemoveJob("ns", "j")
	pods := c.Pods("ns", "j")
	if len(pods) != 1 || pods[0].Name != "j-t-0" || pods[0].DeletionTimestamp == nil {
		t.Fatalf("pods %v, want only j-t-0, being deleted", pods)
	}
	if gone := c.FinishTerminating(); len(gone) != 0 {
		t.Fatalf("FinishTerminating removed %v, held by a finalizer", gone)
	}
	p := c.Pod("ns", "j-t-0")
	p.Finalizers = nil
	c.PutPod(p)
	if gone := c.FinishTerminating(); len(gone) != 1 {
		t.Fatalf("FinishTerminating removed %v once the finalizer went", gone)
	}
}
