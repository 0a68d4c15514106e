package expectations

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
)

// Expectations are the controller's own writes that its informers have
// not shown yet, in the spirit of the ReplicaSet controller's
// ControllerExpectations (k8s.io/kubernetes/pkg/controller): a create is
// expected before it is sent (ExpectPodCreation), the informer's add
// event observes it (CreationObserved), and until a job's expected
// creations are all observed the job's expectations are not Satisfied:
// its worker holds its requests back, since a step would judge the job
// without those pods and a kill would leave them alive. As there, an
// expectation is trusted for ttl only (a pod deleted before its add event
// was seen leaves no event at all after a relist).
//
// Unlike the ReplicaSet controller's counts, pods are tracked by name:
// a pod created and not yet in a step's snapshot is not created again
// (PodCreationExpected; it would be answered 409). PodGroups are tracked
// the same way: one created is not created again before the informer
// shows it, one deleted is not deleted again before the lister drops it
// (404). Those answers would count as success anyway; this saves the
// round trips. Safe for concurrent use.
type Expectations struct {
	ttl   time.Duration
	clock clock.PassiveClock

	mu sync.Mutex
	// pods are the pods created (namespace/name), with their job.
	pods map[string]*expectedPod
	// unobserved counts each job's created pods not observed yet.
	unobserved map[string]*unobservedPods
	// podGroupCreates are PodGroups created (namespace/name) and not
	// observed yet; podGroupDeletes PodGroups deleted (by UID) whose
	// delete the informer has not shown yet.
	podGroupCreates map[string]time.Time
	podGroupDeletes map[types.UID]struct{}
}

// expectedPod is a pod the controller created: when, for which job, and
// whether the informer has shown it since.
type expectedPod struct {
	at       time.Time
	job      string
	observed bool
}

// unobservedPods are a job's created pods the informer has not shown yet:
// how many, and when the last was created.
type unobservedPods struct {
	n    int
	last time.Time
}

// New returns empty Expectations, each trusted for 10 s on clk (the
// controller's clock).
func New(clk clock.PassiveClock) *Expectations {
	return &Expectations{ttl: 10 * time.Second, clock: clk, pods: map[string]*expectedPod{},
		unobserved: map[string]*unobservedPods{}, podGroupCreates: map[string]time.Time{}, podGroupDeletes: map[types.UID]struct{}{}}
}

// TTL is how long an expectation is trusted without its event: how long
// a worker keeps a job's requests back at most.
func (e *Expectations) TTL() time.Duration { return e.ttl }

// ExpectPodCreation records, before the create is sent, that the pod of
// key (namespace/name) of job (its key) is being created: its add event
// may come before the create's answer.
func (e *Expectations) ExpectPodCreation(key, job string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.clock.Now()
	if p, ok := e.pods[key]; ok {
		p.at = now
		return
	}
	e.pods[key] = &expectedPod{at: now, job: job}
	u := e.unobserved[job]
	if u == nil {
		u = &unobservedPods{}
		e.unobserved[job] = u
	}
	u.n++
	u.last = now
}

// PodCreationExpected reports whether the controller created the pod of
// key less than ttl ago and has not seen it deleted since. The pod's add
// event does not end it: a step whose snapshot was taken before that
// event still lacks the pod.
func (e *Expectations) PodCreationExpected(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, ok := e.pods[key]
	if ok && e.clock.Now().Sub(p.at) >= e.ttl {
		e.forget(key, p)
		return false
	}
	return ok
}

// CreationObserved: the informer showed the pod of key. It returns the
// pod's job, and satisfied when that was the last of the job's creations
// not observed yet (the job's waiting requests may go on).
func (e *Expectations) CreationObserved(key string) (job string, satisfied bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if p, ok := e.pods[key]; ok && !p.observed {
		p.observed = true
		return p.job, e.lower(p.job)
	}
	return "", false
}

// DeletionObserved: the pod of key is gone (its delete event, the
// controller deletes it, or its create failed), so a create of that name
// is a new pod's. It returns what CreationObserved does.
func (e *Expectations) DeletionObserved(key string) (job string, satisfied bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if p, ok := e.pods[key]; ok {
		return p.job, e.forget(key, p)
	}
	return "", false
}

// Satisfied reports whether every pod created for job has been observed
// (or trusted for ttl without it: then the wait ends for all of them).
func (e *Expectations) Satisfied(job string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	u := e.unobserved[job]
	if u == nil {
		return true
	}
	if e.clock.Now().Sub(u.last) < e.ttl {
		return false
	}
	for _, p := range e.pods {
		if p.job == job {
			p.observed = true
		}
	}
	delete(e.unobserved, job)
	return true
}

// Expire forgets the expectations older than ttl (the controller's GC
// calls it), so the record does not grow with every pod ever created.
func (e *Expectations) Expire() {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.clock.Now()
	for key, p := range e.pods {
		if now.Sub(p.at) >= e.ttl {
			e.forget(key, p)
		}
	}
	for key, at := range e.podGroupCreates {
		if now.Sub(at) >= e.ttl {
			delete(e.podGroupCreates, key)
		}
	}
}

func (e *Expectations) forget(key string, p *expectedPod) (satisfied bool) {
	delete(e.pods, key)
	if !p.observed {
		return e.lower(p.job)
	}
	return false
}

// lower counts one of job's unobserved creations off; satisfied reports
// it was the last.
func (e *Expectations) lower(job string) (satisfied bool) {
	if u := e.unobserved[job]; u != nil {
		if u.n--; u.n <= 0 {
			delete(e.unobserved, job)
			return true
		}
	}
	return false
}

// ExpectPodGroupCreation records that the PodGroup of key (namespace/name)
// exists now (created, or answered AlreadyExists). When its add event
// came first, the record outlives it; that is harmless: the lister holds
// the PodGroup, and its delete event ends the record.
func (e *Expectations) ExpectPodGroupCreation(key string) {
	e.mu.Lock()
	e.podGroupCreates[key] = e.clock.Now()
	e.mu.Unlock()
}

// PodGroupCreationExpected reports whether the PodGroup of key was created
// less than ttl ago and the informer has not shown it since.
func (e *Expectations) PodGroupCreationExpected(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	at, ok := e.podGroupCreates[key]
	if ok && e.clock.Now().Sub(at) >= e.ttl {
		delete(e.podGroupCreates, key)
		return false
	}
	return ok
}

// PodGroupObserved: the informer showed the PodGroup of key (added or
// deleted), or the controller deletes it: the lister speaks for it now.
func (e *Expectations) PodGroupObserved(key string) {
	e.mu.Lock()
	delete(e.podGroupCreates, key)
	e.mu.Unlock()
}

// ExpectPodGroupDeletion records that the PodGroup of uid was deleted.
func (e *Expectations) ExpectPodGroupDeletion(uid types.UID) {
	if uid == "" {
		return
	}
	e.mu.Lock()
	e.podGroupDeletes[uid] = struct{}{}
	e.mu.Unlock()
}

// PodGroupDeletionExpected reports whether the PodGroup of uid was deleted
// and the informer has not shown the delete yet.
func (e *Expectations) PodGroupDeletionExpected(uid types.UID) bool {
	if uid == "" {
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.podGroupDeletes[uid]
	return ok
}

// PodGroupDeletionObserved: the informer showed the PodGroup's delete.
func (e *Expectations) PodGroupDeletionObserved(uid types.UID) {
	e.mu.Lock()
	delete(e.podGroupDeletes, uid)
	e.mu.Unlock()
}
