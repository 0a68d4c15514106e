package cache_test

import (
	corev1 "k8s.io/api/core/v1"

	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/semantics"
)

// A PodGroup-driven request carries job version 0 in Volcano, stale once the
// job has been killed; PodGroupRequestsCurrentVersion gives it the job's.
func TestPodGroupRequestsCurrentVersion(t *testing.T) {
	killed := func(annotation string) *vcjob.Job {
		j := testJob("j", "1")
		j.Status.Version = 3
		if annotation != "" {
			j.Annotations = map[string]string{semantics.Annotation: annotation}
		}
		return j
	}
	for _, tc := range []struct {
		name       string
		base       semantics.Profile
		annotation string
		want       int32
	}{
		{"volcano: version 0", semantics.Profile{}, "", 0},
		{"the embedder's correction", semantics.Profile{PodGroupRequestsCurrentVersion: true}, "", 3},
		{"the job's correction", semantics.Profile{}, "podgroup-requests-current-version", 3},
		{"the job asks for Volcano's", semantics.Corrected(), "volcano", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cache.New()
			c.Semantics = tc.base
			require.NoError(t, c.Add(killed(tc.annotation)))
			req, ok := c.OnPodGroupUpdate("ns", "j", podgroup.PhaseRunning, podgroup.PhaseUnknown)
			require.True(t, ok)
			assert.Equal(t, request.Request{Namespace: "ns", JobName: "j", Event: vcjob.JobUnknownEvent, JobVersion: tc.want}, req)
		})
	}
}

// cacheWithJob is a cache under base holding job ns/j, with annotation as
// its semantics.Annotation when not empty.
func cacheWithJob(t *testing.T, base semantics.Profile, annotation string) *cache.Cache {
	t.Helper()
	c := cache.New()
	c.Semantics = base
	job := testJob("j", "1")
	if annotation != "" {
		job.Annotations = map[string]string{semantics.Annotation: annotation}
	}
	require.NoError(t, c.Add(job))
	return c
}

// A PodGroup's add raises nothing in Volcano; under PodGroupPhaseOnAdd one
// first seen in a phase after the first list (a relist after a lost watch)
// raises the request of the phase change the watch lost.
func TestPodGroupPhaseOnAdd(t *testing.T) {
	on := semantics.Profile{PodGroupPhaseOnAdd: true}
	for _, tc := range []struct {
		name       string
		base       semantics.Profile
		annotation string
		phase      podgroup.Phase
		initial    bool
		want       bool
		event      vcjob.Event
	}{
		{"volcano: nothing", semantics.Profile{}, "", podgroup.PhaseInqueue, false, false, ""},
		{"the job asks for Volcano's", semantics.Corrected(), "volcano", podgroup.PhaseInqueue, false, false, ""},
		{"first seen Inqueue after a relist", on, "", podgroup.PhaseInqueue, false, true, ""},
		{"the job's annotation asks for it", semantics.Profile{}, "podgroup-phase-on-add", podgroup.PhaseInqueue, false, true, ""},
		{"first seen Pending after a relist", on, "", podgroup.PhasePending, false, true, ""},
		{"first seen Running after a relist", on, "", podgroup.PhaseRunning, false, true, ""},
		{"first seen Unknown after a relist", on, "", podgroup.PhaseUnknown, false, true, vcjob.JobUnknownEvent},
		{"a new PodGroup has no phase", on, "", "", false, false, ""},
		{"the first list: the job's own add syncs it", on, "", podgroup.PhaseInqueue, true, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cacheWithJob(t, tc.base, tc.annotation)
			req, ok := c.OnPodGroupAdd("ns", "j", tc.phase, tc.initial)
			require.Equal(t, tc.want, ok)
			if ok {
				assert.Equal(t, request.Request{Namespace: "ns", JobName: "j", Event: tc.event}, req,
					"the request of the missed change from no phase")
			}
		})
	}
	c := cache.New()
	c.Semantics = on
	_, ok := c.OnPodGroupAdd("ns", "other", podgroup.PhaseInqueue, false)
	assert.False(t, ok, "a job the cache does not hold")
}

// A pod first seen finished raises PodPending in Volcano (the failure is
// never acted on); under FinishedPodsOnAdd it raises what seeing it
// finish would have.
func TestFinishedPodsOnAdd(t *testing.T) {
	failed := func(code int32) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodFailed
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code}}}}
		}
	}
	succeeded := func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }
	outOfSync := func(p *corev1.Pod) {
		failed(3)(p)
		p.Annotations[vcjob.PodOutOfSyncKey] = "true"
	}
	for _, tc := range []struct {
		name       string
		base       semantics.Profile
		annotation string
		others     []*corev1.Pod // pods the cache holds already
		pod        func(*corev1.Pod)
		want       vcjob.Event
		code       int32
	}{
		{"volcano: a failed pod is PodPending", semantics.Profile{}, "", nil, failed(3), vcjob.PodPendingEvent, 0},
		{"a failed pod is PodFailed with its exit code", semantics.Profile{FinishedPodsOnAdd: true}, "", nil, failed(3), vcjob.PodFailedEvent, 3},
		{"the job's annotation asks for it", semantics.Profile{}, "finished-pods-on-add", nil, failed(137), vcjob.PodFailedEvent, 137},
		{"the job asks for Volcano's", semantics.Corrected(), "volcano", nil, failed(3), vcjob.PodPendingEvent, 0},
		{"a succeeded pod completing its task is TaskCompleted", semantics.Corrected(), "",
			[]*corev1.Pod{next(testPod("j", "w", 1, corev1.PodSucceeded), func(*corev1.Pod) {})}, succeeded, vcjob.TaskCompletedEvent, 0},
		{"a succeeded pod of an unfinished task is PodPending", semantics.Corrected(), "", nil, succeeded, vcjob.PodPendingEvent, 0},
		{"a running pod is PodPending", semantics.Corrected(), "", nil, func(p *corev1.Pod) { p.Status.Phase = corev1.PodRunning }, vcjob.PodPendingEvent, 0},
		{"an out-of-sync pod is OutOfSync", semantics.Corrected(), "", nil, outOfSync, vcjob.OutOfSyncEvent, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cacheWithJob(t, tc.base, tc.annotation)
			for _, p := range tc.others {
				require.NoError(t, c.AddPod(p))
			}
			pod := testPod("j", "w", 0, corev1.PodPending)
			tc.pod(pod)
			req, ok := c.OnPodAdd(pod)
			require.True(t, ok)
			assert.Equal(t, tc.want, req.Event)
			assert.Equal(t, tc.code, req.ExitCode)
		})
	}
	t.Run("a pod whose job is not cached yet is PodPending", func(t *testing.T) {
		c := cache.New()
		c.Semantics = semantics.Corrected()
		pod := testPod("j", "w", 0, corev1.PodPending)
		failed(3)(pod)
		req, ok := c.OnPodAdd(pod)
		require.True(t, ok)
		assert.Equal(t, vcjob.PodPendingEvent, req.Event)
	})
}
