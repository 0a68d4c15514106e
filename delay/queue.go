package delay

import (
	"container/heap"
	"sort"
	"time"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/request"
)

// Entry is one delayed action: what was registered, for which request, and
// when it falls due.
type Entry struct {
	// ID is the registration number, increasing from 1 in the order of
	// Register calls. Entries due at the same time are ordered by ID.
	ID uint64
	// Request is the request that resolved to Action. Its namespace, job
	// name and pod name key the entry; its Event and PodUID decide whether
	// a pod event cancels it.
	Request request.Request
	Action  vcjob.Action
	// Target is what Action acts on; the library builds it with
	// request.TargetOf(Action, Request). Same-level cleanup compares it.
	Target     request.Target
	Delay      time.Duration
	Registered time.Time
	Due        time.Time
	// Orphaned is set once a newer registration with another action for the
	// same pod has taken this entry's place in the pod index. An orphaned
	// entry still fires, but neither pod events nor same-level cleanup can
	// cancel it any more; only Due and ForgetJob remove it. This reproduces
	// Volcano, whose map entry is overwritten while the old timer keeps
	// running.
	Orphaned bool
	// ByPodUID: the entry belongs to the pod UID of its request, not to
	// the pod's name (RegisterByPodUID, behavior.DelaysByPodUID).
	ByPodUID bool `json:",omitempty"`
}

// podKey is the entry's key in its job's pod index: the pod name, or, for
// an entry held by pod UID, the name and the UID.
func (e *Entry) podKey() string {
	if e.ByPodUID {
		return uidKey(e.Request.PodName, string(e.Request.PodUID))
	}
	return e.Request.PodName
}

// uidKey cannot be a pod name: names hold no NUL.
func uidKey(name, uid string) string { return name + "\x00" + uid }

// item is an entry held by the queue: the entry and its place in the heap.
type item struct {
	Entry
	index int // position in the heap
}

// jobEntries indexes one job's pending entries.
type jobEntries struct {
	// pods is Volcano's per-job map: pod name to the pod's current
	// registration (pod name and UID for entries held ByPodUID). Orphaned
	// entries are not in it.
	pods map[string]*item
	// all holds every pending entry of the job, orphaned ones included.
	all map[uint64]*item
	// byUID counts the entries of pods held ByPodUID, so that a job without
	// any costs a pod event no key to build.
	byUID int
}

// Queue holds delayed actions in deadline order, indexed by job and pod.
//
// A Queue is driven by the times its caller passes in; it starts no
// goroutine and reads no clock. It is not safe for concurrent use: the
// caller serialises every call (one job worker, or a lock as in the
// timerdriver package).
type Queue struct {
	lastID uint64
	heap   entryHeap
	jobs   map[string]*jobEntries
}

// New returns an empty queue.
func New() *Queue {
	return &Queue{jobs: make(map[string]*jobEntries)}
}

// Register schedules action, resolved from req, to run delay after now, under
// req's job and pod name, as Volcano keys them. A delay of zero or less is due at now.
//
// When req's pod already has a pending entry with the same action, the new
// registration is dropped and Register returns false. When the pod's
// pending entry has another action, the new entry takes its place in the
// pod index and the old one becomes Orphaned: it is not cancelled and still
// fires at its deadline. Volcano does exactly this (AddDelayActionForJob
// overwrites the pod's map entry without calling the old entry's cancel
// function), so two actions may fire for one pod.
func (q *Queue) Register(req request.Request, action vcjob.Action, target request.Target, delay time.Duration, now time.Time) (Entry, bool) {
	return q.register(req, action, target, delay, now, false)
}

// RegisterByPodUID is Register for a job under
// behavior.DelaysByPodUID: the entry belongs to req's pod UID. A
// pod re-created under the same name (another UID) has entries of its own:
// its registrations are neither dropped as duplicates of the old pod's nor
// orphan them, and its events do not cancel them (CancelForPodEvent).
func (q *Queue) RegisterByPodUID(req request.Request, action vcjob.Action, target request.Target, delay time.Duration, now time.Time) (Entry, bool) {
	return q.register(req, action, target, delay, now, true)
}

func (q *Queue) register(req request.Request, action vcjob.Action, target request.Target, delay time.Duration, now time.Time, byUID bool) (Entry, bool) {
	podKey := req.PodName
	if byUID {
		podKey = uidKey(req.PodName, string(req.PodUID))
	}
	key := req.Key()
	je := q.jobs[key]
	if je == nil {
		je = &jobEntries{pods: make(map[string]*item), all: make(map[uint64]*item)}
		q.jobs[key] = je
	}
	if old := je.pods[podKey]; old != nil {
		if old.Action == action {
			return Entry{}, false
		}
		// Reproduces Volcano: the old registration leaves the pod index
		// but its timer is left running.
		old.Orphaned = true
	}
	due := now
	if delay > 0 {
		due = now.Add(delay)
	}
	q.lastID++
	it := &item{Entry: Entry{
		ID:         q.lastID,
		Request:    req,
		Action:     action,
		Target:     target,
		Delay:      delay,
		Registered: now,
		Due:        due,
		ByPodUID:   byUID,
	}}
	je.pods[podKey] = it
	je.all[it.ID] = it
	if byUID {
		je.byUID++
	}
	heap.Push(&q.heap, it)
	return it.Entry, true
}

// Due removes and returns every entry due at or before now, orphaned ones
// included, in (Due, ID) order. The caller runs each on the job's state at
// that time and then calls CleanupAfter with its action and target.
func (q *Queue) Due(now time.Time) []Entry {
	var out []Entry
	for len(q.heap) > 0 && !q.heap[0].Due.After(now) {
		it := heap.Pop(&q.heap).(*item)
		q.unindex(it)
		out = append(out, it.Entry)
	}
	return out
}

// Next returns the earliest pending deadline, and false when nothing is
// pending.
func (q *Queue) Next() (time.Time, bool) {
	if len(q.heap) == 0 {
		return time.Time{}, false
	}
	return q.heap[0].Due, true
}

// Pending lists the job's pending entries, orphaned ones included, in
// (Due, ID) order.
func (q *Queue) Pending(namespace, job string) []Entry {
	je := q.jobs[request.JobKey(namespace, job)]
	if je == nil {
		return nil
	}
	out := make([]Entry, 0, len(je.all))
	for _, it := range je.all {
		out = append(out, it.Entry)
	}
	sortEntries(out)
	return out
}

// ForgetJob drops every pending entry of the job, orphaned ones included,
// and returns them in (Due, ID) order. Call it when the job is deleted.
//
// Volcano never clears its map when a job goes away: its timers fire, find
// no job in the cache and do nothing. Dropping them is the same unless a job
// of the same name is created before a deadline, in which case Volcano
// would run the old action on the new job.
func (q *Queue) ForgetJob(namespace, job string) []Entry {
	key := request.JobKey(namespace, job)
	je := q.jobs[key]
	if je == nil {
		return nil
	}
	out := make([]Entry, 0, len(je.all))
	for _, it := range je.all {
		heap.Remove(&q.heap, it.index)
		out = append(out, it.Entry)
	}
	delete(q.jobs, key)
	sortEntries(out)
	return out
}

// Len is the number of pending entries, orphaned ones included.
func (q *Queue) Len() int { return len(q.heap) }

// remove takes a pending entry out of the heap and the job index.
func (q *Queue) remove(it *item) {
	heap.Remove(&q.heap, it.index)
	q.unindex(it)
}

// unindex takes an entry that has left the heap out of the job index.
func (q *Queue) unindex(it *item) {
	key := it.Request.Key()
	je := q.jobs[key] // present: every pending entry's job is indexed
	delete(je.all, it.ID)
	if k := it.podKey(); je.pods[k] == it {
		delete(je.pods, k)
	}
	if it.ByPodUID {
		je.byUID--
	}
	if len(je.all) == 0 {
		delete(q.jobs, key)
	}
}

func sortEntries(es []Entry) {
	sort.Slice(es, func(i, j int) bool { return entryLess(&es[i], &es[j]) })
}

func entryLess(a, b *Entry) bool {
	if !a.Due.Equal(b.Due) {
		return a.Due.Before(b.Due)
	}
	return a.ID < b.ID
}

// entryHeap is a min-heap of items by (Due, ID) for container/heap.
type entryHeap []*item

func (h entryHeap) Len() int           { return len(h) }
func (h entryHeap) Less(i, j int) bool { return entryLess(&h[i].Entry, &h[j].Entry) }
func (h entryHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}

func (h *entryHeap) Push(x any) {
	it := x.(*item)
	it.index = len(*h)
	*h = append(*h, it)
}

func (h *entryHeap) Pop() any {
	old := *h
	n := len(old)
	it := old[n-1]
	old[n-1] = nil
	it.index = -1
	*h = old[:n-1]
	return it
}
