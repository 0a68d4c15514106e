package job

import (
	"sync"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/request"
)

// Pod requests are queued as Volcano's work queue merges them.
//
// Volcano's pod handlers queue an apis.Request that names the job, the
// task, the event, the exit code and the job version, and client-go's
// workqueue keeps one of identical requests while they wait: twenty pods
// of a task going Running while the worker is busy are one request, one
// step, at most one status write. The library's requests also name the
// pod (its name, UID, partition and disruption), which delayed actions,
// RestartPod and RestartPartition need; queued as they are, no two pods'
// requests are ever identical. When a job has none of those uses
// (podKeyed), foldIdentity leaves the pod out of the queue item, so the
// queue merges what Volcano's merges; a foldStore keeps the full requests
// by their identity in case the job gains such a use before the item is
// handled. Every step still decides on the job as the cache holds it
// then: what a folded request would have decided differs from its twin's
// only by the pod, which the job does not read.

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
		if id, ok := foldIdentity(c.cachedJob(req.Namespace, req.JobName), req); ok {
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
	if !podKeyed(job) && (s.step.Delays.Len() == 0 || len(s.step.Delays.Pending(it.Req.Namespace, it.Req.JobName)) == 0) {
		return nil, true
	}
	for _, r := range full {
		reqs = append(reqs, item{Kind: kindRequest, Req: r})
	}
	return reqs, false
}

// foldIdentity is the queue identity of req: req without its pod, when job is
// known and reads no request's pod (podKeyed); ok is false when req must
// be queued as it is.
func foldIdentity(job *vcjob.Job, req request.Request) (id request.Request, ok bool) {
	if job == nil || req.Action != "" || podKeyed(job) {
		return req, false
	}
	id = req
	id.PodName, id.PodUID, id.PartitionID, id.Disrupted = "", "", "", false
	return id, id != req
}

// podKeyed reports whether a step of job can read a request's pod: a
// policy with a timeout registers its delayed action under the pod (and
// the pod's later events cancel it), RestartPod and RestartPartition act
// on the pod and its partition, and policy extensions read the
// disruption and keep per-pod history.
func podKeyed(job *vcjob.Job) bool {
	if _, ok := job.Annotations[policy.ExtensionsAnnotation]; ok {
		return true
	}
	if policiesPodKeyed(job.Spec.Policies) {
		return true
	}
	for i := range job.Spec.Tasks {
		if policiesPodKeyed(job.Spec.Tasks[i].Policies) {
			return true
		}
	}
	return false
}

func policiesPodKeyed(ps []vcjob.LifecyclePolicy) bool {
	for _, p := range ps {
		if p.Timeout != nil || p.Action == vcjob.RestartPodAction || p.Action == vcjob.RestartPartitionAction {
			return true
		}
	}
	return false
}

// foldStore holds the full requests queued under each identity, in order,
// until the worker takes them. Handlers add, the worker takes; safe for
// concurrent use. The zero foldStore is ready.
type foldStore struct {
	mu sync.Mutex
	by map[request.Request]*foldGroup
}

// foldGroup is what one identity holds: its requests in order, and the set of
// them, so that an identical request merges in O(1) however many pods a
// task has.
type foldGroup struct {
	reqs []request.Request
	seen map[request.Request]struct{}
}

// Add keeps req under id, once: an identical request waiting is merged,
// as the queue merges it.
func (s *foldStore) Add(id, req request.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.by == nil {
		s.by = map[request.Request]*foldGroup{}
	}
	g := s.by[id]
	if g == nil {
		g = &foldGroup{seen: map[request.Request]struct{}{}}
		s.by[id] = g
	}
	if _, dup := g.seen[req]; dup {
		return
	}
	g.seen[req] = struct{}{}
	g.reqs = append(g.reqs, req)
}

// Take hands over (and forgets) the requests kept under id.
func (s *foldStore) Take(id request.Request) []request.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.by[id]
	delete(s.by, id)
	if g == nil {
		return nil
	}
	return g.reqs
}

// Peek is a copy of the requests kept under id, left in place.
func (s *foldStore) Peek(id request.Request) []request.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g := s.by[id]; g != nil {
		return append([]request.Request(nil), g.reqs...)
	}
	return nil
}

// Len is the number of identities with requests kept.
func (s *foldStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.by)
}

// Forget drops what is kept for the job namespace/name: its queued items
// were dropped with it.
func (s *foldStore) Forget(namespace, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id := range s.by {
		if id.Namespace == namespace && id.JobName == name {
			delete(s.by, id)
		}
	}
}
