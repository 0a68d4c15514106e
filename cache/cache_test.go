package cache_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/jobinfo"
)

func TestCacheRules(t *testing.T) {
	c := cache.New()
	j := testJob("j", "3")

	_, err := c.Get("ns/j")
	assert.ErrorIs(t, err, cache.ErrNotFound)

	t.Run("pods may arrive before their job", func(t *testing.T) {
		require.NoError(t, c.AddPod(testPod("j", "w", 0, corev1.PodPending)))
		_, err := c.Get("ns/j")
		assert.ErrorIs(t, err, cache.ErrNotFound, "a placeholder is not a job")
		require.NoError(t, c.Add(j))
		ji, err := c.Get("ns/j")
		require.NoError(t, err)
		assert.NotNil(t, ji.Pod("w", "j-w-0"), "the early pod is kept")
	})
	t.Run("adding a cached job is an error", func(t *testing.T) {
		assert.ErrorIs(t, c.Add(j), cache.ErrExists)
	})
	t.Run("update refuses an older resourceVersion", func(t *testing.T) {
		older := j.DeepCopy()
		older.ResourceVersion = "2"
		err := c.Update(older)
		assert.ErrorIs(t, err, cache.ErrStale)
		assert.Contains(t, err.Error(), "ns/j")
		newer := j.DeepCopy()
		newer.ResourceVersion = "10"
		assert.NoError(t, c.Update(newer))
		bad := j.DeepCopy()
		bad.ResourceVersion = "x"
		assert.ErrorIs(t, c.Update(bad), cache.ErrBadVersion)
	})
	t.Run("pods are grouped by task", func(t *testing.T) {
		require.NoError(t, c.AddPod(testPod("j", "ps", 0, corev1.PodRunning)))
		ji, _ := c.Get("ns/j")
		assert.Equal(t, 1, ji.Task("w").Len())
		assert.Equal(t, 1, ji.Task("ps").Len())
		assert.Equal(t, []string{"ps", "w"}, ji.TaskNames())
	})
	t.Run("a deleted job stays until its last pod is gone", func(t *testing.T) {
		require.NoError(t, c.Delete(j))
		_, err := c.Get("ns/j")
		assert.ErrorIs(t, err, cache.ErrNotFound)
		assert.Empty(t, c.Droppable(), "pods remain")
		assert.False(t, c.TaskCompleted("ns/j", "w"), "a deleted job's task is not completed")
		require.NoError(t, c.DeletePod(testPod("j", "w", 0, corev1.PodPending)))
		assert.Empty(t, c.Droppable())
		require.NoError(t, c.DeletePod(testPod("j", "ps", 0, corev1.PodRunning)))
		assert.Empty(t, c.Droppable(), "the last pod took the job with it")
		assert.False(t, c.Drop("ns/j"))
	})
	t.Run("placeholders whose pods went are droppable", func(t *testing.T) {
		p := testPod("ghost", "w", 0, corev1.PodPending)
		require.NoError(t, c.AddPod(p))
		require.NoError(t, c.DeletePod(p))
		assert.Equal(t, []string{"ns/ghost"}, c.Droppable())
		assert.True(t, c.Drop("ns/ghost"))
	})
	t.Run("a pod without annotations is refused with a clear error", func(t *testing.T) {
		p := testPod("j", "w", 0, corev1.PodPending)
		delete(p.Annotations, vcjob.JobNameKey)
		err := c.AddPod(p)
		assert.ErrorIs(t, err, cache.ErrNotJobPod)
		assert.Contains(t, err.Error(), "j-w-0")
	})
}

func TestPredicates(t *testing.T) {
	job := testJob("j", "1")
	job.Spec.Tasks = append(job.Spec.Tasks, vcjob.TaskSpec{Name: "never", Replicas: 1, MaxRetry: -1}, vcjob.TaskSpec{Name: "empty"})
	ji, err := jobinfo.New(job,
		testPod("j", "w", 0, corev1.PodSucceeded), testPod("j", "w", 1, corev1.PodSucceeded),
		next(testPod("j", "never", 0, corev1.PodRunning), restarts(100)),
		next(testPod("j", "ps", 0, corev1.PodFailed), restarts(100)))
	require.NoError(t, err)
	assert.True(t, cache.TaskCompleted(ji, "w"))
	assert.False(t, cache.TaskCompleted(ji, "ps"))
	assert.False(t, cache.TaskCompleted(ji, "empty"), "zero replicas never complete")
	assert.False(t, cache.TaskCompleted(ji, "nope"))
	assert.False(t, cache.TaskFailed(ji, "never"), "maxRetry -1 never fails")
	assert.False(t, cache.TaskFailed(ji, "ps"), "restarts of Failed pods do not count")
	init := next(testPod("j", "w", 0, corev1.PodPending), func(p *corev1.Pod) {
		p.Status.InitContainerStatuses = []corev1.ContainerStatus{{RestartCount: 1}}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{RestartCount: 1}}
	})
	require.NoError(t, ji.AddPod(init))
	assert.True(t, cache.TaskFailed(ji, "w"), "init and app restarts add up to maxRetry 2")
}

// TestConcurrentAccess hammers the cache from many goroutines; run with
// -race.
func TestConcurrentAccess(t *testing.T) {
	c := cache.New()
	const jobs, pods = 8, 20
	for j := 0; j < jobs; j++ {
		require.NoError(t, c.Add(testJob(fmt.Sprintf("j%d", j), "1")))
	}
	var wg sync.WaitGroup
	for j := 0; j < jobs; j++ {
		name := fmt.Sprintf("j%d", j)
		wg.Add(3)
		go func() { // writer: pods come and go
			defer wg.Done()
			for i := 0; i < pods; i++ {
				p := testPod(name, "w", i, corev1.PodPending)
				_, _ = c.OnPodAdd(p)
				_, _ = c.OnPodUpdate(p, next(p, phase(corev1.PodRunning)))
				if i%3 == 0 {
					_, _ = c.OnPodDelete(p)
				}
			}
		}()
		go func() { // writer: the job changes
			defer wg.Done()
			for v := 2; v < 20; v++ {
				u := testJob(name, fmt.Sprint(v))
				_ = c.Update(u)
			}
		}()
		go func() { // reader: snapshots are changed freely, through their methods
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if ji, err := c.Get("ns/" + name); err == nil {
					job := ji.Job.DeepCopy()
					job.Status.Running++
					ji.SetJob(job)
					for _, p := range ji.Pods() {
						failed := p.DeepCopy()
						failed.Status.Phase = corev1.PodFailed
						_ = ji.AddPod(failed)
					}
				}
				_ = c.TaskFailed("ns/"+name, "w")
				_ = c.Keys()
			}
		}()
	}
	wg.Wait()
	for j := 0; j < jobs; j++ {
		ji, err := c.Get(fmt.Sprintf("ns/j%d", j))
		require.NoError(t, err)
		assert.Equal(t, "19", ji.Job.ResourceVersion)
		assert.Equal(t, pods-7, ji.Task("w").Len(), "every third pod deleted")
		for _, p := range ji.Task("w").All() {
			assert.Equal(t, corev1.PodRunning, p.Status.Phase, "readers' changes never reach the cache")
		}
	}
}

// TestSnapshotIsolation: a snapshot never changes when the cache does, and
// changing a snapshot never changes the cache.
func TestSnapshotIsolation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := cache.New()
		require.NoError(t, c.Add(testJob("j", "1")))
		snap, err := c.Get("ns/j")
		require.NoError(t, err)
		frozen := snap.Clone()
		ops := rapid.IntRange(1, 30).Draw(t, "ops")
		for i := 0; i < ops; i++ {
			idx := rapid.IntRange(0, 4).Draw(t, "index")
			task := rapid.SampledFrom([]string{"w", "ps"}).Draw(t, "task")
			p := testPod("j", task, idx, rapid.SampledFrom([]corev1.PodPhase{corev1.PodPending, corev1.PodRunning, corev1.PodFailed}).Draw(t, "phase"))
			switch rapid.IntRange(0, 3).Draw(t, "op") {
			case 0:
				_ = c.AddPod(p)
			case 1:
				_ = c.DeletePod(p)
			case 2:
				u := testJob("j", fmt.Sprint(i+2))
				u.Spec.MinAvailable = int32(i)
				_ = c.Update(u)
			case 3:
				if ji, err := c.Get("ns/j"); err == nil {
					job := ji.Job.DeepCopy()
					job.Spec.MinAvailable = 99
					ji.SetJob(job)
					for _, pp := range ji.Pods() {
						m := pp.DeepCopy()
						m.Labels["mutated"] = "yes"
						_ = ji.AddPod(m)
					}
				}
			}
		}
		if !assert.Equal(t, frozen, snap) {
			t.Fatalf("the snapshot changed with the cache")
		}
		now, err := c.Get("ns/j")
		require.NoError(t, err)
		assert.NotEqual(t, int32(99), now.Job.Spec.MinAvailable, "a caller's change reached the cache")
		for _, pp := range now.Pods() {
			assert.NotContains(t, pp.Labels, "mutated")
		}
	})
}

func TestPartition(t *testing.T) {
	c := cache.New()
	require.NoError(t, c.Add(testJob("j", "1")))
	for i := 0; i < 4; i++ {
		p := testPod("j", "w", i, corev1.PodRunning)
		p.Labels[vcjob.PartitionIDKey] = fmt.Sprint(i / 2)
		require.NoError(t, c.AddPod(p))
	}
	pods, err := c.Partition("ns/j", "w", "1")
	require.NoError(t, err)
	require.Len(t, pods, 2)
	assert.Equal(t, "j-w-2", pods[0].Name)
	assert.Equal(t, "j-w-3", pods[1].Name)
	_, err = c.Partition("ns/nope", "w", "1")
	assert.ErrorIs(t, err, cache.ErrNotFound)
}

// TestLease: a leased snapshot stays as it was while the cache moves on,
// and once it is given back the cache updates the job in place again,
// which the other snapshots taken with Get never see.
func TestLease(t *testing.T) {
	c := cache.New()
	require.NoError(t, c.Add(testJob("j", "1")))
	p0 := testPod("j", "w", 0, corev1.PodPending)
	require.NoError(t, c.AddPod(p0))

	lease, err := c.Lease("ns", "j")
	require.NoError(t, err)
	kept, err := c.Get("ns/j")
	require.NoError(t, err)

	running := next(p0, func(p *corev1.Pod) { p.Status.Phase = corev1.PodRunning })
	_, ok := c.OnPodUpdate(p0, running)
	require.True(t, ok)
	assert.Same(t, p0, lease.Pod("w", p0.Name), "the lease still holds the pod as it was")
	assert.Equal(t, int32(1), lease.Task("w").Counts().Phases.Pending)
	lease.Release()
	lease.Release() // a second release is harmless

	for i := 0; i < 3; i++ {
		before := running
		running = next(running, func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded })
		_, ok = c.OnPodUpdate(before, running)
		require.True(t, ok)
	}
	now, err := c.Get("ns/j")
	require.NoError(t, err)
	assert.Same(t, running, now.Pod("w", p0.Name))
	assert.Equal(t, int32(1), now.Task("w").Counts().Phases.Succeeded)
	assert.Same(t, p0, kept.Pod("w", p0.Name), "a snapshot from Get is kept for good")
	assert.Equal(t, int32(1), kept.Task("w").Counts().Phases.Pending)

	_, err = c.Lease("ns", "nope")
	assert.ErrorIs(t, err, cache.ErrNotFound)
	assert.True(t, c.Has("ns/j"))
	assert.False(t, c.Has("ns/nope"))
}

// TestPodUpdateAllocatesNothing: with no lease out, a pod update changes
// the job's maps in place; the first update after a lease copies the path
// the lease shares (and the next ones change that copy in place).
func TestPodUpdateAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	c := cache.New()
	require.NoError(t, c.Add(testJob("j", "1")))
	pod := testPod("j", "w", 0, corev1.PodRunning)
	pod.Labels[vcjob.PartitionIDKey] = "0" // its partition's set is kept too
	pod.Annotations[vcjob.PodOutOfSyncKey] = "true"
	require.NoError(t, c.AddPod(pod))
	versions := make([]*corev1.Pod, 202)
	versions[0] = pod
	for i := 1; i < len(versions); i++ {
		versions[i] = next(versions[i-1], func(p *corev1.Pod) {})
	}
	lease, err := c.Lease("ns", "j")
	require.NoError(t, err)
	i := 0
	update := func() {
		c.OnPodUpdate(versions[i], versions[i+1])
		i++
	}
	// The first update after a lease copies what the lease shares.
	update()
	lease.Release()
	assert.Zero(t, testing.AllocsPerRun(100, update), "allocations per pod update with no lease out")
	lease, err = c.Lease("ns", "j")
	require.NoError(t, err)
	defer lease.Release()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	update()
	runtime.ReadMemStats(&after)
	assert.NotZero(t, after.Mallocs-before.Mallocs, "the first update under a lease copies")
	assert.Zero(t, testing.AllocsPerRun(50, update), "later ones change the copy in place")
}

// TestConcurrentLeases: workers lease, read and give back snapshots while
// the informers' updates go in place between leases. Every snapshot must be
// a consistent moment (its counts equal a recount of its own pods) and must
// not move while it is read; run it with -race.
func TestConcurrentLeases(t *testing.T) {
	c := cache.New()
	const pods, rounds = 6, 300
	job := testJob("j", "1")
	job.Spec.Tasks[0].Replicas = pods
	require.NoError(t, c.Add(job))
	for i := 0; i < pods; i++ {
		require.NoError(t, c.AddPod(testPod("j", "w", i, corev1.PodPending)))
	}
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { // the informer: pods move through phases
		defer wg.Done()
		cur := make([]*corev1.Pod, pods)
		for i := range cur {
			cur[i] = testPod("j", "w", i, corev1.PodPending)
		}
		phases := []corev1.PodPhase{corev1.PodRunning, corev1.PodSucceeded, corev1.PodPending, corev1.PodFailed}
		for r := 0; r < rounds; r++ {
			i := r % pods
			nxt := next(cur[i], phase(phases[r%len(phases)]))
			_, _ = c.OnPodUpdate(cur[i], nxt)
			cur[i] = nxt
		}
	}()
	var failures sync.Map
	for w := 0; w < 2; w++ {
		go func() { // workers: lease, read twice, give back
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				ji, err := c.Lease("ns", "j")
				if err != nil {
					failures.Store(err.Error(), true)
					return
				}
				first, err := leaseReading(ji)
				if err != nil {
					failures.Store(err.Error(), true)
				}
				if again, _ := leaseReading(ji); again != first {
					failures.Store(fmt.Sprintf("a leased snapshot moved: %s, then %s", first, again), true)
				}
				ji.Release()
			}
		}()
	}
	wg.Wait()
	failures.Range(func(k, _ any) bool { t.Error(k); return true })
}

// leaseReading is a snapshot's pods and counts in one line, after checking
// that the counts agree with its pods.
func leaseReading(ji *jobinfo.Info) (string, error) {
	var phases []string
	byPhase := map[corev1.PodPhase]int32{}
	for _, p := range ji.Task("w").Sorted() {
		phases = append(phases, string(p.Status.Phase))
		byPhase[p.Status.Phase]++
	}
	c := ji.Task("w").Counts()
	if c.Phases.Pending != byPhase[corev1.PodPending] || c.Phases.Running != byPhase[corev1.PodRunning] ||
		c.Phases.Succeeded != byPhase[corev1.PodSucceeded] || c.Phases.Failed != byPhase[corev1.PodFailed] {
		return "", fmt.Errorf("counts %+v disagree with pods %v", c.Phases, phases)
	}
	return fmt.Sprint(phases), nil
}
