package exhaustive

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
)

// gangJob: a master, and a worker with two timeouts, which orphan each
// other's delayed actions.
func gangJob() *vcjob.Job {
	tmpl := corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "main", Image: "busybox"}}}}
	timeout := func(d time.Duration) *metav1.Duration { return &metav1.Duration{Duration: d} }
	return &vcjob.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "gang", Namespace: "ns"},
		Spec: vcjob.JobSpec{MaxRetry: 2, Tasks: []vcjob.TaskSpec{
			{Name: "master", Replicas: 1, Template: tmpl},
			{Name: "worker", Replicas: 1, Template: tmpl, Policies: []vcjob.LifecyclePolicy{
				{Event: vcjob.PodPendingEvent, Action: vcjob.AbortJobAction, Timeout: timeout(5 * time.Minute)},
				{Event: vcjob.PodEvictedEvent, Action: vcjob.RestartJobAction, Timeout: timeout(time.Minute)},
			}},
		}},
	}
}

func play(t *testing.T, x *explorer, events ...event) *world {
	t.Helper()
	w, err := x.initial()
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		if err := w.apply(ev); err != nil {
			t.Fatalf("%s: %v", ev, err)
		}
	}
	if len(w.failures) > 0 {
		t.Fatalf("checks failed: %v", w.failures[0].err)
	}
	return w
}

// TestRebuildKeepsOrphans: an eviction registers RestartJob for the
// worker; the next sync (the master starting) creates its replacement,
// whose PodPending registers AbortJob for the same pod name, which
// orphans RestartJob. The rebuilt world has both, in order,
// the first still orphaned, and fires them as the found world does.
func TestRebuildKeepsOrphans(t *testing.T) {
	x, err := newExplorer(gangJob(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := play(t, x, event{kind: evPodGroup, phase: podgroup.PhaseRunning}, event{kind: evEvict, pod: "worker-0"}, event{kind: evStart, pod: "master-0"})
	s := w.snapshot()
	if len(s.entries) != 2 || !s.entries[0].orphaned || s.entries[0].action != vcjob.RestartJobAction ||
		s.entries[1].orphaned || s.entries[1].action != vcjob.AbortJobAction || !s.entries[1].samePod {
		t.Fatalf("entries %+v", s.entries)
	}
	key := s.key()
	r := x.rebuild(s)
	if got := r.snapshot().key(); got != key {
		t.Fatalf("rebuilt:\n  %s\nwant\n  %s", got, key)
	}
	for i := range x.events(s) {
		if err := x.verify(x.rebuild(s), s, key, uint64(i)); err != nil {
			t.Fatal(err)
		}
	}
	// Time runs out for RestartJob first: the orphan still fires.
	if err := r.apply(event{kind: evAdvance}); err != nil {
		t.Fatal(err)
	}
	if got := r.snapshot(); got.status.retryCount != 1 {
		t.Fatalf("the orphaned RestartJob did not fire: %s", got.key())
	}
}

// TestVerifyCatchesHiddenState: a world whose cache has lost a pod looks
// the same as its state, but the next events show the difference.
func TestVerifyCatchesHiddenState(t *testing.T) {
	x, err := newExplorer(gangJob(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := play(t, x, event{kind: evPodGroup, phase: podgroup.PhaseRunning}, event{kind: evStart, pod: "master-0"})
	s := w.snapshot()
	key := s.key()
	caught := 0
	for i := range x.events(s) {
		hidden := x.rebuild(s)
		_ = hidden.cache.DeletePod(hidden.cluster.Pod("ns", "gang-master-0"))
		if hidden.snapshot().key() != key {
			t.Fatal("the hidden difference shows in the key")
		}
		if err := x.verify(hidden, s, key, uint64(i)); err != nil {
			if !strings.Contains(err.Error(), "leads to different states") {
				t.Fatalf("unexpected error: %v", err)
			}
			caught++
		}
	}
	if caught == 0 {
		t.Fatal("verify never noticed the cache had lost a pod")
	}
}
