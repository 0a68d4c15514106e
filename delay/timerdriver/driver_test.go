package timerdriver

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/delay"
	"github.com/vcjob/vcjob/request"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// guard bounds every wait on the driver's goroutine, so that a broken
// driver fails the test instead of hanging it. No behaviour depends on it.
const guard = 5 * time.Second

// fakeClock is a hand-driven clock. Every After call is handed to the test
// through waits; its channel is unbuffered, so a tick sent by the test is
// known to have been taken by Run.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	waits chan sleep
}

type sleep struct {
	d  time.Duration
	ch chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: t0, waits: make(chan sleep, 16)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	s := sleep{d: d, ch: make(chan time.Time)}
	c.waits <- s
	return s.ch
}

func (c *fakeClock) advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}

// harness runs a driver on a fake clock and records what it fires.
type harness struct {
	t      *testing.T
	clk    *fakeClock
	d      *Driver
	fired  chan delay.Entry
	cancel context.CancelFunc
	done   chan struct{}
}

func start(t *testing.T, setup func(h *harness), onFire func(h *harness, e delay.Entry)) *harness {
	t.Helper()
	clk := newFakeClock()
	d := New(nil)
	d.Now, d.After = clk.Now, clk.After
	ctx, cancel := context.WithCancel(context.Background())
	h := &harness{t: t, clk: clk, d: d, fired: make(chan delay.Entry, 16), cancel: cancel, done: make(chan struct{})}
	if setup != nil {
		setup(h)
	}
	go func() {
		defer close(h.done)
		d.Run(ctx, func(e delay.Entry) {
			if onFire != nil {
				onFire(h, e)
			}
			h.fired <- e
		})
	}()
	t.Cleanup(h.stop)
	return h
}

// stop ends Run and waits for it to return.
func (h *harness) stop() {
	h.cancel()
	select {
	case <-h.done:
	case <-time.After(guard):
		h.t.Fatal("Run did not return after its context was cancelled")
	}
}

// nextSleep is the next After call Run makes.
func (h *harness) nextSleep() sleep {
	h.t.Helper()
	select {
	case s := <-h.clk.waits:
		return s
	case <-time.After(guard):
		h.t.Fatal("Run did not sleep")
	}
	return sleep{}
}

// tick advances the clock by s.d and fires s's timer.
func (h *harness) tick(s sleep) {
	h.t.Helper()
	now := h.clk.advance(s.d)
	select {
	case s.ch <- now:
	case <-time.After(guard):
		h.t.Fatal("Run is not waiting on this timer")
	}
}

func (h *harness) nextFired() delay.Entry {
	h.t.Helper()
	select {
	case e := <-h.fired:
		return e
	case <-time.After(guard):
		h.t.Fatal("nothing fired")
	}
	return delay.Entry{}
}

// quiet stops Run and checks that it fired nothing more and slept no more.
func (h *harness) quiet() {
	h.t.Helper()
	h.stop()
	assert.Empty(h.t, h.fired, "fired more than expected")
	assert.Empty(h.t, h.clk.waits, "slept more than expected")
}

func podReq(pod string, ev vcjob.Event) request.Request {
	return request.Request{Namespace: "ns", JobName: "j", TaskName: "w", PodName: pod, PodUID: types.UID("uid-" + pod), Event: ev}
}

func register(t *testing.T, d *Driver, req request.Request, action vcjob.Action, wait time.Duration) delay.Entry {
	t.Helper()
	e, ok := d.Register(req, action, request.TargetOf(action, req), wait)
	require.True(t, ok)
	return e
}

func TestRunFiresAtDeadline(t *testing.T) {
	var e delay.Entry
	h := start(t, func(h *harness) {
		e = register(t, h.d, podReq("p0", vcjob.PodFailedEvent), vcjob.RestartJobAction, 10*time.Second)
	}, nil)
	s := h.nextSleep()
	assert.Equal(t, 10*time.Second, s.d, "sleeps exactly until the deadline")
	h.tick(s)
	got := h.nextFired()
	assert.Equal(t, e, got)
	assert.Equal(t, t0.Add(10*time.Second), got.Due)
	assert.Zero(t, h.d.Len())
	h.quiet()
}

func TestRunWakesForEarlierRegistration(t *testing.T) {
	h := start(t, nil, nil)
	// Nothing pending: Run waits without a timer until a registration.
	late := register(t, h.d, podReq("p0", vcjob.PodFailedEvent), vcjob.RestartJobAction, 10*time.Second)
	s1 := h.nextSleep()
	assert.Equal(t, 10*time.Second, s1.d)

	early := register(t, h.d, podReq("p1", vcjob.PodFailedEvent), vcjob.RestartJobAction, 2*time.Second)
	s2 := h.nextSleep()
	assert.Equal(t, 2*time.Second, s2.d, "woken early for the earlier deadline")

	// A later registration does not wake Run: the next sleep seen below is
	// the one after the early entry fired.
	latest := register(t, h.d, podReq("p2", vcjob.PodFailedEvent), vcjob.RestartJobAction, 30*time.Second)

	h.tick(s2)
	assert.Equal(t, early.ID, h.nextFired().ID)
	s3 := h.nextSleep()
	assert.Equal(t, 8*time.Second, s3.d, "then sleeps for the rest of the first deadline")
	h.tick(s3)
	assert.Equal(t, late.ID, h.nextFired().ID)
	s4 := h.nextSleep()
	assert.Equal(t, 20*time.Second, s4.d)
	h.tick(s4)
	assert.Equal(t, latest.ID, h.nextFired().ID)
	h.quiet()
}

func TestRunDoesNotFireCancelled(t *testing.T) {
	var bystander delay.Entry
	h := start(t, func(h *harness) {
		register(t, h.d, podReq("p0", vcjob.PodFailedEvent), vcjob.RestartPodAction, 5*time.Second)
		bystander = register(t, h.d, podReq("p1", vcjob.PodFailedEvent), vcjob.RestartPodAction, 20*time.Second)
	}, nil)
	s1 := h.nextSleep()
	require.Equal(t, 5*time.Second, s1.d)

	cancelled := h.d.CancelForPodEvent(podReq("p0", vcjob.PodRunningEvent))
	require.Len(t, cancelled, 1)

	h.tick(s1) // nothing is due at 5s any more
	s2 := h.nextSleep()
	assert.Equal(t, 15*time.Second, s2.d)
	h.tick(s2)
	assert.Equal(t, bystander.ID, h.nextFired().ID, "only the bystander fires")
	h.quiet()
}

func TestRunFiresBatchInOrder(t *testing.T) {
	var es []delay.Entry
	h := start(t, func(h *harness) {
		es = append(es,
			register(t, h.d, podReq("p0", vcjob.PodFailedEvent), vcjob.RestartJobAction, 3*time.Second),
			register(t, h.d, podReq("p1", vcjob.PodFailedEvent), vcjob.RestartJobAction, 2*time.Second),
			register(t, h.d, podReq("p2", vcjob.PodFailedEvent), vcjob.RestartJobAction, 3*time.Second),
		)
	}, nil)
	s := h.nextSleep()
	require.Equal(t, 2*time.Second, s.d)
	h.clk.advance(time.Second) // the tick arrives late: everything is due
	h.tick(s)
	assert.Equal(t, []uint64{es[1].ID, es[0].ID, es[2].ID},
		[]uint64{h.nextFired().ID, h.nextFired().ID, h.nextFired().ID})
	h.quiet()
}

func TestRunFiresZeroDelayWithoutSleeping(t *testing.T) {
	h := start(t, nil, nil)
	e := register(t, h.d, podReq("p0", vcjob.PodFailedEvent), vcjob.RestartJobAction, 0)
	assert.Equal(t, e.ID, h.nextFired().ID)
	h.quiet()
}

func TestFireMayUseDriver(t *testing.T) {
	var first, second delay.Entry
	var cleaned []delay.Entry
	h := start(t, func(h *harness) {
		first = register(t, h.d, podReq("p0", vcjob.PodFailedEvent), vcjob.AbortJobAction, 5*time.Second)
		second = register(t, h.d, podReq("p1", vcjob.PodFailedEvent), vcjob.RestartJobAction, 10*time.Second)
	}, func(h *harness, e delay.Entry) {
		cleaned = h.d.CleanupAfter(e.Request.Namespace, e.Request.JobName, e.Action, e.Target)
	})
	s := h.nextSleep()
	h.tick(s)
	assert.Equal(t, first.ID, h.nextFired().ID)
	h.stop()
	assert.Equal(t, []delay.Entry{second}, cleaned, "the job-level cleanup after the first cancelled the second")
	assert.Zero(t, h.d.Len())
	assert.Empty(t, h.fired)
	assert.Empty(t, h.clk.waits)
}

func TestRunReturnsWhenCancelled(t *testing.T) {
	h := start(t, func(h *harness) {
		register(t, h.d, podReq("p0", vcjob.PodFailedEvent), vcjob.RestartJobAction, time.Hour)
	}, nil)
	h.nextSleep()
	h.quiet()
	assert.Equal(t, 1, h.d.Len(), "a pending entry stays when Run ends")
}

func TestForwarding(t *testing.T) {
	clk := newFakeClock()
	d := New(nil)
	d.Now, d.After = clk.Now, clk.After
	clk.advance(7 * time.Second)

	req := podReq("p0", vcjob.PodPendingEvent)
	e := register(t, d, req, vcjob.RestartPodAction, time.Second)
	assert.Equal(t, t0.Add(7*time.Second), e.Registered, "Register reads Now")
	_, ok := d.Register(req, vcjob.RestartPodAction, request.TargetOf(vcjob.RestartPodAction, req), time.Second)
	assert.False(t, ok, "same pod, same action: dropped")
	assert.Equal(t, []delay.Entry{e}, d.Pending("ns", "j"))
	assert.Equal(t, []delay.Entry{e}, d.CancelForPodEvent(podReq("p0", vcjob.PodRunningEvent)))

	e2 := register(t, d, podReq("p1", vcjob.PodFailedEvent), vcjob.RestartTaskAction, time.Second)
	assert.Equal(t, []delay.Entry{e2}, d.CleanupAfter("ns", "j", vcjob.RestartTaskAction, request.Target{Level: vcjob.TaskLevel, TaskName: "w"}))
	e3 := register(t, d, podReq("p2", vcjob.PodFailedEvent), vcjob.AbortJobAction, time.Second)
	assert.Equal(t, 1, d.Len())
	assert.Equal(t, []delay.Entry{e3}, d.ForgetJob("ns", "j"))
	assert.Zero(t, d.Len())
}

func TestNewUsesGivenQueue(t *testing.T) {
	q := delay.New()
	req := podReq("p0", vcjob.PodFailedEvent)
	q.Register(req, vcjob.RestartJobAction, request.TargetOf(vcjob.RestartJobAction, req), time.Hour, t0)
	d := New(q)
	assert.Equal(t, 1, d.Len())
	assert.NotNil(t, d.Now)
	assert.NotNil(t, d.After)
}

// TestRealClock is a smoke test of the defaults (time.Now, time.After).
func TestRealClock(t *testing.T) {
	d := New(nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fired := make(chan delay.Entry, 1)
	done := make(chan struct{})
	go func() { defer close(done); d.Run(ctx, func(e delay.Entry) { fired <- e }) }()
	e := register(t, d, podReq("p0", vcjob.PodFailedEvent), vcjob.RestartJobAction, 20*time.Millisecond)
	select {
	case got := <-fired:
		assert.Equal(t, e.ID, got.ID)
		assert.False(t, time.Now().Before(got.Due), "fired before its deadline")
	case <-time.After(guard):
		t.Fatal("nothing fired on the real clock")
	}
	cancel()
	<-done
}
