package cache_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/jobinfo"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/request"
)

func phase(p corev1.PodPhase) func(*corev1.Pod) {
	return func(pod *corev1.Pod) { pod.Status.Phase = p }
}

func failedWith(code int32) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodFailed
		p.Status.ContainerStatuses = []corev1.ContainerStatus{
			{Name: "main", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code}}},
			{Name: "sidecar", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1}}},
		}
	}
}

func restarts(n int32) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", RestartCount: n}}
	}
}

func TestOnPodUpdate(t *testing.T) {
	cases := []struct {
		name   string
		others []*corev1.Pod // other pods of the job, cached first
		old    *corev1.Pod
		change func(*corev1.Pod)
		event  vcjob.Event
		code   int32
		queued bool
	}{
		{name: "Failed: PodFailed with the first container's exit code", old: testPod("j", "w", 0, corev1.PodRunning), change: failedWith(137), event: vcjob.PodFailedEvent, code: 137, queued: true},
		{name: "Failed again: OutOfSync", old: testPod("j", "w", 0, corev1.PodFailed), change: failedWith(137), event: vcjob.OutOfSyncEvent, queued: true},
		{name: "Succeeded, task completed: TaskCompleted", others: []*corev1.Pod{testPod("j", "w", 1, corev1.PodSucceeded)}, old: testPod("j", "w", 0, corev1.PodRunning), change: phase(corev1.PodSucceeded), event: vcjob.TaskCompletedEvent, queued: true},
		{name: "Succeeded, task not completed: OutOfSync", others: []*corev1.Pod{testPod("j", "w", 1, corev1.PodRunning)}, old: testPod("j", "w", 0, corev1.PodRunning), change: phase(corev1.PodSucceeded), event: vcjob.OutOfSyncEvent, queued: true},
		{name: "Running from Pending: PodRunning", old: testPod("j", "w", 0, corev1.PodPending), change: phase(corev1.PodRunning), event: vcjob.PodRunningEvent, queued: true},
		{name: "PodRunning wins over TaskFailed", old: testPod("j", "w", 0, corev1.PodPending), change: func(p *corev1.Pod) { phase(corev1.PodRunning)(p); restarts(5)(p) }, event: vcjob.PodRunningEvent, queued: true},
		{name: "Running with restarts reaching task maxRetry: TaskFailed", old: testPod("j", "w", 0, corev1.PodRunning), change: restarts(2), event: vcjob.TaskFailedEvent, queued: true},
		{name: "Running below maxRetry: OutOfSync", old: testPod("j", "w", 0, corev1.PodRunning), change: restarts(1), event: vcjob.OutOfSyncEvent, queued: true},
		{name: "restarts of every Running and Pending pod add up", others: []*corev1.Pod{next(testPod("j", "w", 1, corev1.PodPending), restarts(1))}, old: testPod("j", "w", 0, corev1.PodRunning), change: restarts(1), event: vcjob.TaskFailedEvent, queued: true},
		{name: "task maxRetry 0 means 3", old: testPod("j", "ps", 0, corev1.PodRunning), change: restarts(2), event: vcjob.OutOfSyncEvent, queued: true},
		{name: "Pending from Unknown: PodPending", old: testPod("j", "w", 0, corev1.PodUnknown), change: phase(corev1.PodPending), event: vcjob.PodPendingEvent, queued: true},
		{name: "Unknown: OutOfSync", old: testPod("j", "w", 0, corev1.PodRunning), change: phase(corev1.PodUnknown), event: vcjob.OutOfSyncEvent, queued: true},
		{name: "out-of-sync pod: always OutOfSync", old: testPod("j", "w", 0, corev1.PodRunning), change: func(p *corev1.Pod) { failedWith(1)(p); p.Annotations[vcjob.PodOutOfSyncKey] = "true" }, event: vcjob.OutOfSyncEvent, queued: true},
		{name: "same resourceVersion: ignored", old: testPod("j", "w", 0, corev1.PodRunning), change: nil, queued: false},
		{name: "no controller owner: ignored", old: testPod("j", "w", 0, corev1.PodRunning), change: func(p *corev1.Pod) { p.OwnerReferences = nil; failedWith(1)(p) }, queued: false},
		{name: "owner of another kind: ignored", old: testPod("j", "w", 0, corev1.PodRunning), change: func(p *corev1.Pod) { p.OwnerReferences[0].Kind = "ReplicaSet"; failedWith(1)(p) }, queued: false},
		{name: "job-version not an integer: ignored", old: testPod("j", "w", 0, corev1.PodRunning), change: func(p *corev1.Pod) { p.Annotations[vcjob.JobVersionKey] = "x"; failedWith(1)(p) }, queued: false},
		{name: "no task-spec: ignored", old: testPod("j", "w", 0, corev1.PodRunning), change: func(p *corev1.Pod) { delete(p.Annotations, vcjob.TaskSpecKey); failedWith(1)(p) }, queued: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := cache.New()
			require.NoError(t, c.Add(testJob("j", "1")))
			for _, p := range append(tc.others, tc.old) {
				require.NoError(t, c.AddPod(p))
			}
			newPod := tc.old.DeepCopy()
			if tc.change != nil {
				newPod = next(tc.old, tc.change)
			}
			req, ok := c.OnPodUpdate(tc.old, newPod)
			require.Equal(t, tc.queued, ok)
			if !ok {
				return
			}
			assert.Equal(t, tc.event, req.Event)
			assert.Equal(t, tc.code, req.ExitCode)
			assert.Equal(t, "j", req.JobName)
			assert.Equal(t, tc.old.Annotations[vcjob.TaskSpecKey], req.TaskName)
			assert.Equal(t, tc.old.Name, req.PodName)
			assert.Equal(t, int32(1), req.JobVersion)
			assert.EqualValues(t, "uid-j", req.JobUID)
		})
	}
}

func TestOnPodAddAndDelete(t *testing.T) {
	c := cache.New()
	require.NoError(t, c.Add(testJob("j", "1")))

	p := testPod("j", "w", 0, corev1.PodPending)
	p.Labels[vcjob.PartitionIDKey] = "0"
	req, ok := c.OnPodAdd(p)
	require.True(t, ok)
	assert.Equal(t, vcjob.PodPendingEvent, req.Event)
	assert.Equal(t, "0", req.PartitionID)

	oos := testPod("j", "w", 1, corev1.PodPending)
	oos.Annotations[vcjob.PodOutOfSyncKey] = "true"
	req, _ = c.OnPodAdd(oos)
	assert.Equal(t, vcjob.OutOfSyncEvent, req.Event, "an out-of-sync pod added")

	req, ok = c.OnPodDelete(p)
	require.True(t, ok)
	assert.Equal(t, vcjob.PodEvictedEvent, req.Event, "a cached pod deleted")
	req, _ = c.OnPodDelete(p)
	assert.Equal(t, vcjob.OutOfSyncEvent, req.Event, "a pod the cache does not hold")
	req, _ = c.OnPodDelete(oos)
	assert.Equal(t, vcjob.OutOfSyncEvent, req.Event, "an out-of-sync pod deleted")

	stranger := testPod("j", "w", 2, corev1.PodPending)
	stranger.OwnerReferences = nil
	_, ok = c.OnPodAdd(stranger)
	assert.False(t, ok, "not a vcjob pod")
}

func TestOnJobEvents(t *testing.T) {
	c := cache.New()
	j1 := testJob("j", "5")
	req, ok, err := c.OnJobAdd(j1)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, request.Request{Namespace: "ns", JobName: "j", JobUID: "uid-j", Event: vcjob.OutOfSyncEvent}, req)

	same := j1.DeepCopy()
	_, ok, _ = c.OnJobUpdate(j1, same)
	assert.False(t, ok, "same resourceVersion")

	statusOnly := j1.DeepCopy()
	statusOnly.ResourceVersion = "6"
	statusOnly.Status.Running = 3
	_, ok, err = c.OnJobUpdate(j1, statusOnly)
	require.NoError(t, err)
	assert.False(t, ok, "a status change that keeps the phase")

	phaseChange := statusOnly.DeepCopy()
	phaseChange.ResourceVersion = "7"
	phaseChange.Status.State.Phase = vcjob.Running
	_, ok, _ = c.OnJobUpdate(statusOnly, phaseChange)
	assert.True(t, ok, "a phase change")

	scaled := phaseChange.DeepCopy()
	scaled.ResourceVersion = "8"
	scaled.Spec.Tasks[0].Replicas = 4
	_, ok, _ = c.OnJobUpdate(phaseChange, scaled)
	assert.True(t, ok, "a spec change")

	stale := j1.DeepCopy()
	stale.ResourceVersion = "4"
	stale.Spec.Tasks[0].Replicas = 9
	_, ok, err = c.OnJobUpdate(scaled, stale)
	assert.ErrorIs(t, err, cache.ErrStale)
	assert.True(t, ok, "a refused job still raises its request, as in Volcano")
	ji, err := c.Get("ns/j")
	require.NoError(t, err)
	assert.Equal(t, int32(4), ji.Job.Spec.Tasks[0].Replicas, "the stale job is not cached")

	_, ok, err = c.OnJobAdd(j1)
	assert.ErrorIs(t, err, cache.ErrExists)
	assert.True(t, ok, "a job the cache already holds still raises its request")
	_, ok, err = c.OnJobAdd(nil)
	assert.ErrorIs(t, err, cache.ErrNoJobInObject)
	assert.False(t, ok)
}

func TestOnPodGroupUpdate(t *testing.T) {
	c := cache.New()
	require.NoError(t, c.Add(testJob("j", "1")))
	req, ok := c.OnPodGroupUpdate("ns", "j", podgroup.PhasePending, podgroup.PhaseInqueue)
	require.True(t, ok)
	assert.Equal(t, request.Request{Namespace: "ns", JobName: "j"}, req, "no event, no version")
	req, _ = c.OnPodGroupUpdate("ns", "j", podgroup.PhaseRunning, podgroup.PhaseUnknown)
	assert.Equal(t, vcjob.JobUnknownEvent, req.Event)
	_, ok = c.OnPodGroupUpdate("ns", "j", podgroup.PhaseRunning, podgroup.PhaseRunning)
	assert.False(t, ok, "no phase change")
	_, ok = c.OnPodGroupUpdate("ns", "other", podgroup.PhasePending, podgroup.PhaseRunning)
	assert.False(t, ok, "a job the cache does not hold")
}

func TestCommandRequest(t *testing.T) {
	cmd := &vcjob.Command{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "abort-j"}, Action: "AbortJob",
		TargetObject: &metav1.OwnerReference{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind, Name: "j"}}
	req, ok := cache.CommandRequest(cmd)
	require.True(t, ok)
	assert.Equal(t, request.Request{Namespace: "ns", JobName: "j", Event: vcjob.CommandIssuedEvent, Action: vcjob.AbortJobAction}, req)
	cmd.TargetObject.Kind = "Queue"
	_, ok = cache.CommandRequest(cmd)
	assert.False(t, ok)
	_, ok = cache.CommandRequest(&vcjob.Command{})
	assert.False(t, ok)
}

// TestOnCommand pins the CommandIssued Event the command handler records
// on a job it holds, and that a job it does not hold gets the request but
// no Event.
func TestOnCommand(t *testing.T) {
	c := cache.New()
	cmd := &vcjob.Command{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "restart-j"}, Action: "RestartJob",
		TargetObject: &metav1.OwnerReference{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind, Name: "j"}}
	req, events, ok := c.OnCommand(cmd)
	require.True(t, ok)
	assert.Equal(t, vcjob.RestartJobAction, req.Action)
	assert.Nil(t, events, "the job is not in the cache")

	require.NoError(t, c.Add(testJob("j", "1")))
	req, events, ok = c.OnCommand(cmd)
	require.True(t, ok)
	assert.Equal(t, request.Request{Namespace: "ns", JobName: "j", Event: vcjob.CommandIssuedEvent, Action: vcjob.RestartJobAction}, req)
	assert.Equal(t, []record.Event{{Type: "Normal", Reason: "CommandIssued",
		Message: "Start to execute command RestartJob, and clean it up to make sure executed not more than once."}}, events)

	cmd.TargetObject.Kind = "Queue"
	_, events, ok = c.OnCommand(cmd)
	assert.False(t, ok)
	assert.Nil(t, events)
}

func TestShard(t *testing.T) {
	// FNV-32 (not 32a): FNV-32 of "ns/j" is 229480487, 5 mod 7, where
	// FNV-32a would give 4; likewise 3 (not 5) for default/mnist-ddp.
	assert.Equal(t, 5, cache.Shard("ns", "j", 7))
	assert.Equal(t, 3, cache.Shard("default", "mnist-ddp", 7))
	assert.Equal(t, 0, cache.Shard("ns", "j", 1))
	seen := map[int]bool{}
	for _, name := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"} {
		w := cache.Shard("ns", name, 4)
		require.True(t, w >= 0 && w < 4)
		seen[w] = true
	}
	assert.Greater(t, len(seen), 1, "keys spread over workers")
}

// TestOnJobUpdateGeneration: a spec change raises a request. The API
// server bumps metadata.generation on every spec change, so an unchanged
// non-zero generation means an unchanged spec and the specs are not
// compared; otherwise they are, semantically.
func TestOnJobUpdateGeneration(t *testing.T) {
	for _, tt := range []struct {
		name         string
		oldGen, gen  int64
		replicas     int32
		wantsRequest bool
	}{
		{"same generation, same spec", 3, 3, 2, false},
		{"same generation: the spec is taken as unchanged without a look", 3, 3, 5, false},
		{"generation bumped, spec the same", 3, 4, 2, false},
		{"generation bumped, spec changed", 3, 4, 5, true},
		{"no generation (a hand-made object), spec changed", 0, 0, 5, true},
		{"no generation, same spec", 0, 0, 2, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := cache.New()
			old := testJob("j", "5")
			old.Generation = tt.oldGen
			_, _, err := c.OnJobAdd(old)
			require.NoError(t, err)
			next := old.DeepCopy()
			next.ResourceVersion, next.Generation = "6", tt.gen
			next.Spec.Tasks[0].Replicas = tt.replicas
			_, ok, err := c.OnJobUpdate(old, next)
			require.NoError(t, err)
			assert.Equal(t, tt.wantsRequest, ok)
		})
	}
}

// TestOnJobUpdateComparesSpecsAsVolcano: specs compare with
// reflect.DeepEqual, as Volcano's controller does, so a list that went from
// missing to empty is a change that raises a request.
func TestOnJobUpdateComparesSpecsAsVolcano(t *testing.T) {
	c := cache.New()
	old := testJob("j", "5")
	_, _, err := c.OnJobAdd(old)
	require.NoError(t, err)
	next := old.DeepCopy()
	next.ResourceVersion = "6"
	next.Spec.Policies = []vcjob.LifecyclePolicy{}
	_, ok, err := c.OnJobUpdate(old, next)
	require.NoError(t, err)
	assert.True(t, ok)
}

// TestNilObjects: nil objects raise no request and no panic.
func TestNilObjects(t *testing.T) {
	c := cache.New()
	pod := testPod("j", "w", 0, corev1.PodRunning)
	assert.False(t, cache.OutOfSync(nil))
	assert.Equal(t, vcjob.PodPendingEvent, cache.PodAddEvent(nil))
	ev, _ := cache.PodUpdateEvent(nil, nil, pod)
	assert.Equal(t, vcjob.OutOfSyncEvent, ev)
	ev, _ = cache.PodUpdateEvent(nil, pod, nil)
	assert.Equal(t, vcjob.OutOfSyncEvent, ev)
	for name, raise := range map[string]func() bool{
		"pod add":     func() bool { _, ok := c.OnPodAdd(nil); return ok },
		"pod update":  func() bool { _, ok := c.OnPodUpdate(pod, nil); return ok },
		"pod delete":  func() bool { _, ok := c.OnPodDelete(nil); return ok },
		"job update":  func() bool { _, ok, _ := c.OnJobUpdate(nil, nil); return ok },
		"command":     func() bool { _, ok := cache.CommandRequest(nil); return ok },
		"a nil lease": func() bool { var ji *jobinfo.Info; ji.Release(); return false },
	} {
		assert.False(t, raise(), name)
	}
	assert.ErrorIs(t, c.DeletePod(nil), cache.ErrNoJobInObject)
}

// TestOnPodDeleteOfAPodNeverHeld: deleting a pod the cache never held is
// OutOfSync; one it held is PodEvicted.
func TestOnPodDeleteOfAPodNeverHeld(t *testing.T) {
	c := cache.New()
	require.NoError(t, c.Add(testJob("j", "1")))
	held := testPod("j", "w", 0, corev1.PodRunning)
	require.NoError(t, c.AddPod(held))
	req, ok := c.OnPodDelete(held)
	require.True(t, ok)
	assert.Equal(t, vcjob.PodEvictedEvent, req.Event)
	req, ok = c.OnPodDelete(testPod("j", "w", 1, corev1.PodRunning))
	require.True(t, ok)
	assert.Equal(t, vcjob.OutOfSyncEvent, req.Event)
}
