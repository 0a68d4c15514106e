package job

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/util/workqueue"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"

	"github.com/vcjob/vcjob/examples/controller/internal/testjob"
	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
	vcfake "github.com/vcjob/vcjob/examples/controller/pkg/clients/fake"
)

func newJob(t *testing.T, phase vcjob.JobPhase) *vcjob.Job {
	t.Helper()
	return testjob.New(t, phase)
}

// fixture is a controller on client-go's fake clientset and a fake typed
// Volcano client on client-go's object tracker. Its informers are never started: tests put what the informers
// would have delivered into the cache and the PodGroup store themselves,
// and drive the workers' queues by hand.
type fixture struct {
	t     *testing.T
	kube  *fake.Clientset
	vc    *vcfake.Volcano
	c     *Controller
	clock *testingclock.FakeClock

	mu           sync.Mutex
	statusWrites []*vcjob.Job
}

func newFixture(t *testing.T, job *vcjob.Job) *fixture {
	t.Helper()
	return newFixtureWith(t, job, nil)
}

// newFixtureWith is newFixture with the controller's Config changed by
// configure first. The controller runs on a fake clock; its queue's rate
// limiter counts requeues but waits for none, so a requeued item is back
// at once.
func newFixtureWith(t *testing.T, job *vcjob.Job, configure func(*Config)) *fixture {
	t.Helper()
	f := &fixture{t: t, kube: fake.NewClientset(), clock: testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}
	f.vc = vcfake.NewVolcano()
	noWait := func() workqueue.TypedRateLimiter[item] {
		return workqueue.NewTypedItemExponentialFailureRateLimiter[item](0, 0)
	}
	cfg := Config{Kube: f.kube, Volcano: f.vc, Workers: 1, MaxRequeue: 2, RateLimiter: noWait, Clock: f.clock}
	if configure != nil {
		configure(&cfg)
	}
	c, err := New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.c = c
	if job != nil {
		if err := f.vc.Tracker().Add(job.DeepCopy()); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.jobs.OnJobAdd(job); err != nil {
			t.Fatal(err)
		}
	}
	f.checkResourceVersions()
	return f
}

// checkResourceVersions makes the fake's job status writes behave like the
// API server's: a write carrying another resourceVersion than the stored
// one is a Conflict, and each write moves the version on.
func (f *fixture) checkResourceVersions() {
	f.vc.PrependReactor("update", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
		ua := a.(k8stesting.UpdateAction)
		if ua.GetSubresource() != "status" {
			return false, nil, nil
		}
		u := ua.GetObject().(*vcjob.Job).DeepCopy()
		cur, err := f.vc.Tracker().Get(clients.JobsResource, u.GetNamespace(), u.GetName())
		if err != nil {
			return true, nil, err
		}
		rv := cur.(metav1.Object).GetResourceVersion()
		if u.GetResourceVersion() != rv {
			return true, nil, apierrors.NewConflict(clients.JobsResource.GroupResource(), u.GetName(), errors.New("the object has been modified"))
		}
		n, _ := strconv.Atoi(rv)
		u.SetResourceVersion(strconv.Itoa(n + 1))
		if err := f.vc.Tracker().Update(clients.JobsResource, u, u.GetNamespace()); err != nil {
			return true, nil, err
		}
		f.mu.Lock()
		f.statusWrites = append(f.statusWrites, u.DeepCopy())
		f.mu.Unlock()
		return true, u, nil
	})
}

func (f *fixture) writes() []*vcjob.Job {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*vcjob.Job(nil), f.statusWrites...)
}

func (f *fixture) storedJob() *vcjob.Job {
	f.t.Helper()
	obj, err := f.vc.Tracker().Get(clients.JobsResource, "ns", "demo")
	if err != nil {
		f.t.Fatal(err)
	}
	return clients.PrepareJob(obj.(*vcjob.Job).DeepCopy())
}

// putPodGroup stores the job's PodGroup as the informer would hold it.
func (f *fixture) putPodGroup(job *vcjob.Job, phase podgroup.Phase) {
	f.t.Helper()
	pg := podgroup.Desired(job, nil)
	pg.UID = "pg-uid"
	pg.Status.Phase = phase
	if err := f.c.pgStore.Add(&pg); err != nil {
		f.t.Fatal(err)
	}
	if err := f.vc.Tracker().Add(pg.DeepCopy()); err != nil {
		f.t.Fatal(err)
	}
}

// putPod creates a pod of the job in the API and in the cache.
func (f *fixture) putPod(job *vcjob.Job, index int, phase corev1.PodPhase) *corev1.Pod {
	f.t.Helper()
	pod := statemachine.RenderPod(job, &job.Spec.Tasks[0], index)
	pod.UID = types.UID("pod-uid-" + strconv.Itoa(index))
	pod.ResourceVersion = "1"
	pod.Status.Phase = phase
	if _, err := f.kube.CoreV1().Pods(pod.Namespace).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		f.t.Fatal(err)
	}
	if err := f.c.cfg.PodInformers.Core().V1().Pods().Informer().GetIndexer().Add(pod.DeepCopy()); err != nil {
		f.t.Fatal(err)
	}
	f.c.jobs.OnPodAdd(pod)
	return pod
}

// maxDrained bounds drain: a worker that keeps requeuing never empties
// its queue.
const maxDrained = 1000

// drain handles what the worker's queue holds, requeues included (the
// fixture's rate limiter does not make them wait), until it is empty;
// what waits on the clock stays where it is.
func (f *fixture) drain() {
	f.t.Helper()
	s := f.c.shards[0]
	for range maxDrained {
		if s.queue.Len() == 0 {
			return
		}
		it, _ := s.queue.Get()
		s.handle(context.Background(), it)
		s.queue.Done(it)
	}
	f.t.Fatalf("the worker's queue still holds %d items after %d", s.queue.Len(), maxDrained)
}

func demoRequest(event vcjob.Event) request.Request {
	return request.Request{Namespace: "ns", JobName: "demo", JobUID: "job-uid", Event: event}
}

func TestCreatePodAlreadyExistsCountsAsCreated(t *testing.T) {
	job := newJob(t, vcjob.Pending)
	f := newFixture(t, job)
	f.putPodGroup(job, podgroup.PhaseInqueue)
	// The pod exists in the API server, but the informer has not shown it.
	existing := statemachine.RenderPod(job, &job.Spec.Tasks[0], 0)
	if _, err := f.kube.CoreV1().Pods("ns").Create(context.Background(), existing, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	rec := f.c.shards[0].step.Process(context.Background(), demoRequest(vcjob.OutOfSyncEvent), f.clock.Now())
	if rec.Err != nil {
		t.Fatalf("step failed: %v", rec.Err)
	}
	if got := strings.Join(rec.Effects.Created, ","); got != "demo-worker-0,demo-worker-1" {
		t.Errorf("created %q, want both pods (AlreadyExists is success)", got)
	}
	if got := testutil.ToFloat64(f.c.metrics.PodsCreated); got != 1 {
		t.Errorf("pods actually created = %v, want 1", got)
	}
	if st := f.storedJob().Status; st.Pending != 2 {
		t.Errorf("status pending = %d, want 2 (the existing pod counts as created)", st.Pending)
	}
}

func TestCreatePodErrorFailsStepWithoutStatusWrite(t *testing.T) {
	job := newJob(t, vcjob.Pending)
	f := newFixture(t, job)
	f.putPodGroup(job, podgroup.PhaseInqueue)
	f.kube.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewInternalError(errors.New("etcd is down"))
	})
	rec := f.c.shards[0].step.Process(context.Background(), demoRequest(vcjob.OutOfSyncEvent), f.clock.Now())
	if rec.Err == nil || !strings.Contains(rec.Err.Error(), "etcd is down") {
		t.Fatalf("step error = %v, want the create failure", rec.Err)
	}
	if n := len(f.writes()); n != 0 {
		t.Errorf("%d status writes, want none after a failed create", n)
	}
}

// SyncJob of a job without a phase writes twice with the same job: the
// initial Pending status, then the counts. The Applier hands the first
// write's resourceVersion on, so the second does not conflict.
func TestUpdateStatusTwiceInOneSync(t *testing.T) {
	job := newJob(t, "")
	f := newFixture(t, job)
	f.putPodGroup(job, podgroup.PhaseInqueue)

	rec := f.c.shards[0].step.Process(context.Background(), demoRequest(vcjob.OutOfSyncEvent), f.clock.Now())
	if rec.Err != nil {
		t.Fatalf("step failed: %v", rec.Err)
	}
	w := f.writes()
	if len(w) != 2 {
		t.Fatalf("%d status writes, want 2", len(w))
	}
	if rv := w[1].GetResourceVersion(); rv != "3" {
		t.Errorf("final resourceVersion %s, want 3", rv)
	}
	// The cache took the written job, so the next step starts from it.
	ji, err := f.c.jobs.Get("ns/demo")
	if err != nil {
		t.Fatal(err)
	}
	if ji.Job.ResourceVersion != "3" || ji.Job.Status.Pending != 2 {
		t.Errorf("cached job rv=%s pending=%d, want rv 3 and 2 pending", ji.Job.ResourceVersion, ji.Job.Status.Pending)
	}
}

// A status write that conflicts fails the step; the request is requeued
// with rate limiting until worker.Requeue says stop (MaxRequeue 2), then
// the job is terminated (worker.GiveUp) and the request dropped.
func TestStatusConflictIsRequeuedThenTerminates(t *testing.T) {
	job := newJob(t, vcjob.Running)
	f := newFixture(t, job)
	f.putPodGroup(job, podgroup.PhaseRunning)
	f.putPod(job, 0, corev1.PodRunning)
	f.putPod(job, 1, corev1.PodRunning)
	var conflicts atomic.Int32
	f.vc.PrependReactor("update", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
		u := a.(k8stesting.UpdateAction).GetObject().(*vcjob.Job)
		if u.Status.State.Phase == vcjob.Terminating {
			return false, nil, nil // let the give-up's TerminateJob through
		}
		conflicts.Add(1)
		return true, nil, apierrors.NewConflict(clients.JobsResource.GroupResource(), u.GetName(), errors.New("the object has been modified"))
	})
	// A running job whose status differs from the counts: the sync writes.
	f.c.enqueue(demoRequest(vcjob.OutOfSyncEvent))
	f.drain()

	if got := conflicts.Load(); got != 3 {
		t.Errorf("%d conflicting writes, want 3 (the first try and 2 requeues)", got)
	}
	if got := testutil.ToFloat64(f.c.metrics.Requeues); got != 2 {
		t.Errorf("requeues = %v, want 2", got)
	}
	if got := testutil.ToFloat64(f.c.metrics.GivenUp); got != 1 {
		t.Errorf("give-ups = %v, want 1", got)
	}
	if phase := f.storedJob().Status.State.Phase; phase != vcjob.Terminating {
		t.Errorf("job phase %q, want Terminating after giving up", phase)
	}
	if n := f.c.shards[0].queue.Len(); n != 0 {
		t.Errorf("queue holds %d items, want the request dropped", n)
	}
	if n := f.c.shards[0].queue.NumRequeues(item{Kind: kindRequest, Req: demoRequest(vcjob.OutOfSyncEvent)}); n != 0 {
		t.Errorf("the given-up request still counts %d requeues, want it forgotten", n)
	}
}

// A kill whose pod delete fails writes no status and fails the step: the
// request is requeued.
func TestKillWithFailingDeleteIsRequeued(t *testing.T) {
	job := newJob(t, vcjob.Running)
	f := newFixture(t, job)
	f.putPodGroup(job, podgroup.PhaseRunning)
	f.putPod(job, 0, corev1.PodRunning)
	f.putPod(job, 1, corev1.PodRunning)
	f.kube.PrependReactor("delete", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.(k8stesting.DeleteAction).GetName() == "demo-worker-1" {
			return true, nil, apierrors.NewInternalError(errors.New("boom"))
		}
		return false, nil, nil
	})
	req := request.Request{Namespace: "ns", JobName: "demo", Event: vcjob.CommandIssuedEvent, Action: vcjob.AbortJobAction}
	s := f.c.shards[0]
	s.handle(context.Background(), item{Req: req})
	if n := len(f.writes()); n != 0 {
		t.Errorf("%d status writes, want none", n)
	}
	if got := s.queue.NumRequeues(item{Req: req}); got != 1 {
		t.Errorf("requeues = %d, want 1", got)
	}
	if int(testutil.ToFloat64(f.c.metrics.DeleteRetriesPending)) != 1 {
		t.Errorf("retrier tracks %d pods, want the one whose delete failed", int(testutil.ToFloat64(f.c.metrics.DeleteRetriesPending)))
	}
}

// A PodGroup the controller created is not created again while the
// informer has not shown it (the create would be answered 409), for at
// most the in-flight record's ttl; once shown or deleted, the lister
// speaks for it again.
func TestApplyPodGroupCreatesOnceUntilTheInformerShowsIt(t *testing.T) {
	job := newJob(t, vcjob.Pending)
	f := newFixture(t, job)
	a := f.c.applier
	desired := podgroup.Desired(job, nil)
	creates := func() int {
		n := 0
		for _, act := range f.vc.Actions() {
			if act.GetVerb() == "create" && act.GetResource().Resource == "podgroups" {
				n++
			}
		}
		f.vc.ClearActions()
		return n
	}
	apply := func(want int, why string) {
		t.Helper()
		if err := a.ApplyPodGroup(context.Background(), &desired); err != nil {
			t.Fatal(err)
		}
		if got := creates(); got != want {
			t.Errorf("%s: %d creates, want %d", why, got, want)
		}
	}
	apply(1, "no PodGroup")
	apply(0, "created, not shown by the informer yet")

	live, err := f.vc.PodGroups("ns").Get(context.Background(), desired.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.c.intake.PodGroups().OnDelete(live) // the informer shows it gone (not in the API: a delete whose event came first)
	apply(1, "the informer showed it deleted: the lister speaks for it")
	apply(0, "answered AlreadyExists: it exists")

	f.clock.Step(a.Expectations.TTL())
	apply(1, "not shown within the ttl: trusted no longer")

	if err := f.c.pgStore.Add(live); err != nil {
		t.Fatal(err)
	}
	f.c.intake.PodGroups().OnAdd(live, false)
	if a.Expectations.PodGroupCreationExpected(desired.Namespace + "/" + desired.Name) {
		t.Error("the informer showed the PodGroup, and the record of its create is still kept")
	}
	apply(0, "in the lister")
}

// A PodPending policy with a timeout registers a delayed action on the
// worker; when the fake clock reaches its deadline, the worker's timer
// queues a tick, and the worker fires the action.
func TestDelayedActionFiresOnTheWorker(t *testing.T) {
	job := newJob(t, vcjob.Running)
	f := newFixture(t, job)
	f.putPodGroup(job, podgroup.PhaseRunning)
	pod := f.putPod(job, 0, corev1.PodPending)
	f.putPod(job, 1, corev1.PodRunning)
	s := f.c.shards[0]
	ctx := t.Context()

	req, _ := f.c.jobs.OnPodAdd(pod)
	f.c.enqueue(req)
	s.processNext(ctx) // registers the timeout (50ms) and sets the timer
	if got := testutil.ToFloat64(f.c.metrics.DelayRegistered.WithLabelValues("AbortJob")); got != 1 {
		t.Fatalf("registered = %v, want 1", got)
	}
	f.clock.Step(49 * time.Millisecond)
	if n := s.queue.Len(); n != 0 || s.step.Delays.Len() != 1 {
		t.Fatalf("before the deadline: %d items queued, %d delayed actions; want none queued, 1 waiting", n, s.step.Delays.Len())
	}
	f.clock.Step(time.Millisecond)
	s.processNext(ctx) // waits for the tick the timer queues, and fires
	if got := testutil.ToFloat64(f.c.metrics.DelayFired.WithLabelValues("AbortJob")); got != 1 {
		t.Errorf("fired = %v, want 1", got)
	}
	if phase := f.storedJob().Status.State.Phase; phase != vcjob.Aborting {
		t.Errorf("phase %s, want Aborting", phase)
	}
}

// The same pod moving on (any pod event but PodPending) cancels its
// pending timeout.
func TestDelayedActionCancelledByPodEvent(t *testing.T) {
	job := newJob(t, vcjob.Running)
	f := newFixture(t, job)
	f.putPodGroup(job, podgroup.PhaseRunning)
	pod := f.putPod(job, 0, corev1.PodPending)
	s := f.c.shards[0]
	req, _ := f.c.jobs.OnPodAdd(pod)
	s.handle(context.Background(), item{Req: req})
	if s.step.Delays.Len() != 1 {
		t.Fatalf("%d delayed actions, want 1", s.step.Delays.Len())
	}
	running := pod.DeepCopy()
	running.Status.Phase, running.ResourceVersion = corev1.PodRunning, "2"
	req, _ = f.c.jobs.OnPodUpdate(pod, running)
	s.handle(context.Background(), item{Req: req})
	if s.step.Delays.Len() != 0 {
		t.Errorf("%d delayed actions left, want the timeout cancelled", s.step.Delays.Len())
	}
	if got := testutil.ToFloat64(f.c.metrics.DelayCancelled); got != 1 {
		t.Errorf("cancelled = %v, want 1", got)
	}
}
