package jobcontroller

import (
	"sync"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/request"
)

// Folding pod requests as Volcano's queue does.
//
// Volcano's pod handlers queue an apis.Request that names the job, the
// task, the event, the exit code and the job version, and client-go's
// workqueue keeps one of identical requests while they wait: twenty pods
// of a task going Running while the worker is busy are one request, one
// step, at most one status write. The library's requests also name the
// pod (its name, UID, partition and disruption), which delayed actions,
// RestartPod and RestartPartition need; queued as they are, no two pods'
// requests are ever identical. When a job has none of those uses, the
// pod is left out of the queue item (podFold), so the queue merges what
// Volcano's merges; the full requests are kept aside by that item
// (folds) in case the job gains such a use before the item is handled.
// Every step still decides on the job as the cache holds it then: what a
// folded request would have decided differs from its twin's only by the
// pod, which the job does not read.

// podFold is the queue identity of req: req without its pod, when job is
// known and reads no request's pod (podKeyed); ok is false when req must
// be queued as it is.
func podFold(job *vcjob.Job, req request.Request) (request.Request, bool) {
	if job == nil || req.Action != "" || podKeyed(job) {
		return req, false
	}
	id := req
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

// folds are the full requests queued under each folded identity, in
// order, until the worker handles the identity. Handlers add, the worker
// takes; safe for concurrent use.
type folds struct {
	mu sync.Mutex
	by map[request.Request]*foldGroup
}

// foldGroup is what one identity holds: its requests in order, and the
// set of them, so that an identical request merges in O(1) however many
// pods a task has.
type foldGroup struct {
	reqs []request.Request
	seen map[request.Request]struct{}
}

// add keeps req under id, once: an identical request waiting is merged,
// as the queue merges it.
func (f *folds) add(id, req request.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.by == nil {
		f.by = map[request.Request]*foldGroup{}
	}
	g := f.by[id]
	if g == nil {
		g = &foldGroup{seen: map[request.Request]struct{}{}}
		f.by[id] = g
	}
	if _, dup := g.seen[req]; dup {
		return
	}
	g.seen[req] = struct{}{}
	g.reqs = append(g.reqs, req)
}

// take hands over (and forgets) the requests kept under id.
func (f *folds) take(id request.Request) []request.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	g := f.by[id]
	delete(f.by, id)
	if g == nil {
		return nil
	}
	return g.reqs
}

// forget drops what is kept for the job of key (namespace/name): its
// queued items were dropped with it.
func (f *folds) forget(namespace, name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for id := range f.by {
		if id.Namespace == namespace && id.JobName == name {
			delete(f.by, id)
		}
	}
}

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
		if id, ok := podFold(c.cachedJob(req.Namespace, req.JobName), req); ok {
			s.folds.add(id, req)
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
	full := s.folds.take(it.Req)
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
