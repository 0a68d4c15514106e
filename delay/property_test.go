package delay

import (
	"sort"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/request"
)

// model is a deliberately naive re-statement of the delay rules (linear scans over
// every entry ever registered) that the Queue is checked against.
type model struct {
	entries []*modelEntry             // by ID-1
	index   map[[3]string]*modelEntry // namespace, job, pod -> the pod's current entry
	seen    map[uint64]int            // how often each ID left the queue
}

type modelEntry struct {
	Entry
	live bool
}

func podKey(r request.Request) [3]string { return [3]string{r.Namespace, r.JobName, r.PodName} }

func (m *model) live() []*modelEntry {
	var out []*modelEntry
	for _, e := range m.entries {
		if e.live {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return entryLess(&out[i].Entry, &out[j].Entry) })
	return out
}

func (m *model) take(es []*modelEntry) []Entry {
	sort.Slice(es, func(i, j int) bool { return entryLess(&es[i].Entry, &es[j].Entry) })
	var out []Entry
	for _, e := range es {
		e.live = false
		if m.index[podKey(e.Request)] == e {
			delete(m.index, podKey(e.Request))
		}
		out = append(out, e.Entry)
	}
	return out
}

func (m *model) register(req request.Request, action vcjob.Action, target request.Target, d time.Duration, now time.Time) (Entry, bool) {
	if cur := m.index[podKey(req)]; cur != nil {
		if cur.Action == action {
			return Entry{}, false
		}
		cur.Orphaned = true
	}
	due := now
	if d > 0 {
		due = now.Add(d)
	}
	e := &modelEntry{live: true, Entry: Entry{
		ID: uint64(len(m.entries) + 1), Request: req, Action: action, Target: target,
		Delay: d, Registered: now, Due: due,
	}}
	m.entries = append(m.entries, e)
	m.index[podKey(req)] = e
	return e.Entry, true
}

func (m *model) cancelForPodEvent(req request.Request) []Entry {
	if req.Event != vcjob.PodRunningEvent && req.Event != vcjob.PodFailedEvent && req.Event != vcjob.PodEvictedEvent {
		return nil
	}
	cur := m.index[podKey(req)]
	if cur == nil {
		return nil
	}
	ev := cur.Request.Event
	if (ev == vcjob.PodPendingEvent && req.PodUID == cur.Request.PodUID) ||
		((ev == vcjob.PodFailedEvent || ev == vcjob.PodEvictedEvent) && req.Event == vcjob.PodRunningEvent) {
		return m.take([]*modelEntry{cur})
	}
	return nil
}

func (m *model) cleanupAfter(ns, job string, action vcjob.Action, target request.Target) []Entry {
	if action.IsInternal() {
		return nil
	}
	var victims []*modelEntry
	for _, e := range m.live() {
		if e.Request.Namespace != ns || e.Request.JobName != job || m.index[podKey(e.Request)] != e {
			continue
		}
		if e.Action.Level() != action.Level() {
			continue
		}
		switch action.Level() {
		case vcjob.TaskLevel:
			if e.Target.TaskName != target.TaskName {
				continue
			}
		case vcjob.PodLevel:
			if e.Target.PodName != target.PodName {
				continue
			}
		case vcjob.PartitionLevel:
			if e.Target.PartitionID != target.PartitionID {
				continue
			}
		}
		victims = append(victims, e)
	}
	return m.take(victims)
}

func (m *model) due(now time.Time) []Entry {
	var victims []*modelEntry
	for _, e := range m.live() {
		if !e.Due.After(now) {
			victims = append(victims, e)
		}
	}
	return m.take(victims)
}

func (m *model) forget(ns, job string) []Entry {
	var victims []*modelEntry
	for _, e := range m.live() {
		if e.Request.Namespace == ns && e.Request.JobName == job {
			victims = append(victims, e)
		}
	}
	return m.take(victims)
}

func (m *model) pending(ns, job string) []Entry {
	var out []Entry
	for _, e := range m.live() {
		if e.Request.Namespace == ns && e.Request.JobName == job {
			out = append(out, e.Entry)
		}
	}
	return out
}

var (
	propNamespaces = []string{"ns1", "ns2"}
	propJobs       = []string{"a", "b"}
	propTasks      = []string{"t0", "t1"}
	propPods       = []string{"p0", "p1", "p2"}
	propUIDs       = []types.UID{"", "u0", "u1"}
	propPartitions = []string{"", "0", "1"}
	propEvents     = []vcjob.Event{
		vcjob.PodPendingEvent, vcjob.PodFailedEvent, vcjob.PodEvictedEvent, vcjob.PodRunningEvent,
		vcjob.TaskFailedEvent, vcjob.TaskCompletedEvent, vcjob.OutOfSyncEvent, vcjob.JobUnknownEvent,
	}
	propActions = append(vcjob.PolicyActions(), vcjob.SyncJobAction, vcjob.EnqueueAction)
)

func drawRequest(t *rapid.T, label string) request.Request {
	return request.Request{
		Namespace:   rapid.SampledFrom(propNamespaces).Draw(t, label+".ns"),
		JobName:     rapid.SampledFrom(propJobs).Draw(t, label+".job"),
		TaskName:    rapid.SampledFrom(propTasks).Draw(t, label+".task"),
		PodName:     rapid.SampledFrom(propPods).Draw(t, label+".pod"),
		PodUID:      rapid.SampledFrom(propUIDs).Draw(t, label+".uid"),
		PartitionID: rapid.SampledFrom(propPartitions).Draw(t, label+".partition"),
		Event:       rapid.SampledFrom(propEvents).Draw(t, label+".event"),
	}
}

// TestQueueMatchesModel drives a Queue and the naive model with the same
// random sequence of calls at non-decreasing times and checks, after every
// call, that they agree, and that
//
//	(a) every accepted registration leaves the queue exactly once, through
//	    Due, a cancellation or ForgetJob (checked at the end by draining);
//	(b) Due never returns an entry before its deadline, and leaves nothing
//	    due behind;
//	(c) Next is the minimum deadline of the pending entries.
func TestQueueMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		q := New()
		m := &model{index: map[[3]string]*modelEntry{}, seen: map[uint64]int{}}
		now := t0
		accepted := map[uint64]bool{}

		left := func(what string, got, want []Entry) {
			if !equalEntries(got, want) {
				t.Fatalf("%s: queue returned %v, model %v", what, got, want)
			}
			for _, e := range got {
				if !accepted[e.ID] {
					t.Fatalf("%s returned entry %d that was never accepted", what, e.ID)
				}
				m.seen[e.ID]++
				if m.seen[e.ID] > 1 {
					t.Fatalf("%s returned entry %d a second time", what, e.ID)
				}
			}
		}

		t.Repeat(map[string]func(*rapid.T){
			"tick": func(t *rapid.T) {
				now = now.Add(time.Duration(rapid.IntRange(0, 3).Draw(t, "tick")) * time.Second)
			},
			"register": func(t *rapid.T) {
				req := drawRequest(t, "req")
				action := rapid.SampledFrom(propActions).Draw(t, "action")
				d := time.Duration(rapid.IntRange(-1, 5).Draw(t, "delay")) * time.Second
				target := request.TargetOf(action, req)
				got, ok := q.Register(req, action, target, d, now)
				want, wantOK := m.register(req, action, target, d, now)
				if ok != wantOK || got != want {
					t.Fatalf("Register: queue (%v, %v), model (%v, %v)", got, ok, want, wantOK)
				}
				if ok {
					accepted[got.ID] = true
				}
			},
			"cancelForPodEvent": func(t *rapid.T) {
				req := drawRequest(t, "event")
				left("CancelForPodEvent", q.CancelForPodEvent(req), m.cancelForPodEvent(req))
			},
			"cleanupAfter": func(t *rapid.T) {
				req := drawRequest(t, "ran")
				action := rapid.SampledFrom(propActions).Draw(t, "action")
				target := request.TargetOf(action, req)
				left("CleanupAfter",
					q.CleanupAfter(req.Namespace, req.JobName, action, target),
					m.cleanupAfter(req.Namespace, req.JobName, action, target))
			},
			"due": func(t *rapid.T) {
				got := q.Due(now)
				for _, e := range got {
					if e.Due.After(now) { // (b)
						t.Fatalf("Due(%v) returned entry %d due at %v", now, e.ID, e.Due)
					}
				}
				left("Due", got, m.due(now))
				for _, e := range m.live() {
					if !e.Due.After(now) {
						t.Fatalf("Due(%v) left entry %d due at %v behind", now, e.ID, e.Due)
					}
				}
			},
			"forgetJob": func(t *rapid.T) {
				ns := rapid.SampledFrom(propNamespaces).Draw(t, "ns")
				job := rapid.SampledFrom(propJobs).Draw(t, "job")
				left("ForgetJob", q.ForgetJob(ns, job), m.forget(ns, job))
			},
			"pending": func(t *rapid.T) {
				ns := rapid.SampledFrom(propNamespaces).Draw(t, "ns")
				job := rapid.SampledFrom(propJobs).Draw(t, "job")
				if got, want := q.Pending(ns, job), m.pending(ns, job); !equalEntries(got, want) {
					t.Fatalf("Pending(%s/%s): queue %v, model %v", ns, job, got, want)
				}
			},
			"": func(t *rapid.T) { // checked after every call
				live := m.live()
				if q.Len() != len(live) {
					t.Fatalf("Len %d, model %d", q.Len(), len(live))
				}
				next, ok := q.Next() // (c)
				if ok != (len(live) > 0) {
					t.Fatalf("Next ok=%v with %d pending", ok, len(live))
				}
				if ok {
					min := live[0].Due
					for _, e := range live {
						if e.Due.Before(min) {
							min = e.Due
						}
					}
					if !next.Equal(min) {
						t.Fatalf("Next %v, minimum pending deadline %v", next, min)
					}
				}
			},
		})

		// (a): drain what is left; every accepted entry must have left
		// exactly once.
		left("final Due", q.Due(now.Add(time.Hour)), m.due(now.Add(time.Hour)))
		if q.Len() != 0 {
			t.Fatalf("Len %d after draining", q.Len())
		}
		for id := range accepted {
			if m.seen[id] != 1 {
				t.Fatalf("entry %d left the queue %d times", id, m.seen[id])
			}
		}
	})
}

func equalEntries(a, b []Entry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
