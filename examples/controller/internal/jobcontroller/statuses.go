package jobcontroller

import (
	"context"

	"k8s.io/klog/v2"

	"github.com/vcjob/vcjob/request"
)

// The worker's side of held-back status writes (package coalesce): the
// flush items on its queue.

// queueFlush queues the flush of a job's held-back status behind what
// the queue holds, or after Config.StatusHold.
func (s *shard) queueFlush(namespace, name string) {
	flush := item{Kind: kindFlush, Req: request.Request{Namespace: namespace, JobName: name}}
	if h := s.c.cfg.StatusHold; h > 0 {
		s.queue.AddAfter(flush, h)
		return
	}
	s.queue.Add(flush)
}

// flushItem handles a flush item: the deferred status is written; a
// failure is retried with the queue's rate limiting, and given up (with
// the status left to the job's next write) after MaxRequeue tries.
func (s *shard) flushItem(ctx context.Context, it item) {
	key := request.JobKey(it.Req.Namespace, it.Req.JobName)
	if err := s.statuses.Flush(ctx, key); err != nil {
		n := s.queue.NumRequeues(it)
		if s.c.cfg.MaxRequeue < 0 || n < s.c.cfg.MaxRequeue {
			klog.V(2).InfoS("Deferred status write failed; retried", "job", klog.KRef(it.Req.Namespace, it.Req.JobName), "tries", n+1, "err", err)
			s.queue.AddRateLimited(it)
			return
		}
		klog.ErrorS(err, "Deferred status write failed too often; dropped", "job", klog.KRef(it.Req.Namespace, it.Req.JobName))
		s.statuses.Drop(key)
	}
	s.queue.Forget(it)
}
