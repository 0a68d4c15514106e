package job

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/vcjob/vcjob/request"
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
	// kindFlush: write the job's held-back status (statuses.go).
	kindFlush
	// kindWake: the job's created pods have all been shown (or waited
	// for long enough): run its waiting requests.
	kindWake
	// kindFolded: process Req, the identity the pod requests kept in
	// folds were queued under (fold.go).
	kindFolded
)

// item is one entry of a worker's queue. It is comparable, so the queue
// collapses identical requests waiting at the same time and counts
// requeues per request, as Volcano's queue of apis.Request does.
type item struct {
	Kind itemKind
	Req  request.Request
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

	timer clock.Timer
	armed time.Time

	// statuses are the status writes held back (Config.CoalesceStatus).
	statuses *heldStatuses
	// held are the jobs whose failed request is being retried, with the
	// requests that came after it (Config.OrderedRetries), by job key.
	held map[string]*heldJob
	// waiting are requests of jobs whose created pods the informer has
	// not shown yet, in order, by job key.
	waiting map[string][]item
	// folds are the pod requests queued under a folded identity.
	folds foldStore

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
			Name: fmt.Sprintf("jobs-%d", id), MetricsProvider: c.metrics.Workqueue(), Clock: c.cfg.Clock}),
	}
	s.statuses = newHeldStatuses(c.jobs, c.applier, s.queueFlush)
	var applier statemachine.Applier = c.applier
	if c.cfg.CoalesceStatus {
		applier = s.statuses.Applier()
	}
	s.step = newStep(c, applier)
	return s
}

// run works through the queue until it is shut down. Its log lines carry
// the worker's number.
func (s *shard) run(ctx context.Context) {
	ctx = klog.NewContext(ctx, klog.LoggerWithValues(klog.FromContext(ctx), "worker", s.id))
	defer func() {
		if s.timer != nil {
			s.timer.Stop()
		}
		// What was held back is written before the worker stops, past
		// the cancelled ctx (a lost lease cancels it too: then the API
		// server's conflict check refuses a write the next leader has
		// overtaken).
		s.mu.Lock()
		s.statuses.FlushAll(context.WithoutCancel(ctx))
		s.mu.Unlock()
	}()
	for s.processNext(ctx) {
	}
}

// processNext handles the next item of the queue, waiting for one, and
// sets the timer to the next delayed action; false: the queue is shut
// down.
func (s *shard) processNext(ctx context.Context) bool {
	it, shutdown := s.queue.Get()
	if shutdown {
		return false
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
	return true
}

// handle handles one item. Its log lines (and the step's, through ctx)
// carry the item's job.
func (s *shard) handle(ctx context.Context, it item) {
	if it.Kind != kindTick {
		ctx = klog.NewContext(ctx, klog.LoggerWithValues(klog.FromContext(ctx), "job", klog.KRef(it.Req.Namespace, it.Req.JobName)))
	}
	s.dispatch(ctx, it)
}

// dispatch handles an item as its kind says; the items a wake or an
// unfold lets go are dispatched in turn, on the same job's ctx.
func (s *shard) dispatch(ctx context.Context, it item) {
	s.statuses.NextItem()
	switch it.Kind {
	case kindTick:
		s.armed = time.Time{}
		s.fireDue(ctx)
	case kindFlush:
		s.flushItem(ctx, it)
	case kindWake:
		s.wakeItem(ctx, it)
	case kindForget:
		s.forgetItem(ctx, it)
	default:
		s.requestItem(ctx, it)
	}
}

// requestItem runs the step on a request (kindRequest, kindFolded),
// unless it waits: behind its job's failed request, or for the job's
// created pods; a folded one whose pods matter runs as its full requests.
func (s *shard) requestItem(ctx context.Context, it item) {
	key := request.JobKey(it.Req.Namespace, it.Req.JobName)
	if s.park(key, it) || s.wait(key, it) {
		return
	}
	if it.Kind == kindFolded {
		if each, ok := s.unfold(it); !ok {
			for _, r := range each {
				s.dispatch(ctx, r)
			}
			return
		}
	}
	s.statuses.Overlay(ctx, it.Req.Namespace, it.Req.JobName)
	rec := s.process(ctx, it.Req)
	if rec.Err != nil {
		s.failed(ctx, it, rec)
		return
	}
	s.queue.Forget(it)
	s.release(key, it)
}

// forgetItem drops what the worker keeps for a deleted job.
func (s *shard) forgetItem(ctx context.Context, it item) {
	key := request.JobKey(it.Req.Namespace, it.Req.JobName)
	s.folds.Forget(it.Req.Namespace, it.Req.JobName)
	delete(s.waiting, key)
	s.statuses.Drop(key)
	delete(s.held, key)
	if dropped := s.step.Delays.ForgetJob(it.Req.Namespace, it.Req.JobName); len(dropped) > 0 {
		s.c.metrics.DelayCancelled.Add(float64(len(dropped)))
		klog.FromContext(ctx).V(2).Info("Dropped delayed actions of a deleted job", "count", len(dropped))
	}
}
