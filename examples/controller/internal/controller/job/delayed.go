package job

import (
	"context"
	"time"

	"k8s.io/klog/v2"

	"github.com/vcjob/vcjob/request"
)

// Delayed actions (a policy's timeout): the worker's delay.Queue holds
// them, a timer on the controller's clock puts a tick item on the queue
// at the earliest deadline, and the tick fires what is due, on the
// worker's goroutine like every other step.

// fireDue runs every delayed action that has come due. One that fails is
// retried like a failed request: as a request carrying the action, which
// policy resolution hands back unchanged, for the same target.
func (s *shard) fireDue(ctx context.Context) {
	now := s.c.now()
	for _, e := range s.step.Delays.Due(now) {
		if h := s.held[request.JobKey(e.Request.Namespace, e.Request.JobName)]; h != nil {
			// Its job waits for a failed request: the action waits behind
			// it, as a request carrying the action (same target).
			req := e.Request
			req.Action = e.Action
			h.parked = append(h.parked, item{Kind: kindRequest, Req: req})
			continue
		}
		jobCtx := klog.NewContext(ctx, klog.LoggerWithValues(klog.FromContext(ctx), "job", klog.KRef(e.Request.Namespace, e.Request.JobName)))
		s.statuses.Overlay(jobCtx, e.Request.Namespace, e.Request.JobName)
		rec := s.fire(jobCtx, e, now)
		s.statuses.NextItem()
		if rec.Err != nil {
			req := e.Request
			req.Action = e.Action
			s.failed(jobCtx, item{Kind: kindRequest, Req: req}, rec)
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
	if s.timer != nil {
		s.timer.Stop()
	}
	// A new timer each time, not Reset: a fake clock's fired timer keeps
	// its tick in a channel nobody reads, and would block on the next.
	// The tick is queued on a goroutine of its own: a fake clock runs the
	// function while it holds its lock, and the queue reads the clock.
	s.timer = s.c.cfg.Clock.AfterFunc(max(next.Sub(s.c.now()), 0), func() { go s.queue.Add(item{Kind: kindTick}) })
}
