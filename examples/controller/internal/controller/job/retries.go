package job

import (
	"context"

	"k8s.io/klog/v2"

	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/worker"
)

// Failed requests: a request whose step failed is requeued with the
// queue's rate limiting until worker.Requeue says stop, then its job is
// terminated. With Config.OrderedRetries the job's later requests wait
// behind the failed one (park, hold, release).

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
// worker.Requeue says stop; then the job is terminated (Step.GiveUp, with
// Volcano's retry-limit Event) and the request dropped, as Volcano's
// processNextReq does. A step stopped by the controller's own context is
// neither: the next leader starts afresh.
func (s *shard) failed(ctx context.Context, it item, rec worker.Record) {
	key := request.JobKey(it.Req.Namespace, it.Req.JobName)
	if ctx.Err() != nil {
		s.queue.Forget(it)
		return
	}
	n := s.queue.NumRequeues(it)
	logger := klog.FromContext(ctx)
	if worker.Requeue(n, s.c.cfg.MaxRequeue) {
		s.c.metrics.Requeues.Inc()
		logger.V(2).Info("Step failed; requeued", "request", it.Req.String(), "requeues", n, "err", rec.Err)
		s.hold(key, it)
		s.queue.AddRateLimited(it)
		return
	}
	logger.Error(rec.Err, "Step failed too often; terminating the job", "request", it.Req.String(), "requeues", n)
	s.c.metrics.GivenUp.Inc()
	give := s.step.GiveUp(ctx, rec, s.c.now())
	s.record(ctx, give)
	if give.Err != nil {
		logger.Error(give.Err, "Cannot terminate the job")
	}
	s.queue.Forget(it)
	s.release(key, it)
}
