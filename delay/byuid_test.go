package delay

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/request"
)

// A pod re-created under the same name is another pod (another UID):
// Volcano, keying delayed actions by pod name, mistakes its events for the
// old pod's (volcano#5507); RegisterByPodUID keeps them apart.
func TestDelaysByPodUID(t *testing.T) {
	old := pr{task: "w", pod: "j-w-0", uid: "uid-1"}
	recreated := pr{task: "w", pod: "j-w-0", uid: "uid-2"}
	evicted := func(p pr) request.Request { p.event = vcjob.PodEvictedEvent; return p.req() }
	running := func(p pr) request.Request { p.event = vcjob.PodRunningEvent; return p.req() }
	pending := func(p pr) request.Request { p.event = vcjob.PodPendingEvent; return p.req() }

	for _, tc := range []struct {
		name  string
		byUID bool
		// the re-created pod's running cancels the old pod's restart
		cancelled bool
	}{
		{"volcano: the new pod's PodRunning cancels the old pod's restart", false, true},
		{"by UID: it does not", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := New()
			register := q.Register
			if tc.byUID {
				register = q.RegisterByPodUID
			}
			e, ok := register(evicted(old), vcjob.RestartJobAction, request.Target{Level: vcjob.JobLevel}, sec(60), at(0))
			require.True(t, ok)
			assert.Equal(t, tc.byUID, e.ByPodUID)
			got := q.CancelForPodEvent(running(recreated))
			assert.Equal(t, tc.cancelled, len(got) == 1)
			if !tc.cancelled {
				// The old pod's own return still cancels it.
				assert.Equal(t, []uint64{e.ID}, ids(q.CancelForPodEvent(running(old))))
			}
			assert.Equal(t, 0, q.Len())
		})
	}

	for _, tc := range []struct {
		name  string
		byUID bool
		added bool
	}{
		{"volcano: the new pod's registration is dropped as the old pod's duplicate", false, false},
		{"by UID: it is the new pod's own", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := New()
			register := q.Register
			if tc.byUID {
				register = q.RegisterByPodUID
			}
			_, ok := register(pending(old), vcjob.AbortJobAction, request.Target{Level: vcjob.JobLevel}, sec(600), at(0))
			require.True(t, ok)
			_, ok = register(pending(recreated), vcjob.AbortJobAction, request.Target{Level: vcjob.JobLevel}, sec(600), at(10))
			assert.Equal(t, tc.added, ok)
			if tc.byUID {
				// The new pod moving on cancels its own entry only.
				got := q.CancelForPodEvent(running(recreated))
				require.Len(t, got, 1)
				assert.Equal(t, recreated.uid, got[0].Request.PodUID)
				assert.Equal(t, 1, q.Len())
				// Same-level cleanup reaches entries held by UID.
				assert.Len(t, q.CleanupAfter("ns", "j", vcjob.RestartJobAction, request.Target{Level: vcjob.JobLevel}), 1)
				assert.Equal(t, 0, q.Len())
				assert.Empty(t, q.jobs, "the job index is emptied")
			}
		})
	}
}

// Entries of both keyings of one pod are due in order and leave nothing
// behind.
func TestByPodUIDDue(t *testing.T) {
	q := New()
	a, _ := q.RegisterByPodUID(pr{pod: "p", uid: "1", event: vcjob.PodFailedEvent}.req(), vcjob.RestartJobAction, request.Target{Level: vcjob.JobLevel}, sec(5), at(0))
	b, _ := q.Register(pr{pod: "p", uid: "2", event: vcjob.PodFailedEvent}.req(), vcjob.RestartJobAction, request.Target{Level: vcjob.JobLevel}, sec(3), at(0))
	assert.Equal(t, []uint64{b.ID, a.ID}, ids(q.Due(at(10))))
	assert.Empty(t, q.jobs)
}
