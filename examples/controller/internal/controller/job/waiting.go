package job

import (
	"context"

	"github.com/vcjob/vcjob/request"
)

// Waiting for created pods: a job's requests are kept back while pods
// created for it have not been shown by the informer yet (package
// expectations), and go on, in order, once the last is shown (a wake
// item) or the trust in the expectation ends.

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
	if s.c.expectations.Satisfied(key) {
		return false
	}
	if s.waiting == nil {
		s.waiting = map[string][]item{}
	}
	s.waiting[key] = []item{it}
	s.queue.AddAfter(item{Kind: kindWake, Req: request.Request{Namespace: it.Req.Namespace, JobName: it.Req.JobName}}, s.c.expectations.TTL())
	return true
}

// wakeItem runs the job's waiting requests, in order, once its created
// pods have all been shown.
func (s *shard) wakeItem(ctx context.Context, it item) {
	key := request.JobKey(it.Req.Namespace, it.Req.JobName)
	if !s.c.expectations.Satisfied(key) {
		// Another create since: its add event wakes the job again, or
		// this, once the trust in it ends.
		s.queue.AddAfter(it, s.c.expectations.TTL())
		return
	}
	w := s.waiting[key]
	delete(s.waiting, key)
	for _, r := range w {
		s.dispatch(ctx, r)
	}
}
