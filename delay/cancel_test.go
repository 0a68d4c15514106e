package delay

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/request"
)

func TestCancelForPodEvent(t *testing.T) {
	const (
		pending = vcjob.PodPendingEvent
		failed  = vcjob.PodFailedEvent
		evicted = vcjob.PodEvictedEvent
		running = vcjob.PodRunningEvent
	)
	pod := func(uid string, ev vcjob.Event) pr { return pr{task: "w", pod: "j-w-0", uid: typesUID(uid), event: ev} }
	cases := []struct {
		name       string
		registered pr
		event      pr
		cancelled  bool
	}{
		{"PodPending then PodRunning, same UID", pod("u1", pending), pod("u1", running), true},
		{"PodPending then PodFailed, same UID", pod("u1", pending), pod("u1", failed), true},
		{"PodPending then PodEvicted, same UID", pod("u1", pending), pod("u1", evicted), true},
		{"PodPending then PodRunning, other UID (recreated pod)", pod("u1", pending), pod("u2", running), false},
		{"PodPending then PodEvicted, other UID", pod("u1", pending), pod("u2", evicted), false},
		{"PodPending then PodPending, same UID: PodPending never cancels", pod("u1", pending), pod("u1", pending), false},
		{"PodPending then TaskFailed, same UID: not a pod event", pod("u1", pending), pod("u1", vcjob.TaskFailedEvent), false},
		{"PodPending then TaskCompleted, same UID: not a pod event", pod("u1", pending), pod("u1", vcjob.TaskCompletedEvent), false},
		{"PodPending then OutOfSync, same UID: not a pod event", pod("u1", pending), pod("u1", vcjob.OutOfSyncEvent), false},
		{"PodPending then PodRunning, both UIDs empty", pod("", pending), pod("", running), true},
		{"PodFailed then PodRunning", pod("u1", failed), pod("u1", running), true},
		{"PodFailed then PodRunning, other UID (not compared)", pod("u1", failed), pod("u2", running), true},
		{"PodEvicted then PodRunning", pod("u1", evicted), pod("u1", running), true},
		{"PodFailed then PodFailed", pod("u1", failed), pod("u1", failed), false},
		{"PodFailed then PodEvicted", pod("u1", failed), pod("u1", evicted), false},
		{"PodEvicted then PodFailed", pod("u1", evicted), pod("u1", failed), false},
		{"PodFailed then PodPending", pod("u1", failed), pod("u1", pending), false},
		{"PodFailed then TaskFailed", pod("u1", failed), pod("u1", vcjob.TaskFailedEvent), false},
		{"TaskFailed then PodRunning: only pending/failed/evicted registrations cancel", pod("u1", vcjob.TaskFailedEvent), pod("u1", running), false},
		{"Unknown then PodRunning", pod("u1", vcjob.JobUnknownEvent), pod("u1", running), false},
		{"PodFailed then PodRunning of another pod", pod("u1", failed), pr{task: "w", pod: "j-w-1", uid: "u1", event: running}, false},
		{"PodFailed then PodRunning of the same pod name in another job", pod("u1", failed), pr{job: "k", task: "w", pod: "j-w-0", uid: "u1", event: running}, false},
		{"PodPending then PodRunning of the same pod name in another namespace", pod("u1", pending), pr{ns: "ns2", task: "w", pod: "j-w-0", uid: "u1", event: running}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := New()
			e := mustRegister(t, q, c.registered.req(), vcjob.RestartPodAction, sec(10), at(0))
			bystander := mustRegister(t, q, pr{task: "w", pod: "j-w-9", uid: "u1", event: c.registered.event}.req(), vcjob.RestartPodAction, sec(10), at(0))

			got := q.CancelForPodEvent(c.event.req())
			if c.cancelled {
				assert.Equal(t, []Entry{e}, got)
				assert.Equal(t, []Entry{bystander}, q.Pending("ns", "j"))
			} else {
				assert.Empty(t, got)
				assert.Equal(t, []Entry{e, bystander}, q.Pending("ns", "j"))
			}
		})
	}
}

func TestCancelForPodEventIgnoresOrphans(t *testing.T) {
	q := New()
	failedReq := pr{task: "w", pod: "j-w-0", uid: "u1", event: vcjob.PodFailedEvent}.req()
	orphan := mustRegister(t, q, failedReq, vcjob.RestartPodAction, sec(10), at(0))
	pendingReq := pr{task: "w", pod: "j-w-0", uid: "u1", event: vcjob.PodPendingEvent}.req()
	current := mustRegister(t, q, pendingReq, vcjob.AbortJobAction, sec(20), at(1))

	running := pr{task: "w", pod: "j-w-0", uid: "u1", event: vcjob.PodRunningEvent}.req()
	got := q.CancelForPodEvent(running)
	assert.Equal(t, []Entry{current}, got, "only the indexed (PodPending) entry is cancelled")
	assert.Empty(t, q.CancelForPodEvent(running), "the orphaned PodFailed entry cannot be cancelled")

	fired := q.Due(at(10))
	require.Len(t, fired, 1)
	assert.Equal(t, orphan.ID, fired[0].ID)
	assert.True(t, fired[0].Orphaned)
}

func TestCancelForPodEventUnknownJobOrPod(t *testing.T) {
	q := New()
	assert.Nil(t, q.CancelForPodEvent(pr{pod: "p", event: vcjob.PodRunningEvent}.req()))
	mustRegister(t, q, pr{pod: "p", event: vcjob.PodFailedEvent}.req(), vcjob.RestartJobAction, sec(1), at(0))
	assert.Nil(t, q.CancelForPodEvent(pr{pod: "q", event: vcjob.PodRunningEvent}.req()))
	assert.Equal(t, 1, q.Len())
}

// cleanupFixture registers, for job ns/j, two entries of every level, plus
// the same set for ns/k and ns2/j, and returns the IDs of ns/j's entries by
// name.
func cleanupFixture(t *testing.T, q *Queue) map[string]uint64 {
	t.Helper()
	type reg struct {
		name                 string
		task, pod, partition string
		action               vcjob.Action
	}
	regs := []reg{
		{"abortA0", "a", "a-0", "", vcjob.AbortJobAction},
		{"restartJobB0", "b", "b-0", "", vcjob.RestartJobAction},
		{"taskA1", "a", "a-1", "", vcjob.RestartTaskAction},
		{"taskB1", "b", "b-1", "", vcjob.RestartTaskAction},
		{"podA2", "a", "a-2", "", vcjob.RestartPodAction},
		{"podA3", "a", "a-3", "", vcjob.RestartPodAction},
		{"partA4p0", "a", "a-4", "0", vcjob.RestartPartitionAction},
		{"partA5p1", "a", "a-5", "1", vcjob.RestartPartitionAction},
		{"partB2p0", "b", "b-2", "0", vcjob.RestartPartitionAction},
	}
	out := map[string]uint64{}
	for _, job := range []struct{ ns, job string }{{"ns", "j"}, {"ns", "k"}, {"ns2", "j"}} {
		for i, r := range regs {
			req := pr{ns: job.ns, job: job.job, task: r.task, pod: r.pod, partition: r.partition, uid: typesUID(r.pod), event: vcjob.PodFailedEvent}.req()
			e := mustRegister(t, q, req, r.action, sec(10+i), at(0))
			if job.ns == "ns" && job.job == "j" {
				out[r.name] = e.ID
			}
		}
	}
	return out
}

func TestCleanupAfter(t *testing.T) {
	job := request.Target{Level: vcjob.JobLevel}
	cases := []struct {
		name   string
		action vcjob.Action
		target request.Target
		want   []string
	}{
		{"SyncJob cancels nothing", vcjob.SyncJobAction, job, nil},
		{"EnqueueJob cancels nothing", vcjob.EnqueueAction, job, nil},
		{"SyncQueue cancels nothing", vcjob.SyncQueueAction, job, nil},
		{"OpenQueue cancels nothing", vcjob.OpenQueueAction, job, nil},
		{"CloseQueue cancels nothing", vcjob.CloseQueueAction, job, nil},
		{"AbortJob cancels every job-level entry", vcjob.AbortJobAction, job, []string{"abortA0", "restartJobB0"}},
		{"RestartJob cancels every job-level entry", vcjob.RestartJobAction, job, []string{"abortA0", "restartJobB0"}},
		{"TerminateJob cancels every job-level entry", vcjob.TerminateJobAction, job, []string{"abortA0", "restartJobB0"}},
		{"CompleteJob cancels every job-level entry", vcjob.CompleteJobAction, job, []string{"abortA0", "restartJobB0"}},
		{"ResumeJob cancels every job-level entry", vcjob.ResumeJobAction, job, []string{"abortA0", "restartJobB0"}},
		{"RestartTask a cancels task a's task-level entries", vcjob.RestartTaskAction,
			request.Target{Level: vcjob.TaskLevel, TaskName: "a"}, []string{"taskA1"}},
		{"RestartTask c cancels nothing", vcjob.RestartTaskAction,
			request.Target{Level: vcjob.TaskLevel, TaskName: "c"}, nil},
		{"RestartPod a-2 cancels that pod's pod-level entry", vcjob.RestartPodAction,
			request.Target{Level: vcjob.PodLevel, TaskName: "a", PodName: "a-2"}, []string{"podA2"}},
		{"RestartPod a-0 cancels nothing (a-0 holds a job-level entry)", vcjob.RestartPodAction,
			request.Target{Level: vcjob.PodLevel, TaskName: "a", PodName: "a-0"}, nil},
		{"RestartPod compares pod names only, as Volcano", vcjob.RestartPodAction,
			request.Target{Level: vcjob.PodLevel, TaskName: "other", PodName: "a-3"}, []string{"podA3"}},
		{"RestartPartition 1 of task a", vcjob.RestartPartitionAction,
			request.Target{Level: vcjob.PartitionLevel, TaskName: "a", PodName: "a-5", PartitionID: "1"}, []string{"partA5p1"}},
		{"RestartPartition 0 of task a also cancels task b's partition 0, as Volcano", vcjob.RestartPartitionAction,
			request.Target{Level: vcjob.PartitionLevel, TaskName: "a", PodName: "a-4", PartitionID: "0"}, []string{"partA4p0", "partB2p0"}},
		{"RestartPartition 7 cancels nothing", vcjob.RestartPartitionAction,
			request.Target{Level: vcjob.PartitionLevel, TaskName: "a", PartitionID: "7"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := New()
			byName := cleanupFixture(t, q)
			beforeJ := q.Pending("ns", "j")
			beforeK := q.Pending("ns", "k")
			beforeNS2 := q.Pending("ns2", "j")

			got := q.CleanupAfter("ns", "j", c.action, c.target)

			want := map[uint64]bool{}
			var wantIDs []uint64
			for _, e := range beforeJ { // in (Due, ID) order
				for _, n := range c.want {
					if byName[n] == e.ID {
						want[e.ID] = true
						wantIDs = append(wantIDs, e.ID)
					}
				}
			}
			require.Len(t, wantIDs, len(c.want), "fixture names")
			if len(c.want) == 0 {
				assert.Empty(t, got)
			} else {
				assert.Equal(t, wantIDs, ids(got))
			}
			var rest []Entry
			for _, e := range beforeJ {
				if !want[e.ID] {
					rest = append(rest, e)
				}
			}
			assert.Equal(t, rest, q.Pending("ns", "j"), "the other levels of the job are untouched")
			assert.Equal(t, beforeK, q.Pending("ns", "k"), "another job is untouched")
			assert.Equal(t, beforeNS2, q.Pending("ns2", "j"), "the same job name in another namespace is untouched")
			assert.Equal(t, 27-len(c.want), q.Len())
		})
	}
}

func TestCleanupAfterSkipsOrphans(t *testing.T) {
	q := New()
	req := pr{task: "w", pod: "w-0", uid: "u", event: vcjob.PodFailedEvent}.req()
	orphan := mustRegister(t, q, req, vcjob.RestartJobAction, sec(10), at(0))
	current := mustRegister(t, q, req, vcjob.RestartPodAction, sec(20), at(0))
	other := mustRegister(t, q, pr{task: "w", pod: "w-1", uid: "u1", event: vcjob.PodFailedEvent}.req(), vcjob.AbortJobAction, sec(30), at(0))

	got := q.CleanupAfter("ns", "j", vcjob.AbortJobAction, request.Target{Level: vcjob.JobLevel})
	assert.Equal(t, []Entry{other}, got, "the orphaned job-level entry is not in the pod index, so it is not cancelled")

	got = q.CleanupAfter("ns", "j", vcjob.RestartPodAction, request.TargetOf(vcjob.RestartPodAction, req))
	assert.Equal(t, []Entry{current}, got)

	fired := q.Due(at(10))
	require.Len(t, fired, 1)
	assert.Equal(t, orphan.ID, fired[0].ID)
	assert.True(t, fired[0].Orphaned)
}

func TestCleanupAfterUnknownJob(t *testing.T) {
	q := New()
	assert.Nil(t, q.CleanupAfter("ns", "nope", vcjob.AbortJobAction, request.Target{}))
}
