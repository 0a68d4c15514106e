package controller

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// inFlight remembers the controller's own writes that its informers have
// not shown yet, so that it does not send them again: a pod it created (a
// sync that runs before the pod's add event would create it again, and
// be answered 409), and a PodGroup it deleted (every kill of a finished
// job deletes the PodGroup, and the lister holds it until the delete
// event, so the next kill would be answered 404). Both answers count as
// success anyway; this saves the round trips. Safe for concurrent use.
type inFlight struct {
	// ttl bounds how long a created pod is trusted to exist without the
	// informer showing it (a pod deleted before its add event was seen
	// leaves no event at all after a relist).
	ttl time.Duration
	now func() time.Time

	mu        sync.Mutex
	pods      map[string]time.Time // namespace/name -> created at
	podGroups map[types.UID]struct{}
}

func newInFlight(now func() time.Time) *inFlight {
	return &inFlight{ttl: 10 * time.Second, now: now, pods: map[string]time.Time{}, podGroups: map[types.UID]struct{}{}}
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
	at, ok := f.pods[key]
	if ok && f.now().Sub(at) >= f.ttl {
		delete(f.pods, key)
		return false
	}
	return ok
}

func (f *inFlight) createdPod(key string) {
	if f == nil {
		return
	}
	f.mu.Lock()
	f.pods[key] = f.now()
	f.mu.Unlock()
}

// seenPod: the pod was deleted (its informer event, or the controller
// deletes it): a create of that name is a new pod's.
func (f *inFlight) seenPod(key string) {
	if f == nil {
		return
	}
	f.mu.Lock()
	delete(f.pods, key)
	f.mu.Unlock()
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
