package jobcontroller

import (
	"context"
	"time"

	"github.com/vcjob/vcjob/request"
)

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
		s.statuses.Overlay(e.Request.Namespace, e.Request.JobName)
		rec := s.fire(ctx, e, now)
		s.statuses.NextItem()
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
