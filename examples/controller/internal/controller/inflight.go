package controller

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// inFlight remembers the controller's own writes that its informers have
// not shown yet, so that it does not send them again: a pod or a
// PodGroup it created (a sync that runs before the add event would
// create it again, and be answered 409), and a PodGroup it deleted
// (every kill of a finished job deletes the PodGroup, and the lister
// holds it until the delete event, so the next kill would be answered
// 404). These answers count as success anyway; this saves the round
// trips. Safe for concurrent use.
type inFlight struct {
	// ttl bounds how long a created pod is trusted to exist without the
	// informer showing it (a pod deleted before its add event was seen
	// leaves no event at all after a relist).
	ttl time.Duration
	now func() time.Time

	mu        sync.Mutex
	pods      map[string]*createdPod // namespace/name
	unseen    map[string]*unseenPods // job key
	podGroups map[types.UID]struct{}
	// createdPGs are the PodGroups created (namespace/name) that the
	// informer has not shown yet, with when.
	createdPGs map[string]time.Time
}

// unseenPods are a job's created pods the informer has not shown yet:
// how many, and when the last was created.
type unseenPods struct {
	n    int
	last time.Time
}

// createdPod is a pod the controller created: when, for which job, and
// whether the informer has shown it since.
type createdPod struct {
	at   time.Time
	job  string
	seen bool
}

func newInFlight(now func() time.Time) *inFlight {
	return &inFlight{ttl: 10 * time.Second, now: now, pods: map[string]*createdPod{}, unseen: map[string]*unseenPods{},
		podGroups: map[types.UID]struct{}{}, createdPGs: map[string]time.Time{}}
}

// podCreated reports whether the controller created the pod of key less
// than ttl ago and has not seen it deleted since. The pod's add event
// does not end it: a step whose snapshot was taken before that event
// still lacks the pod.
func (f *inFlight) podCreated(key string) bool {
	if f == nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	e, ok := f.pods[key]
	if ok && f.now().Sub(e.at) >= f.ttl {
		f.drop(key, e)
		return false
	}
	return ok
}

// createdPod records that the pod of key, of job (its key), exists now.
func (f *inFlight) createdPod(key, job string) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok := f.pods[key]; ok {
		e.at = f.now()
		return
	}
	now := f.now()
	f.pods[key] = &createdPod{at: now, job: job}
	u := f.unseen[job]
	if u == nil {
		u = &unseenPods{}
		f.unseen[job] = u
	}
	u.n++
	u.last = now
}

// addedPod: the informer showed the pod; the job's steps may see it.
// It returns the job's key when that was the last of the job's created
// pods not shown yet (the job's waiting requests may go on).
func (f *inFlight) addedPod(key string) (job string, last bool) {
	if f == nil {
		return "", false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok := f.pods[key]; ok && !e.seen {
		e.seen = true
		return e.job, f.decUnseen(e.job)
	}
	return "", false
}

// seenPod: the pod was deleted (its informer event, or the controller
// deletes it): a create of that name is a new pod's. It returns what
// addedPod does.
func (f *inFlight) seenPod(key string) (job string, last bool) {
	if f == nil {
		return "", false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok := f.pods[key]; ok {
		return e.job, f.drop(key, e)
	}
	return "", false
}

// awaiting reports whether job has pods the controller created that the
// informer has not shown yet (for less than ttl): a step now would judge
// the job without them, and a kill would leave them alive.
func (f *inFlight) awaiting(job string) bool {
	if f == nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	u := f.unseen[job]
	if u == nil {
		return false
	}
	if f.now().Sub(u.last) < f.ttl {
		return true
	}
	// Not one shown for ttl: stop waiting for any of them.
	for _, e := range f.pods {
		if e.job == job {
			e.seen = true
		}
	}
	delete(f.unseen, job)
	return false
}

// expire forgets the created pods older than ttl (the controller's GC
// calls it), so the record does not grow with every pod ever created.
func (f *inFlight) expire() {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	for key, e := range f.pods {
		if now.Sub(e.at) >= f.ttl {
			f.drop(key, e)
		}
	}
	for key, at := range f.createdPGs {
		if now.Sub(at) >= f.ttl {
			delete(f.createdPGs, key)
		}
	}
}

func (f *inFlight) drop(key string, e *createdPod) (last bool) {
	delete(f.pods, key)
	if !e.seen {
		return f.decUnseen(e.job)
	}
	return false
}

// decUnseen counts one of job's unseen pods off; last reports it was the
// last.
func (f *inFlight) decUnseen(job string) (last bool) {
	if u := f.unseen[job]; u != nil {
		if u.n--; u.n <= 0 {
			delete(f.unseen, job)
			return true
		}
	}
	return false
}
func (f *inFlight) podGroupDeleted(uid types.UID) bool {
	if f == nil || uid == "" {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.podGroups[uid]
	return ok
}

func (f *inFlight) deletedPodGroup(uid types.UID) {
	if f == nil || uid == "" {
		return
	}
	f.mu.Lock()
	f.podGroups[uid] = struct{}{}
	f.mu.Unlock()
}

// seenPodGroupGone: the informer showed the PodGroup's delete.
func (f *inFlight) seenPodGroupGone(uid types.UID) {
	if f == nil {
		return
	}
	f.mu.Lock()
	delete(f.podGroups, uid)
	f.mu.Unlock()
}

// podGroupCreated reports whether the controller created the PodGroup of
// key (namespace/name), or was told it exists, less than ttl ago and the
// informer has not shown it since.
func (f *inFlight) podGroupCreated(key string) bool {
	if f == nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	at, ok := f.createdPGs[key]
	if ok && f.now().Sub(at) >= f.ttl {
		delete(f.createdPGs, key)
		return false
	}
	return ok
}

// createdPodGroup records that the PodGroup of key exists now. When its
// add event came first, the record outlives it; that is harmless: the
// lister holds the PodGroup, and its delete event ends the record.
func (f *inFlight) createdPodGroup(key string) {
	if f == nil {
		return
	}
	f.mu.Lock()
	f.createdPGs[key] = f.now()
	f.mu.Unlock()
}

// seenPodGroup: the informer showed the PodGroup of key (added, or
// deleted), or the controller deletes it: the lister speaks for it from
// now on.
func (f *inFlight) seenPodGroup(key string) {
	if f == nil {
		return
	}
	f.mu.Lock()
	delete(f.createdPGs, key)
	f.mu.Unlock()
}
