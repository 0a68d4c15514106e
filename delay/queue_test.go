package delay

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/request"
)

func TestRegisterStoresEntry(t *testing.T) {
	q := New()
	req := pr{task: "w", pod: "j-w-0", uid: "u0", partition: "1", event: vcjob.PodFailedEvent}.req()
	target := request.TargetOf(vcjob.RestartPartitionAction, req)

	e, ok := q.Register(req, vcjob.RestartPartitionAction, target, sec(30), at(5))
	require.True(t, ok)
	assert.Equal(t, Entry{
		ID: 1, Request: req, Action: vcjob.RestartPartitionAction, Target: target,
		Delay: sec(30), Registered: at(5), Due: at(35),
	}, e)
	assert.Equal(t, 1, q.Len())
	assert.Equal(t, []Entry{e}, q.Pending("ns", "j"))

	e2 := mustRegister(t, q, pr{pod: "j-w-1", event: vcjob.PodFailedEvent}.req(), vcjob.RestartJobAction, sec(1), at(6))
	assert.Equal(t, uint64(2), e2.ID, "IDs increase by registration")
}

func TestRegisterNegativeOrZeroDelayIsDueAtOnce(t *testing.T) {
	for _, d := range []time.Duration{0, -sec(3)} {
		q := New()
		e := mustRegister(t, q, pr{pod: "p", event: vcjob.PodFailedEvent}.req(), vcjob.AbortJobAction, d, at(10))
		assert.Equal(t, at(10), e.Due, "delay %v", d)
		assert.Equal(t, d, e.Delay)
		assert.Equal(t, []uint64{1}, ids(q.Due(at(10))))
	}
}

func TestRegisterSamePod(t *testing.T) {
	first := pr{task: "w", pod: "j-w-0", uid: "u0", event: vcjob.PodFailedEvent}
	cases := []struct {
		name     string
		second   pr
		action   vcjob.Action
		accepted bool
	}{
		{"same pod same action same event: dropped", first, vcjob.RestartJobAction, false},
		{"same pod same action other event: dropped", pr{task: "w", pod: "j-w-0", uid: "u0", event: vcjob.PodEvictedEvent}, vcjob.RestartJobAction, false},
		{"same pod name other UID same action: dropped (UID not compared)", pr{task: "w", pod: "j-w-0", uid: "u9", event: vcjob.PodPendingEvent}, vcjob.RestartJobAction, false},
		{"same pod other action: replaces", first, vcjob.AbortJobAction, true},
		{"other pod same action: kept", pr{task: "w", pod: "j-w-1", uid: "u1", event: vcjob.PodFailedEvent}, vcjob.RestartJobAction, true},
		{"same pod name other job: kept", pr{job: "k", task: "w", pod: "j-w-0", uid: "u0", event: vcjob.PodFailedEvent}, vcjob.RestartJobAction, true},
		{"same pod name other namespace: kept", pr{ns: "other", task: "w", pod: "j-w-0", uid: "u0", event: vcjob.PodFailedEvent}, vcjob.RestartJobAction, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := New()
			e1 := mustRegister(t, q, first.req(), vcjob.RestartJobAction, sec(10), at(0))
			req2 := c.second.req()
			e2, ok := q.Register(req2, c.action, request.TargetOf(c.action, req2), sec(5), at(1))
			require.Equal(t, c.accepted, ok)
			if !c.accepted {
				assert.Equal(t, Entry{}, e2)
				assert.Equal(t, 1, q.Len())
				assert.Equal(t, []Entry{e1}, q.Due(at(100)), "the first registration is untouched")
				return
			}
			assert.Equal(t, uint64(2), e2.ID)
			assert.Equal(t, 2, q.Len())
			fired := q.Due(at(100))
			assert.Equal(t, []uint64{2, 1}, ids(fired), "both fire, in deadline order")
			assert.False(t, fired[0].Orphaned)
		})
	}
}

func TestRegisterOtherActionOrphansAndBothFire(t *testing.T) {
	q := New()
	req := pr{task: "w", pod: "j-w-0", uid: "u0", event: vcjob.PodFailedEvent}.req()
	old := mustRegister(t, q, req, vcjob.RestartPodAction, sec(10), at(0))
	repl := mustRegister(t, q, req, vcjob.AbortJobAction, sec(20), at(1))

	pending := q.Pending("ns", "j")
	require.Len(t, pending, 2)
	assert.True(t, pending[0].Orphaned, "the replaced entry is orphaned")
	assert.Equal(t, old.ID, pending[0].ID)
	assert.False(t, pending[1].Orphaned)

	// The pod index now holds AbortJob: registering the old action again is
	// not dropped, and orphans the AbortJob entry in turn.
	again := mustRegister(t, q, req, vcjob.RestartPodAction, sec(30), at(2))
	pending = q.Pending("ns", "j")
	assert.Equal(t, []uint64{old.ID, repl.ID, again.ID}, ids(pending))
	assert.Equal(t, []bool{true, true, false}, []bool{pending[0].Orphaned, pending[1].Orphaned, pending[2].Orphaned})

	// The index holds RestartPod now: RestartPod is dropped, whatever the
	// orphans hold.
	_, ok := q.Register(req, vcjob.RestartPodAction, request.TargetOf(vcjob.RestartPodAction, req), sec(1), at(3))
	assert.False(t, ok, "same action as the indexed entry is dropped")

	fired := q.Due(at(10))
	require.Len(t, fired, 1)
	assert.Equal(t, old.ID, fired[0].ID)
	assert.True(t, fired[0].Orphaned, "an orphaned entry still fires")
	assert.Equal(t, []uint64{repl.ID, again.ID}, ids(q.Due(at(40))))
	assert.Zero(t, q.Len())
}

func TestRegisterAfterFireOrCancelIsAccepted(t *testing.T) {
	q := New()
	req := pr{pod: "p", uid: "u", event: vcjob.PodFailedEvent}.req()
	mustRegister(t, q, req, vcjob.RestartJobAction, sec(1), at(0))
	require.Len(t, q.Due(at(1)), 1)
	mustRegister(t, q, req, vcjob.RestartJobAction, sec(1), at(2))
	running := req
	running.Event = vcjob.PodRunningEvent
	require.Len(t, q.CancelForPodEvent(running), 1)
	mustRegister(t, q, req, vcjob.RestartJobAction, sec(1), at(3))
	assert.Equal(t, 1, q.Len())
}

func TestDueOrder(t *testing.T) {
	type reg struct {
		pod   string
		delay int
		now   int
	}
	cases := []struct {
		name  string
		regs  []reg
		now   int
		want  []uint64
		after []uint64 // what is still pending, in order
	}{
		{"by deadline", []reg{{"a", 3, 0}, {"b", 1, 0}, {"c", 2, 0}}, 10, []uint64{2, 3, 1}, []uint64{}},
		{"ties by ID", []reg{{"a", 2, 0}, {"b", 2, 0}, {"c", 2, 0}}, 2, []uint64{1, 2, 3}, []uint64{}},
		{"tie reached from different registration times", []reg{{"a", 2, 0}, {"b", 1, 1}}, 2, []uint64{1, 2}, []uint64{}},
		{"tie, later ID registered earlier in time", []reg{{"a", 1, 1}, {"b", 2, 0}}, 2, []uint64{1, 2}, []uint64{}},
		{"deadline is inclusive", []reg{{"a", 5, 0}, {"b", 6, 0}}, 5, []uint64{1}, []uint64{2}},
		{"nothing due yet", []reg{{"a", 5, 0}}, 4, []uint64{}, []uint64{1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := New()
			for _, r := range c.regs {
				mustRegister(t, q, pr{pod: r.pod, event: vcjob.PodFailedEvent}.req(), vcjob.RestartJobAction, sec(r.delay), at(r.now))
			}
			got := q.Due(at(c.now))
			assert.Equal(t, c.want, ids(got))
			for _, e := range got {
				assert.False(t, e.Due.After(at(c.now)), "entry %d returned before its deadline", e.ID)
			}
			assert.Equal(t, c.after, ids(q.Pending("ns", "j")))
			assert.Empty(t, q.Due(at(c.now)), "a second call returns nothing new")
		})
	}
}

func TestDueOneNanosecondEarly(t *testing.T) {
	q := New()
	mustRegister(t, q, pr{pod: "a", event: vcjob.PodFailedEvent}.req(), vcjob.RestartJobAction, sec(5), at(0))
	assert.Empty(t, q.Due(at(5).Add(-time.Nanosecond)))
	assert.Len(t, q.Due(at(5)), 1)
}

func TestDueAcrossJobs(t *testing.T) {
	q := New()
	mustRegister(t, q, pr{job: "a", pod: "p", event: vcjob.PodFailedEvent}.req(), vcjob.RestartJobAction, sec(2), at(0))
	mustRegister(t, q, pr{job: "b", pod: "p", event: vcjob.PodFailedEvent}.req(), vcjob.RestartJobAction, sec(1), at(0))
	mustRegister(t, q, pr{job: "a", pod: "q", event: vcjob.PodFailedEvent}.req(), vcjob.AbortJobAction, sec(3), at(0))
	assert.Equal(t, []uint64{2, 1}, ids(q.Due(at(2))))
	assert.Nil(t, q.Pending("ns", "b"), "a job with nothing pending has no entries")
	assert.Equal(t, []uint64{3}, ids(q.Pending("ns", "a")))
}

func TestNext(t *testing.T) {
	q := New()
	_, ok := q.Next()
	assert.False(t, ok, "empty queue has no deadline")

	mustRegister(t, q, pr{pod: "a", event: vcjob.PodFailedEvent}.req(), vcjob.RestartJobAction, sec(5), at(0))
	next, ok := q.Next()
	require.True(t, ok)
	assert.Equal(t, at(5), next)

	b := pr{pod: "b", uid: "ub", event: vcjob.PodPendingEvent}
	mustRegister(t, q, b.req(), vcjob.RestartPodAction, sec(2), at(1))
	next, _ = q.Next()
	assert.Equal(t, at(3), next, "an earlier registration becomes next")

	mustRegister(t, q, pr{pod: "c", event: vcjob.PodFailedEvent}.req(), vcjob.RestartJobAction, sec(9), at(1))
	next, _ = q.Next()
	assert.Equal(t, at(3), next, "a later registration does not")

	running := b
	running.event = vcjob.PodRunningEvent
	require.Len(t, q.CancelForPodEvent(running.req()), 1)
	next, _ = q.Next()
	assert.Equal(t, at(5), next, "cancelling the head moves next on")

	require.Len(t, q.Due(at(5)), 1)
	next, _ = q.Next()
	assert.Equal(t, at(10), next)

	q.ForgetJob("ns", "j")
	_, ok = q.Next()
	assert.False(t, ok)
}

func TestPending(t *testing.T) {
	q := New()
	assert.Nil(t, q.Pending("ns", "j"))
	mustRegister(t, q, pr{pod: "a", event: vcjob.PodFailedEvent}.req(), vcjob.RestartJobAction, sec(5), at(0))
	mustRegister(t, q, pr{pod: "b", event: vcjob.PodFailedEvent}.req(), vcjob.RestartJobAction, sec(1), at(0))
	mustRegister(t, q, pr{job: "k", pod: "a", event: vcjob.PodFailedEvent}.req(), vcjob.RestartJobAction, sec(1), at(0))
	got := q.Pending("ns", "j")
	assert.Equal(t, []uint64{2, 1}, ids(got))
	got[0].Action = "changed"
	assert.Equal(t, vcjob.RestartJobAction, q.Pending("ns", "j")[0].Action, "Pending returns copies")
	assert.Equal(t, 3, q.Len(), "Pending removes nothing")
}

func TestForgetJob(t *testing.T) {
	q := New()
	req := pr{pod: "a", event: vcjob.PodFailedEvent}.req()
	mustRegister(t, q, req, vcjob.RestartJobAction, sec(5), at(0))
	mustRegister(t, q, req, vcjob.AbortJobAction, sec(1), at(0)) // orphans ID 1
	mustRegister(t, q, pr{pod: "b", event: vcjob.PodFailedEvent}.req(), vcjob.RestartJobAction, sec(3), at(0))
	other := mustRegister(t, q, pr{job: "k", pod: "a", event: vcjob.PodFailedEvent}.req(), vcjob.RestartJobAction, sec(2), at(0))
	otherNS := mustRegister(t, q, pr{ns: "ns2", pod: "a", event: vcjob.PodFailedEvent}.req(), vcjob.RestartJobAction, sec(4), at(0))

	got := q.ForgetJob("ns", "j")
	assert.Equal(t, []uint64{2, 3, 1}, ids(got), "all of the job's entries, orphans included, in deadline order")
	assert.True(t, got[2].Orphaned)
	assert.Nil(t, q.Pending("ns", "j"))
	assert.Nil(t, q.ForgetJob("ns", "j"))
	assert.Equal(t, 2, q.Len())
	assert.Equal(t, []Entry{other, otherNS}, q.Due(at(100)), "other jobs untouched")

	// A forgotten pod can register again.
	mustRegister(t, q, req, vcjob.RestartJobAction, sec(5), at(0))
}
