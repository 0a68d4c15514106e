package cache_test

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/request"
)

// A PodGroup-driven request carries job version 0 in Volcano, stale once the
// job has been killed; PodGroupRequestsCurrentVersion gives it the job's.
func TestPodGroupRequestsCurrentVersion(t *testing.T) {
	killed := func(annotation string) *vcjob.Job {
		j := testJob("j", "1")
		j.Status.Version = 3
		if annotation != "" {
			j.Annotations = map[string]string{behavior.Annotation: annotation}
		}
		return j
	}
	for _, tc := range []struct {
		name       string
		base       behavior.Set
		annotation string
		want       int32
	}{
		{"volcano: version 0", behavior.Set{}, "", 0},
		{"the embedder's correction", behavior.Of(behavior.PodGroupRequestsCurrentVersion), "", 3},
		{"the job's correction", behavior.Set{}, "podgroup-requests-current-version", 3},
		{"the job asks for Volcano's", behavior.Corrected(), "volcano", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cache.New()
			c.Behavior = tc.base
			require.NoError(t, c.Add(killed(tc.annotation)))
			req, ok := c.OnPodGroupUpdate("ns", "j", podgroup.PhaseRunning, podgroup.PhaseUnknown)
			require.True(t, ok)
			assert.Equal(t, request.Request{Namespace: "ns", JobName: "j", Event: vcjob.JobUnknownEvent, JobVersion: tc.want}, req)
		})
	}
}

// cacheWithJob is a cache under base holding job ns/j, with annotation as
// its behavior.Annotation when not empty.
func cacheWithJob(t *testing.T, base behavior.Set, annotation string) *cache.Cache {
	t.Helper()
	c := cache.New()
	c.Behavior = base
	job := testJob("j", "1")
	if annotation != "" {
		job.Annotations = map[string]string{behavior.Annotation: annotation}
	}
	require.NoError(t, c.Add(job))
	return c
}

// A PodGroup's add raises nothing in Volcano; under PodGroupPhaseOnAdd one
// first seen in a phase after the first list (a relist after a lost watch)
// raises the request of the phase change the watch lost.
func TestPodGroupPhaseOnAdd(t *testing.T) {
	on := behavior.Of(behavior.PodGroupPhaseOnAdd)
	for _, tc := range []struct {
		name       string
		base       behavior.Set
		annotation string
		phase      podgroup.Phase
		initial    bool
		want       bool
		event      vcjob.Event
	}{
		{"volcano: nothing", behavior.Set{}, "", podgroup.PhaseInqueue, false, false, ""},
		{"the job asks for Volcano's", behavior.Corrected(), "volcano", podgroup.PhaseInqueue, false, false, ""},
		{"first seen Inqueue after a relist", on, "", podgroup.PhaseInqueue, false, true, ""},
		{"the job's annotation asks for it", behavior.Set{}, "podgroup-phase-on-add", podgroup.PhaseInqueue, false, true, ""},
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
	c.Behavior = on
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
		base       behavior.Set
		annotation string
		others     []*corev1.Pod // pods the cache holds already
		pod        func(*corev1.Pod)
		want       vcjob.Event
		code       int32
	}{
		{"volcano: a failed pod is PodPending", behavior.Set{}, "", nil, failed(3), vcjob.PodPendingEvent, 0},
		{"a failed pod is PodFailed with its exit code", behavior.Of(behavior.FinishedPodsOnAdd), "", nil, failed(3), vcjob.PodFailedEvent, 3},
		{"the job's annotation asks for it", behavior.Set{}, "finished-pods-on-add", nil, failed(137), vcjob.PodFailedEvent, 137},
		{"the job asks for Volcano's", behavior.Corrected(), "volcano", nil, failed(3), vcjob.PodPendingEvent, 0},
		{"a succeeded pod completing its task is TaskCompleted", behavior.Corrected(), "",
			[]*corev1.Pod{next(testPod("j", "w", 1, corev1.PodSucceeded), func(*corev1.Pod) {})}, succeeded, vcjob.TaskCompletedEvent, 0},
		{"a succeeded pod of an unfinished task is PodPending", behavior.Corrected(), "", nil, succeeded, vcjob.PodPendingEvent, 0},
		{"a running pod is PodPending", behavior.Corrected(), "", nil, func(p *corev1.Pod) { p.Status.Phase = corev1.PodRunning }, vcjob.PodPendingEvent, 0},
		{"an out-of-sync pod is OutOfSync", behavior.Corrected(), "", nil, outOfSync, vcjob.OutOfSyncEvent, 0},
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
		c.Behavior = behavior.Corrected()
		pod := testPod("j", "w", 0, corev1.PodPending)
		failed(3)(pod)
		req, ok := c.OnPodAdd(pod)
		require.True(t, ok)
		assert.Equal(t, vcjob.PodPendingEvent, req.Event)
	})
}

// Pods the informer delivers before their job raise PodPending with no job
// to judge them by. Volcano never looks at them again; under
// FinishedPodsOnAdd the job's add raises, after its own request, what each
// finished pod's finishing would have.
func TestFinishedPodsBeforeTheirJob(t *testing.T) {
	failed := next(testPod("j", "w", 0, corev1.PodFailed), func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 3}}}}
	})
	succeededPs := testPod("j", "ps", 0, corev1.PodSucceeded) // ps has one replica: its task completes
	running := testPod("j", "w", 1, corev1.PodRunning)
	marked := next(testPod("j", "w", 1, corev1.PodFailed), func(p *corev1.Pod) { p.Annotations[vcjob.PodOutOfSyncKey] = "true" })
	for _, tc := range []struct {
		name string
		set  behavior.Set
		pods []*corev1.Pod
		want []vcjob.Event
	}{
		{"volcano: the job's sync only", behavior.Set{}, []*corev1.Pod{failed, succeededPs, running}, []vcjob.Event{vcjob.OutOfSyncEvent}},
		{"a failure and a completed task", behavior.Of(behavior.FinishedPodsOnAdd), []*corev1.Pod{failed, succeededPs, running},
			[]vcjob.Event{vcjob.OutOfSyncEvent, vcjob.TaskCompletedEvent, vcjob.PodFailedEvent}},
		{"an out-of-sync pod raises nothing more", behavior.Of(behavior.FinishedPodsOnAdd), []*corev1.Pod{marked}, []vcjob.Event{vcjob.OutOfSyncEvent}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cache.New()
			c.Behavior = tc.set
			for _, p := range tc.pods {
				_, ok := c.OnPodAdd(p)
				require.True(t, ok)
			}
			reqs, err := c.OnJobAddWithPods(testJob("j", "1"))
			require.NoError(t, err)
			var got []vcjob.Event
			for _, r := range reqs {
				got = append(got, r.Event)
				if r.Event == vcjob.PodFailedEvent {
					assert.Equal(t, int32(3), r.ExitCode)
					assert.Equal(t, failed.Name, r.PodName)
				}
			}
			assert.ElementsMatch(t, tc.want, got)
			assert.Equal(t, vcjob.OutOfSyncEvent, got[0], "the job's own request comes first")
		})
	}
	t.Run("a job already cached raises no pod's again", func(t *testing.T) {
		c := cacheWithJob(t, behavior.Of(behavior.FinishedPodsOnAdd), "")
		_, ok := c.OnPodAdd(failed)
		require.True(t, ok)
		_, err := c.OnJobAddWithPods(testJob("j", "2"))
		assert.ErrorIs(t, err, cache.ErrExists)
	})
}

// Volcano takes a failed pod's exit code from its first container status
// (volcano#5452); under ExitCodeFirstFailedContainer it is the code of the
// first container, in the spec's order, that terminated non-zero.
func TestExitCodeFirstFailedContainer(t *testing.T) {
	type st struct {
		name string
		code *int32 // nil: not terminated
	}
	pod := func(spec []string, statuses ...st) *corev1.Pod {
		p := testPod("j", "w", 0, corev1.PodFailed)
		for _, n := range spec {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: n})
		}
		for _, s := range statuses {
			cs := corev1.ContainerStatus{Name: s.name, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
			if s.code != nil {
				cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: *s.code}}
			}
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, cs)
		}
		return p
	}
	two := []string{"trainer", "sidecar"}
	on := behavior.Of(behavior.ExitCodeFirstFailedContainer)
	for _, tc := range []struct {
		name           string
		pod            *corev1.Pod
		volcano, fixed int32
	}{
		{"one container", pod([]string{"main"}, st{"main", i32(3)}), 3, 3},
		{"the first container failed", pod(two, st{"trainer", i32(42)}, st{"sidecar", i32(1)}), 42, 42},
		{"the first exited 0, the second failed", pod(two, st{"trainer", i32(0)}, st{"sidecar", i32(42)}), 0, 42},
		{"the first still runs, the second failed", pod(two, st{"trainer", nil}, st{"sidecar", i32(7)}), 0, 7},
		{"statuses out of the spec's order", pod(two, st{"sidecar", i32(1)}, st{"trainer", i32(42)}), 1, 42},
		{"the spec's first failed container wins", pod([]string{"a", "b", "c"}, st{"a", i32(0)}, st{"b", i32(5)}, st{"c", i32(9)}), 0, 5},
		{"a status the spec does not name comes last", pod([]string{"a"}, st{"x", i32(8)}, st{"a", i32(0)}), 8, 8},
		{"all exited 0", pod(two, st{"trainer", i32(0)}, st{"sidecar", i32(0)}), 0, 0},
		{"no status", pod(two), 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.volcano, cache.ExitCode(tc.pod, behavior.Set{}), "volcano")
			assert.Equal(t, tc.fixed, cache.ExitCode(tc.pod, on), "corrected")
		})
	}

	// Through the pod handlers: the embedder's profile, the job's
	// annotation, and a pod first seen failed under finished-pods-on-add.
	failing := pod(two, st{"trainer", i32(0)}, st{"sidecar", i32(42)})
	for _, tc := range []struct {
		name       string
		base       behavior.Set
		annotation string
		want       int32
	}{
		{"volcano", behavior.Set{}, "", 0},
		{"the embedder's correction", on, "", 42},
		{"the job's annotation", behavior.Set{}, "exit-code-first-failed-container", 42},
		{"the job asks for Volcano's", behavior.Corrected(), "volcano", 0},
	} {
		t.Run("update: "+tc.name, func(t *testing.T) {
			c := cacheWithJob(t, tc.base, tc.annotation)
			running := testPod("j", "w", 0, corev1.PodRunning)
			require.NoError(t, c.AddPod(running))
			failed := failing.DeepCopy()
			failed.ResourceVersion = "2"
			req, ok := c.OnPodUpdate(running, failed)
			require.True(t, ok)
			assert.Equal(t, vcjob.PodFailedEvent, req.Event)
			assert.Equal(t, tc.want, req.ExitCode)
		})
	}
	t.Run("first seen failed", func(t *testing.T) {
		c := cacheWithJob(t, behavior.Of(behavior.FinishedPodsOnAdd, behavior.ExitCodeFirstFailedContainer), "")
		req, ok := c.OnPodAdd(failing)
		require.True(t, ok)
		assert.Equal(t, vcjob.PodFailedEvent, req.Event)
		assert.Equal(t, int32(42), req.ExitCode)
	})
}

// A job deleted and created again under its name: Volcano's cache, keyed
// by namespace/name, hands the new job the old one's entry with the pods
// still being deleted, and their late events change it (volcano#5973).
// Under CacheByJobUID the old job's pods are never the new job's.
func TestCacheByJobUID(t *testing.T) {
	oldJob := testJob("j", "1")
	newJob := testJob("j", "5")
	newJob.UID = "uid-j-2"
	// The old job's worker-0 Succeeded and is being deleted, a finalizer
	// holding it.
	held := next(testPod("j", "w", 0, corev1.PodSucceeded), func(p *corev1.Pod) {
		p.DeletionTimestamp = &metav1.Time{}
		p.Finalizers = []string{"hold"}
	})
	// The new job's worker-1, which it could create (worker-0's name is
	// taken).
	mine := func(phase corev1.PodPhase) *corev1.Pod {
		return next(testPod("j", "w", 1, phase), func(p *corev1.Pod) { p.OwnerReferences[0].UID = newJob.UID })
	}
	for _, tc := range []struct {
		name       string
		base       behavior.Set
		annotation string
		pods       int // the new job's info, once worker-1 succeeded
		event      vcjob.Event
		lateDelete vcjob.Event
	}{
		{"volcano: the old pod completes the new job's task", behavior.Set{}, "", 2, vcjob.TaskCompletedEvent, vcjob.PodEvictedEvent},
		{"the embedder's correction", behavior.Of(behavior.CacheByJobUID), "", 1, vcjob.OutOfSyncEvent, vcjob.OutOfSyncEvent},
		{"the new job's annotation", behavior.Set{}, "cache-by-job-uid", 1, vcjob.OutOfSyncEvent, vcjob.OutOfSyncEvent},
		{"the new job asks for Volcano's", behavior.Corrected(), "volcano", 2, vcjob.TaskCompletedEvent, vcjob.PodEvictedEvent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cache.New()
			c.Behavior = tc.base
			require.NoError(t, c.Add(oldJob))
			require.NoError(t, c.AddPod(testPod("j", "w", 0, corev1.PodSucceeded)))
			_, ok := c.OnPodUpdate(testPod("j", "w", 0, corev1.PodSucceeded), held)
			require.True(t, ok)
			require.NoError(t, c.OnJobDelete(oldJob))

			nj := newJob.DeepCopy()
			if tc.annotation != "" {
				nj.Annotations = map[string]string{behavior.Annotation: tc.annotation}
			}
			_, _, err := c.OnJobAdd(nj)
			require.NoError(t, err)
			_, ok = c.OnPodAdd(mine(corev1.PodRunning))
			require.True(t, ok)
			req, ok := c.OnPodUpdate(mine(corev1.PodRunning), next(mine(corev1.PodRunning), func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }))
			require.True(t, ok)
			assert.Equal(t, tc.event, req.Event, "worker-1 succeeds: is the task completed?")
			ji, err := c.Get("ns/j")
			require.NoError(t, err)
			assert.Equal(t, tc.pods, ji.PodCount())

			// The finalizer goes: the old pod's delete arrives late.
			req, ok = c.OnPodDelete(held)
			require.True(t, ok)
			assert.Equal(t, tc.lateDelete, req.Event)
			assert.Equal(t, oldJob.UID, req.JobUID, "the request names the old job: the step syncs the new one")
			ji, err = c.Get("ns/j")
			require.NoError(t, err)
			assert.Equal(t, 1, ji.PodCount(), "the new job's worker-1 is left")
		})
	}

	t.Run("pods of another job are refused", func(t *testing.T) {
		c := cacheWithJob(t, behavior.Of(behavior.CacheByJobUID), "")
		other := next(testPod("j", "w", 0, corev1.PodRunning), func(p *corev1.Pod) { p.OwnerReferences[0].UID = "uid-old" })
		assert.ErrorIs(t, c.AddPod(other), cache.ErrOtherJob)
		assert.False(t, c.HasPod(other))
		assert.NoError(t, c.AddPod(testPod("j", "w", 1, corev1.PodRunning)), "the job's own")
	})
	t.Run("pods that came before their job", func(t *testing.T) {
		c := cache.New()
		c.Behavior = behavior.Of(behavior.CacheByJobUID)
		require.NoError(t, c.AddPod(next(testPod("j", "w", 0, corev1.PodRunning), func(p *corev1.Pod) { p.OwnerReferences[0].UID = "uid-old" })))
		require.NoError(t, c.AddPod(testPod("j", "w", 1, corev1.PodRunning)))
		_, err := c.OnJobAddWithPods(testJob("j", "1"))
		require.NoError(t, err)
		ji, err := c.Get("ns/j")
		require.NoError(t, err)
		assert.Equal(t, 1, ji.PodCount(), "only the job's own pod")
	})
	t.Run("a relist shows the new job as an update of the old", func(t *testing.T) {
		c := cacheWithJob(t, behavior.Of(behavior.CacheByJobUID), "")
		require.NoError(t, c.AddPod(testPod("j", "w", 0, corev1.PodRunning)))
		replaced := testJob("j", "7")
		replaced.UID = "uid-j-2"
		require.NoError(t, c.Update(replaced))
		ji, err := c.Get("ns/j")
		require.NoError(t, err)
		assert.Zero(t, ji.PodCount())
	})
	t.Run("pods without an owner UID are filed as before", func(t *testing.T) {
		c := cacheWithJob(t, behavior.Of(behavior.CacheByJobUID), "")
		assert.NoError(t, c.AddPod(next(testPod("j", "w", 0, corev1.PodRunning), func(p *corev1.Pod) { p.OwnerReferences[0].UID = "" })))
	})
}
