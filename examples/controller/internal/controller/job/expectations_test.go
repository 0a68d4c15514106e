package job

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	k8stesting "k8s.io/client-go/testing"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/statemachine"
)

// A pod the controller created is not sent again (it would be answered
// AlreadyExists, also to a step whose snapshot predates the pod's add
// event); after its delete event, or after the trust runs out, it is.
func TestCreatePodNotSentTwiceBeforeItsEvent(t *testing.T) {
	job := newJob(t, vcjob.Pending)
	f := newFixture(t, job)
	pod := statemachine.RenderPod(job, &job.Spec.Tasks[0], 0)
	creates := func() int { return countActions(f.kube.Actions(), "create", "pods") }
	for range 2 {
		if err := f.c.applier.CreatePod(context.Background(), pod.DeepCopy()); err != nil {
			t.Fatal(err)
		}
	}
	if n := creates(); n != 1 {
		t.Fatalf("%d creates before the informer showed the pod, want 1", n)
	}
	f.clock.Step(11 * time.Second) // trusted no longer
	if err := f.c.applier.CreatePod(context.Background(), pod.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	if n := creates(); n != 2 {
		t.Errorf("%d creates after the trust ran out, want 2 (AlreadyExists is success)", n)
	}
	f.c.intake.Pods().OnAdd(pod, false) // its add event: a step may still hold an older snapshot
	if err := f.c.applier.CreatePod(context.Background(), pod.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	if n := creates(); n != 2 {
		t.Errorf("%d creates after the pod's add event, want still 2", n)
	}
	f.c.intake.Pods().OnDelete(pod) // gone: the next create is a new pod's
	if err := f.c.applier.CreatePod(context.Background(), pod.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	if n := creates(); n != 3 {
		t.Errorf("%d creates after the pod's delete event, want 3", n)
	}
	if got := testutil.ToFloat64(f.c.metrics.PodsCreated); got != 1 {
		t.Errorf("pods created = %v, want 1", got)
	}
}

// Every kill of a finished job deletes its PodGroup; one the controller
// deleted is not deleted again while the lister still holds it.
func TestDeletePodGroupOnceBeforeItsEvent(t *testing.T) {
	job := newJob(t, vcjob.Completed)
	f := newFixture(t, job)
	f.putPodGroup(job, podgroup.PhaseRunning)
	deletes := func() int { return countActions(f.vc.Actions(), "delete", "podgroups") }
	deleted, err := f.c.applier.DeletePodGroup(context.Background(), job)
	if err != nil || !deleted {
		t.Fatalf("first delete: %v, %v", deleted, err)
	}
	deleted, err = f.c.applier.DeletePodGroup(context.Background(), job)
	if err != nil || deleted {
		t.Fatalf("second delete: %v, %v; want not deleted, no error", deleted, err)
	}
	if n := deletes(); n != 1 {
		t.Errorf("%d deletes, want 1", n)
	}
	obj, ok, _ := f.c.pgStore.GetByKey("ns/" + podgroup.Name(job))
	if !ok {
		t.Fatal("PodGroup not in the store")
	}
	f.c.intake.PodGroups().OnDelete(obj)
	if f.c.expectations.PodGroupDeletionExpected("pg-uid") {
		t.Error("the deleted PodGroup is still remembered after its delete event")
	}
}

// A job whose created pods the informer has not shown yet is awaited: a
// step now would judge it without them, and a kill would leave them alive.
func TestJobAwaitsItsCreatedPods(t *testing.T) {
	job := newJob(t, vcjob.Pending)
	f := newFixture(t, job)
	r := f.c.expectations
	p0 := statemachine.RenderPod(job, &job.Spec.Tasks[0], 0)
	p1 := statemachine.RenderPod(job, &job.Spec.Tasks[0], 1)
	for _, p := range []*corev1.Pod{p0, p1} {
		if err := f.c.applier.CreatePod(context.Background(), p.DeepCopy()); err != nil {
			t.Fatal(err)
		}
	}
	if r.Satisfied("ns/demo") {
		t.Fatal("not awaiting two created pods")
	}
	f.c.intake.Pods().OnAdd(p0, false)
	if r.Satisfied("ns/demo") {
		t.Fatal("not awaiting the pod still unseen")
	}
	f.c.intake.Pods().OnAdd(p1, false)
	if !r.Satisfied("ns/demo") {
		t.Error("awaiting after both pods were shown")
	}
	// A pod never shown is awaited for ttl at most.
	p2 := p0.DeepCopy()
	p2.Name = "demo-worker-2"
	if err := f.c.applier.CreatePod(context.Background(), p2); err != nil {
		t.Fatal(err)
	}
	if r.Satisfied("ns/demo") {
		t.Fatal("not awaiting a new created pod")
	}
	f.clock.Step(11 * time.Second)
	if !r.Satisfied("ns/demo") {
		t.Error("still awaiting a pod past the trust's end")
	}
	// The shard puts a request of an awaited job back instead of running it.
	p3 := p0.DeepCopy()
	p3.Name = "demo-worker-3"
	if err := f.c.applier.CreatePod(context.Background(), p3); err != nil {
		t.Fatal(err)
	}
	s := f.c.shards[0]
	s.handle(context.Background(), item{Kind: kindRequest, Req: demoRequest(vcjob.OutOfSyncEvent)})
	if got := total(f.c.metrics.Requests); got != 0 {
		t.Errorf("%v requests processed while the job awaits its pods, want 0", got)
	}
}

// The add event of the last awaited pod wakes the job: its waiting
// requests run, in order.
func TestAwaitedPodsAddEventWakesTheJob(t *testing.T) {
	job := newJob(t, vcjob.Pending)
	f := newFixture(t, job)
	p0 := statemachine.RenderPod(job, &job.Spec.Tasks[0], 0)
	if err := f.c.applier.CreatePod(context.Background(), p0.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	s := f.c.shards[0]
	first, second := demoRequest(vcjob.OutOfSyncEvent), demoRequest(vcjob.PodPendingEvent)
	second.PodName = p0.Name
	s.handle(context.Background(), item{Kind: kindRequest, Req: first})
	s.handle(context.Background(), item{Kind: kindRequest, Req: second})
	if got := len(s.waiting["ns/demo"]); got != 2 {
		t.Fatalf("%d requests waiting, want 2", got)
	}
	f.c.intake.Pods().OnAdd(p0, false) // the last awaited pod: a wake item for the job, then the pod's own request
	if n := s.queue.Len(); n != 2 {
		t.Fatalf("queue holds %d items, want the wake and the pod's request", n)
	}
	it, _ := s.queue.Get()
	if it.Kind != kindWake {
		t.Fatalf("queued %+v, want a wake", it)
	}
	s.handle(context.Background(), it)
	s.queue.Done(it)
	if got := total(f.c.metrics.Requests); got != 2 {
		t.Errorf("%v requests processed after the wake, want 2", got)
	}
	if _, ok := s.waiting["ns/demo"]; ok {
		t.Error("requests still waiting after the wake")
	}
}

// countActions counts the fake client's requests of verb on resource.
func countActions(actions []k8stesting.Action, verb, resource string) int {
	n := 0
	for _, a := range actions {
		if a.GetVerb() == verb && a.GetResource().Resource == resource {
			n++
		}
	}
	return n
}

// total adds a counter up over all its labels.
func total(c prometheus.Collector) float64 {
	ch := make(chan prometheus.Metric, 64)
	go func() { c.Collect(ch); close(ch) }()
	var sum float64
	for m := range ch {
		var d dto.Metric
		if err := m.Write(&d); err == nil {
			sum += d.GetCounter().GetValue()
		}
	}
	return sum
}
