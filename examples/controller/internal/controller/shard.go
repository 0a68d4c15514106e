package controller

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/delay"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/worker"
)

// itemKind is what a queue item asks the worker to do.
type itemKind uint8

const (
	// kindRequest: process Req.
	kindRequest itemKind = iota
	// kindTick: delayed actions may have come due.
	kindTick
	// kindForget: the job Req names was deleted; drop its delayed actions.
	kindForget
	// kindFlush: write the job's deferred status (coalesce.go).
	kindFlush
	// kindWake: the job's created pods have all been shown (or waited
	// for long enough): run its waiting requests.
	kindWake
)

// item is one entry of a worker's queue. It is comparable, so the queue
// collapses identical requests waiting at the same time and counts
// requeues per request, as Volcano's queue of apis.Request does.
type item struct {
	Kind itemKind
	Req  vcjob.Request
}

// shard is one worker: a rate-limited queue, and the processing step with
// its own delay.Queue and statemachine.Applied. Only the worker's
// goroutine touches the step, so neither needs a lock: delayed actions are
// registered, cancelled and fired on the same goroutine that processes the
// job's requests, in the order the queue hands them out. A timer set to the
// delay queue's earliest deadline puts a tick item on the queue; the tick
// fires what is due.
type shard struct {
	id    int
	c     *Controller
	queue workqueue.TypedRateLimitingInterface[item]
	step  *worker.Step

	timer *time.Timer
	armed time.Time

	// pending are status writes held back, by job key
	// (Config.CoalesceStatus; coalesce.go).
	pending map[string]*pendingStatus
	// flushed are the held-back statuses written during the current item
	// (coalesce.go: rebase).
	flushed map[string]flushedWrite
	// held are the jobs whose failed request is being retried, with the
	// requests that came after it (Config.OrderedRetries), by job key.
	held map[string]*heldJob
	// waiting are requests of jobs whose created pods the informer has
	// not shown yet, in order, by job key.
	waiting map[string][]item

	// mu is held by the worker while it handles an item; the maps above
	// are the worker's alone otherwise. Only the debug view (debug.go)
	// takes it from outside, so the worker never waits on it.
	mu sync.Mutex
}

// heldJob is a job whose request failed: until that request succeeds (or
// is given up), the job's other requests wait, in order, behind it.
type heldJob struct {
	failed item
	parked []item
}

func newShard(id int, c *Controller) *shard {
	rl := workqueue.DefaultTypedControllerRateLimiter[item]()
	if c.cfg.RateLimiter != nil {
		rl = c.cfg.RateLimiter()
	}
	s := &shard{
		id: id, c: c,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(rl, workqueue.TypedRateLimitingQueueConfig[item]{
			Name: fmt.Sprintf("jobs-%d", id), MetricsProvider: c.metrics.WorkqueueMetrics()}),
	}
	var applier statemachine.Applier = c.applier
	if c.cfg.CoalesceStatus {
		applier = shardApplier{Applier: c.applier, s: s}
	}
	s.step = &worker.Step{Jobs: c.jobs, Delays: delay.New(), Cluster: &statemachine.Applied{
		Applier: applier, Plugins: c.plugins, Priorities: c.priority,
		// Claim names nobody can predict, as Volcano's.
		Names:     statemachine.RandomNames(),
		Semantics: c.cfg.Semantics,
	}}
	return s
}

func (s *shard) run(ctx context.Context) {
	defer func() {
		if s.timer != nil {
			s.timer.Stop()
		}
		// What was held back is written before the worker stops, in a
		// context the stop does not cancel (a lost lease cancels ctx too:
		// then the API server's conflict check refuses a write the next
		// leader has overtaken).
		s.mu.Lock()
		s.flushAll(context.WithoutCancel(ctx))
		s.mu.Unlock()
	}()
	for {
		it, shutdown := s.queue.Get()
		if shutdown {
			return
		}
		// Once asked to stop, the rest of the queue is dropped: the next
		// leader rebuilds it from the informers.
		if ctx.Err() == nil {
			s.mu.Lock()
			s.handle(ctx, it)
			s.mu.Unlock()
		}
		s.queue.Done(it)
		s.arm()
	}
}

func (s *shard) handle(ctx context.Context, it item) {
	clear(s.flushed)
	switch it.Kind {
	case kindTick:
		s.armed = time.Time{}
		s.fireDue(ctx)
	case kindFlush:
		s.flushItem(ctx, it)
	case kindWake:
		key := vcjob.JobKey(it.Req.Namespace, it.Req.JobName)
		if s.c.applier.recent.awaiting(key) {
			// Another create since: its add event wakes the job again,
			// or this, once the trust in it ends.
			s.queue.AddAfter(it, s.c.applier.recent.ttl)
			return
		}
		w := s.waiting[key]
		delete(s.waiting, key)
		for _, r := range w {
			s.handle(ctx, r)
		}
	case kindForget:
		delete(s.waiting, vcjob.JobKey(it.Req.Namespace, it.Req.JobName))
		delete(s.pending, vcjob.JobKey(it.Req.Namespace, it.Req.JobName))
		delete(s.held, vcjob.JobKey(it.Req.Namespace, it.Req.JobName))
		if dropped := s.step.Delays.ForgetJob(it.Req.Namespace, it.Req.JobName); len(dropped) > 0 {
			s.c.metrics.Add(MetricDelayCancelled, float64(len(dropped)))
			klog.V(2).InfoS("Dropped delayed actions of a deleted job", "job", klog.KRef(it.Req.Namespace, it.Req.JobName), "count", len(dropped))
		}
	default:
		key := vcjob.JobKey(it.Req.Namespace, it.Req.JobName)
		if s.park(key, it) {
			return
		}
		if s.wait(key, it) {
			return
		}
		s.overlay(it.Req.Namespace, it.Req.JobName)
		rec := s.step.Process(ctx, it.Req, s.c.now())
		s.record(rec)
		if rec.Err != nil {
			s.failed(ctx, it, rec)
			return
		}
		s.queue.Forget(it)
		s.release(key, it)
	}
}

// wait keeps it back while pods created for its job have not been shown
// by the informer yet: a step now would judge the job without them, and a
// kill would leave them alive. The last one's add event (or, failing
// that, the end of the trust in it) wakes the job.
func (s *shard) wait(key string, it item) bool {
	if w, ok := s.waiting[key]; ok {
		for _, p := range w {
			if p == it {
				return true
			}
		}
		s.waiting[key] = append(w, it)
		return true
	}
	if !s.c.applier.recent.awaiting(key) {
		return false
	}
	if s.waiting == nil {
		s.waiting = map[string][]item{}
	}
	s.waiting[key] = []item{it}
	s.queue.AddAfter(item{Kind: kindWake, Req: vcjob.Request{Namespace: it.Req.Namespace, JobName: it.Req.JobName}}, s.c.applier.recent.ttl)
	return true
}

// park keeps it back when its job has a failed request being retried
// and it is not that request; it reports whether it did.
func (s *shard) park(key string, it item) bool {
	h := s.held[key]
	if h == nil || h.failed == it {
		return false
	}
	for _, p := range h.parked {
		if p == it {
			return true // waiting already, as the queue would merge it
		}
	}
	h.parked = append(h.parked, it)
	return true
}

// hold makes the job of it, a request that failed and is requeued, hold
// its other requests back until it succeeds.
func (s *shard) hold(key string, it item) {
	if !s.c.cfg.OrderedRetries {
		return
	}
	if s.held == nil {
		s.held = map[string]*heldJob{}
	}
	if h := s.held[key]; h != nil {
		h.failed = it
		return
	}
	s.held[key] = &heldJob{failed: it}
}

// release puts back on the queue, in order, what waited behind it once it
// has succeeded or been given up.
func (s *shard) release(key string, it item) {
	h := s.held[key]
	if h == nil || h.failed != it {
		return
	}
	delete(s.held, key)
	for _, p := range h.parked {
		s.queue.Add(p)
	}
}

// failed requeues a request whose step failed, with rate limiting, until
// worker.Requeue says stop; then the job is terminated (Step.GiveUp) and
// the request dropped, as Volcano's processNextReq does. A step stopped by
// the controller's context is neither: the next leader starts afresh.
func (s *shard) failed(ctx context.Context, it item, rec worker.Record) {
	key := vcjob.JobKey(it.Req.Namespace, it.Req.JobName)
	if ctx.Err() != nil {
		s.queue.Forget(it)
		return
	}
	n := s.queue.NumRequeues(it)
	if worker.Requeue(n, s.c.cfg.MaxRequeue) {
		s.c.metrics.Inc(MetricRequeues)
		klog.V(2).InfoS("Step failed; requeued", "job", klog.KRef(it.Req.Namespace, it.Req.JobName),
			"request", it.Req.String(), "requeues", n, "err", rec.Err)
		s.hold(key, it)
		s.queue.AddRateLimited(it)
		return
	}
	klog.ErrorS(rec.Err, "Step failed too often; terminating the job", "job", klog.KRef(it.Req.Namespace, it.Req.JobName),
		"request", it.Req.String(), "requeues", n)
	s.c.metrics.Inc(MetricGiveUps)
	give := s.step.GiveUp(ctx, rec, s.c.now())
	s.record(give)
	if give.Err != nil {
		klog.ErrorS(give.Err, "Cannot terminate the job", "job", klog.KRef(it.Req.Namespace, it.Req.JobName))
	}
	s.queue.Forget(it)
	s.release(key, it)
}

// fireDue runs every delayed action that has come due. One that fails is
// retried like a failed request: as a request carrying the action, which
// policy resolution hands back unchanged, for the same target.
func (s *shard) fireDue(ctx context.Context) {
	now := s.c.now()
	for _, e := range s.step.Delays.Due(now) {
		if h := s.held[vcjob.JobKey(e.Request.Namespace, e.Request.JobName)]; h != nil {
			// Its job waits for a failed request: the action waits behind
			// it, as a request carrying the action (same target).
			req := e.Request
			req.Action = e.Action
			h.parked = append(h.parked, item{Kind: kindRequest, Req: req})
			continue
		}
		s.overlay(e.Request.Namespace, e.Request.JobName)
		rec := s.step.Fire(ctx, e, now)
		clear(s.flushed)
		s.c.metrics.Inc(MetricDelayFired, "action", string(e.Action))
		s.record(rec)
		if rec.Err != nil {
			req := e.Request
			req.Action = e.Action
			s.failed(ctx, item{Kind: kindRequest, Req: req}, rec)
		}
	}
}

// arm sets the timer to the earliest pending deadline.
func (s *shard) arm() {
	next, ok := s.step.Delays.Next()
	if !ok {
		if s.timer != nil {
			s.timer.Stop()
		}
		s.armed = time.Time{}
		return
	}
	if next.Equal(s.armed) {
		return
	}
	s.armed = next
	d := max(next.Sub(s.c.now()), 0)
	if s.timer == nil {
		s.timer = time.AfterFunc(d, func() { s.queue.Add(item{Kind: kindTick}) })
		return
	}
	s.timer.Reset(d)
}

func (s *shard) record(rec worker.Record) {
	m := s.c.metrics
	event := string(rec.Request.Event)
	if event == "" {
		event = "none"
	}
	action := string(rec.Action)
	if rec.Skipped != "" {
		action = "skipped"
	}
	m.Inc(MetricRequests, "event", event, "action", action)
	if rec.Registered != nil {
		m.Inc(MetricDelayRegistered, "action", string(rec.Registered.Action))
	}
	if n := len(rec.Cancelled); n > 0 {
		m.Add(MetricDelayCancelled, float64(n))
	}
	if rec.Err != nil {
		m.Inc(MetricErrors)
	}
	s.c.recordEvents(rec.Request.Namespace, rec.Request.JobName, rec.Events)
	for _, w := range rec.Effects.Warnings {
		// Volcano logs a plugin's bad argument on every sync too.
		klog.V(2).InfoS("Plugin argument ignored", "job", klog.KRef(rec.Request.Namespace, rec.Request.JobName), "warning", w)
	}
	// The log lines' arguments are built only at a level that logs them:
	// a record's text costs more than the rest of this function.
	if rec.Skipped != "" {
		if v := klog.V(4); v.Enabled() {
			v.InfoS("Request skipped", "worker", s.id, "request", rec.Request.String(), "reason", rec.Skipped)
		}
		return
	}
	level := klog.Level(3)
	if rec.Registered != nil || rec.Fired != nil || len(rec.Cancelled) > 0 || rec.PhaseBefore != rec.PhaseAfter || rec.Err != nil {
		level = 1
	}
	if v := klog.V(level); v.Enabled() {
		v.InfoS("Step", "worker", s.id, "job", klog.KRef(rec.Request.Namespace, rec.Request.JobName),
			"record", rec.String(), "created", len(rec.Effects.Created), "deleted", len(rec.Effects.Deleted), "statusWritten", rec.Effects.StatusWritten)
	}
}
