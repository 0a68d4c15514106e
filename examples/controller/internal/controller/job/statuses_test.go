package job

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/request"

	"github.com/vcjob/vcjob/examples/controller/internal/testclock"
	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
)

// coalescingFixture is a fixture whose controller holds status writes back
// until its worker's queue pass ends, with a log of status writes and pod
// creates in the order the API server saw them; calling it with reset
// true empties it (after the test's own setup).
func coalescingFixture(t *testing.T, job *vcjob.Job) (*fixture, func(reset bool) []string) {
	return coalescingFixtureWith(t, job, nil)
}

// coalescingFixtureWith is coalescingFixture with the Config changed by
// configure too.
func coalescingFixtureWith(t *testing.T, job *vcjob.Job, configure func(*Config)) (*fixture, func(reset bool) []string) {
	f := newFixtureWith(t, job, func(c *Config) {
		c.CoalesceStatus = true
		if configure != nil {
			configure(c)
		}
	})
	var log []string
	f.vc.PrependReactor("update", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
		u := a.(k8stesting.UpdateAction).GetObject().(*vcjob.Job)
		f.mu.Lock()
		log = append(log, fmt.Sprintf("status v%d %s running=%d", u.Status.Version, u.Status.State.Phase, u.Status.Running))
		f.mu.Unlock()
		return false, nil, nil // on to the resourceVersion check
	})
	f.kube.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		p := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
		f.mu.Lock()
		log = append(log, "create "+p.Name)
		f.mu.Unlock()
		return false, nil, nil
	})
	// The log's reactors run first and pass the action on: the status
	// write to checkResourceVersions' reactor, the pod to the tracker.
	return f, func(reset bool) []string {
		f.mu.Lock()
		defer f.mu.Unlock()
		out := append([]string(nil), log...)
		if reset {
			log = nil
		}
		return out
	}
}

// Every request of a Completed job is a kill that bumps status.version; a
// pass over the queue sends one status write, carrying the version all
// the kills added up to.
func TestFinishedJobKillsWriteOnce(t *testing.T) {
	job := newJob(t, vcjob.Completed)
	job.Status.Version = 4
	f, _ := coalescingFixture(t, job)
	p0 := f.putPod(job, 0, corev1.PodSucceeded)
	p1 := f.putPod(job, 1, corev1.PodSucceeded)
	for _, p := range []*corev1.Pod{p0, p1} {
		for _, ev := range []vcjob.Event{vcjob.PodPendingEvent, vcjob.OutOfSyncEvent, vcjob.TaskCompletedEvent} {
			r := demoRequest(ev)
			r.PodName, r.PodUID, r.TaskName = p.Name, p.UID, "worker"
			f.c.enqueue(r)
		}
	}
	f.drain()

	w := f.writes()
	if len(w) != 1 {
		t.Fatalf("%d status writes, want 1 for the pass", len(w))
	}
	if v := w[0].Status.Version; v != 10 {
		t.Errorf("written version %d, want 10 (4 and one per kill, as six writes would have left it)", v)
	}
	if got := testutil.ToFloat64(f.c.metrics.StatusWritesDeferred); got != 6 {
		t.Errorf("held back = %v, want 6", got)
	}
	if got := f.storedJob().Status.Version; got != 10 {
		t.Errorf("stored version %d, want 10", got)
	}
	if f.c.shards[0].statuses.Held("ns/demo") {
		t.Error("a status is still held back")
	}
}

// The informer may hand the cache the API server's job (the echo of an
// earlier write, or a change of its metadata) while a status is held back:
// the next step still starts from the held-back status.
func TestHeldBackStatusSurvivesInformerUpdate(t *testing.T) {
	f, s := heldBackKill(t)
	if len(f.writes()) != 0 {
		t.Fatal("a finished job's kill was written at once")
	}
	// The informer delivers a newer job: a label was added, the status is
	// the API server's (version 0).
	server := f.storedJob()
	server.Labels = map[string]string{"team": "a"}
	server.ResourceVersion = "2"
	if err := f.vc.Tracker().Update(clients.JobsResource, server.DeepCopy(), "ns"); err != nil {
		t.Fatal(err)
	}
	if err := f.c.jobs.Update(server); err != nil {
		t.Fatal(err)
	}
	s.handle(context.Background(), item{Kind: kindRequest, Req: demoRequest(vcjob.OutOfSyncEvent)})
	if err := s.statuses.Flush(context.Background(), "ns/demo"); err != nil {
		t.Fatal(err)
	}
	w := f.writes()
	if len(w) != 1 || w[0].Status.Version != 2 {
		t.Fatalf("writes %v, want one with version 2 (two kills)", versions(w))
	}
	if got := f.storedJob(); got.Labels["team"] != "a" || got.Status.Version != 2 {
		t.Errorf("stored job labels %v version %d, want the new label and version 2", got.Labels, got.Status.Version)
	}
}

// runningJob is a Running job of two Running pods on a coalescing
// controller, synced once (its Running condition written), with the log
// emptied.
type runningJob struct {
	f      *fixture
	log    func(reset bool) []string
	s      *shard
	p0, p1 *corev1.Pod
}

func newRunningJob(t *testing.T) *runningJob {
	t.Helper()
	job := newJob(t, vcjob.Running)
	r := &runningJob{}
	r.f, r.log = coalescingFixture(t, job)
	r.f.putPodGroup(job, podgroup.PhaseRunning)
	r.p0 = r.f.putPod(job, 0, corev1.PodRunning)
	r.p1 = r.f.putPod(job, 1, corev1.PodRunning)
	r.s = r.f.c.shards[0]
	r.step(demoRequest(vcjob.OutOfSyncEvent)) // the Running condition: written at once
	r.log(true)
	return r
}

func (r *runningJob) step(req request.Request) {
	r.s.handle(context.Background(), item{Kind: kindRequest, Req: req})
}

// succeed shows p Succeeded to the cache, as its informer event would,
// and syncs the job.
func (r *runningJob) succeed(p *corev1.Pod) *corev1.Pod {
	done := p.DeepCopy()
	done.Status.Phase, done.ResourceVersion = corev1.PodSucceeded, "2"
	r.f.c.jobs.OnPodUpdate(p, done)
	r.step(demoRequest(vcjob.OutOfSyncEvent))
	return done
}

// A status that only moves counts is held back, and goes out before a pod
// is created for the job: no pod reaches the API server ahead of the
// status its step started from.
func TestHeldBackStatusGoesOutBeforePods(t *testing.T) {
	r := newRunningJob(t)
	done := r.succeed(r.p1) // counts only: held back
	if got := r.log(false); len(got) != 0 {
		t.Fatalf("API calls %v, want the counts held back", got)
	}
	// Pod 1 is gone: the next sync creates it again.
	if err := r.f.kube.CoreV1().Pods("ns").Delete(t.Context(), r.p1.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.f.c.jobs.OnPodDelete(done)
	r.step(demoRequest(vcjob.OutOfSyncEvent))
	got := r.log(false)
	// The held-back counts (one Running, one Succeeded), the pod, then the
	// new pod's Pending count, which makes the job Pending: at once.
	want := []string{"status v0 Running running=1", "create demo-worker-1", "status v0 Pending running=1"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("API calls %v, want %v", got, want)
	}
}

// A kill whose pod deletes first send the held-back counts writes its own
// status on top of them, without a conflict with that write.
func TestKillAfterHeldBackStatus(t *testing.T) {
	r := newRunningJob(t)
	r.succeed(r.p1) // counts: held back
	restart := demoRequest(vcjob.CommandIssuedEvent)
	restart.Action = vcjob.RestartJobAction
	r.step(restart)
	if got := testutil.ToFloat64(r.f.c.metrics.RequestErrors); got != 0 {
		t.Fatalf("failed steps = %v, want 0", got)
	}
	got := r.log(false)
	want := []string{"status v0 Running running=1", "status v1 Restarting running=0"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("API calls %v, want %v", got, want)
	}
}

// A status written at once (a change of phase) carries what was held back
// and replaces it: the flush that follows has nothing to send.
func TestPhaseChangeReplacesHeldBackStatus(t *testing.T) {
	r := newRunningJob(t)
	r.succeed(r.p1) // counts only: held back
	if !r.s.statuses.Held("ns/demo") {
		t.Fatal("no status held back, want one")
	}
	r.succeed(r.p0) // Completed: written at once
	if r.s.statuses.Held("ns/demo") {
		t.Error("a status is held back after the phase change, want none")
	}
	r.f.drain()
	if got := r.log(false); len(got) != 1 || got[0] != "status v0 Completed running=0" {
		t.Errorf("API calls %v, want only the Completed status", got)
	}
}

// A flush that fails stays held back and is retried with the queue's rate
// limiting; meanwhile the steps go on from it.
func TestHeldBackStatusRetried(t *testing.T) {
	job := newJob(t, vcjob.Completed)
	f, _ := coalescingFixture(t, job)
	f.putPod(job, 0, corev1.PodSucceeded)
	var fails atomic.Int32
	f.vc.PrependReactor("update", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if fails.Add(1) <= 2 {
			return true, nil, apierrors.NewInternalError(errors.New("etcd is down"))
		}
		return false, nil, nil
	})
	f.c.enqueue(demoRequest(vcjob.OutOfSyncEvent))
	f.drain()
	w := f.writes()
	if len(w) != 1 || w[0].Status.Version != 1 {
		t.Fatalf("writes %v, want one with version 1 after two failures", versions(w))
	}
	if got := testutil.ToFloat64(f.c.metrics.RequestErrors); got != 0 {
		t.Errorf("failed steps = %v, want 0: the kill itself did not fail", got)
	}
}

// With a status hold, the flush waits for it on the controller's clock,
// not for a pass over the queue.
func TestHeldBackStatusWaitsForTheHold(t *testing.T) {
	job := newJob(t, vcjob.Completed)
	f, _ := coalescingFixtureWith(t, job, func(c *Config) { c.StatusHold = 500 * time.Millisecond })
	f.putPod(job, 0, corev1.PodSucceeded)
	s := f.c.shards[0]
	start := f.clock.Now()
	s.handle(context.Background(), item{Kind: kindRequest, Req: demoRequest(vcjob.OutOfSyncEvent)})
	if !s.statuses.Held("ns/demo") || s.queue.Len() != 0 {
		t.Fatalf("held %v, %d items queued; want the status held and its flush waiting", s.statuses.Held("ns/demo"), s.queue.Len())
	}
	testclock.StepUntil(t, f.clock, 50*time.Millisecond, func() bool { return s.queue.Len() > 0 })
	// On the fake clock: not before the hold, and soon after it (on the
	// real clock it would come only after half a second of real time,
	// thousands of steps).
	if waited := f.clock.Since(start); waited < 500*time.Millisecond || waited > 5*time.Second {
		t.Errorf("the flush came after %v on the fake clock, want the 500ms hold", waited)
	}
	f.drain()
	if w := f.writes(); len(w) != 1 || w[0].Status.Version != 1 {
		t.Fatalf("writes %v, want the held-back one", versions(w))
	}
}

// On shutdown every held-back status is written.
func TestHeldBackStatusWrittenOnShutdown(t *testing.T) {
	f, s := heldBackKill(t)
	s.queue.ShutDown()
	s.run(t.Context()) // returns at once: the queue is shut down
	if w := f.writes(); len(w) != 1 || w[0].Status.Version != 1 {
		t.Fatalf("writes %v, want the held-back one", versions(w))
	}
}

// A deleted job's held-back status is dropped, not written.
func TestHeldBackStatusOfDeletedJobDropped(t *testing.T) {
	f, s := heldBackKill(t)
	s.handle(context.Background(), item{Kind: kindForget, Req: demoRequest("")})
	f.drain()
	if w := f.writes(); len(w) != 0 {
		t.Errorf("writes %v, want none for a deleted job", versions(w))
	}
}

// heldBackKill is a Completed job with one Succeeded pod whose worker has
// run one kill: its status (version 1) held back, not written.
func heldBackKill(t *testing.T) (*fixture, *shard) {
	t.Helper()
	job := newJob(t, vcjob.Completed)
	f, _ := coalescingFixture(t, job)
	f.putPod(job, 0, corev1.PodSucceeded)
	s := f.c.shards[0]
	s.handle(context.Background(), item{Kind: kindRequest, Req: demoRequest(vcjob.OutOfSyncEvent)})
	if !s.statuses.Held("ns/demo") {
		t.Fatal("no status held back after a finished job's kill, want one")
	}
	return f, s
}

func versions(jobs []*vcjob.Job) []int32 {
	out := make([]int32, len(jobs))
	for i, j := range jobs {
		out[i] = j.Status.Version
	}
	return out
}
