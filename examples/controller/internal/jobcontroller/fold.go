package jobcontroller

import (
	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/request"

	"github.com/vcjob/vcjob/examples/controller/internal/fold"
)

// Pod requests are queued as Volcano's queue merges them (package fold).

// cachedJob is the job of namespace/name as the job informer holds it,
// nil when it holds none.
func (c *Controller) cachedJob(namespace, name string) *vcjob.Job {
	if c.jobStore == nil {
		return nil
	}
	obj, ok, err := c.jobStore.GetByKey(namespace + "/" + name)
	if err != nil || !ok {
		return nil
	}
	job, _ := obj.(*vcjob.Job)
	return job
}

// enqueue queues req on its job's worker: folded into the identity
// Volcano's queue would merge it under when the job reads no request's
// pod, as it is otherwise.
func (c *Controller) enqueue(req request.Request) {
	s := c.shardOf(req.Namespace, req.JobName)
	if req.PodName != "" || req.PodUID != "" {
		if id, ok := fold.Identity(c.cachedJob(req.Namespace, req.JobName), req); ok {
			s.folds.Add(id, req)
			s.queue.Add(item{Kind: kindFolded, Req: id})
			return
		}
	}
	s.queue.Add(item{Kind: kindRequest, Req: req})
}

// unfold is what the worker runs for a folded item it: nothing more when
// the job still reads no request's pod and has no delayed action under a
// pod (the step runs on it.Req); else the full requests, in the order
// they came, each as its own item (ok is false). Those may then run
// later than requests queued after the first of them: only when the job
// gained a pod-reading policy, or a delayed action, while they waited.
func (s *shard) unfold(it item) (reqs []item, ok bool) {
	full := s.folds.Take(it.Req)
	job := s.c.cachedJob(it.Req.Namespace, it.Req.JobName)
	if len(full) == 0 || job == nil {
		// A retry of a folded request (its twins were handled), or a job
		// that is gone: the step decides on the identity.
		return nil, true
	}
	if !fold.PodKeyed(job) && (s.step.Delays.Len() == 0 || len(s.step.Delays.Pending(it.Req.Namespace, it.Req.JobName)) == 0) {
		return nil, true
	}
	for _, r := range full {
		reqs = append(reqs, item{Kind: kindRequest, Req: r})
	}
	return reqs, false
}
