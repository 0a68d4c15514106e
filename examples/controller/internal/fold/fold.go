package fold

import (
	"sync"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/request"
)

// Identity is the queue identity of req: req without its pod, when job is
// known and reads no request's pod (PodKeyed); ok is false when req must
// be queued as it is.
func Identity(job *vcjob.Job, req request.Request) (id request.Request, ok bool) {
	if job == nil || req.Action != "" || PodKeyed(job) {
		return req, false
	}
	id = req
	id.PodName, id.PodUID, id.PartitionID, id.Disrupted = "", "", "", false
	return id, id != req
}

// PodKeyed reports whether a step of job can read a request's pod: a
// policy with a timeout registers its delayed action under the pod (and
// the pod's later events cancel it), RestartPod and RestartPartition act
// on the pod and its partition, and policy extensions read the
// disruption and keep per-pod history.
func PodKeyed(job *vcjob.Job) bool {
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

// Store holds the full requests queued under each identity, in order,
// until the worker takes them. Handlers add, the worker takes; safe for
// concurrent use. The zero Store is ready.
type Store struct {
	mu sync.Mutex
	by map[request.Request]*group
}

// group is what one identity holds: its requests in order, and the set of
// them, so that an identical request merges in O(1) however many pods a
// task has.
type group struct {
	reqs []request.Request
	seen map[request.Request]struct{}
}

// Add keeps req under id, once: an identical request waiting is merged,
// as the queue merges it.
func (s *Store) Add(id, req request.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.by == nil {
		s.by = map[request.Request]*group{}
	}
	g := s.by[id]
	if g == nil {
		g = &group{seen: map[request.Request]struct{}{}}
		s.by[id] = g
	}
	if _, dup := g.seen[req]; dup {
		return
	}
	g.seen[req] = struct{}{}
	g.reqs = append(g.reqs, req)
}

// Take hands over (and forgets) the requests kept under id.
func (s *Store) Take(id request.Request) []request.Request {
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
func (s *Store) Peek(id request.Request) []request.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g := s.by[id]; g != nil {
		return append([]request.Request(nil), g.reqs...)
	}
	return nil
}

// Len is the number of identities with requests kept.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.by)
}

// Forget drops what is kept for the job namespace/name: its queued items
// were dropped with it.
func (s *Store) Forget(namespace, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id := range s.by {
		if id.Namespace == namespace && id.JobName == name {
			delete(s.by, id)
		}
	}
}
