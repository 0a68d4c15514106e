package statemachine_test

import (
	"errors"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/jobinfo"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
)

var now = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))

// fixture is job "j" with task "w" (4 replicas, partitions of 2) and task
// "ps" (1 replica), in phase, with the given pods.
func fixture(t *testing.T, phase vcjob.JobPhase, pods ...*corev1.Pod) *jobinfo.Info {
	t.Helper()
	job := &vcjob.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "u1"},
		Spec: vcjob.JobSpec{MinAvailable: 5, MaxRetry: 3, Queue: "q", SchedulerName: "volcano", Tasks: []vcjob.TaskSpec{
			{Name: "w", Replicas: 4, MinAvailable: i32(4), PartitionPolicy: &vcjob.PartitionPolicySpec{TotalPartitions: 2, PartitionSize: 2}},
			{Name: "ps", Replicas: 1, MinAvailable: i32(1)},
		}},
		Status: vcjob.JobStatus{State: vcjob.JobState{Phase: phase}, Version: 2, RetryCount: 0, MinAvailable: 5},
	}
	ji, err := jobinfo.New(job, pods...)
	require.NoError(t, err)
	return ji
}

type podOpt func(*corev1.Pod)

func pod(task string, index int, phase corev1.PodPhase, opts ...podOpt) *corev1.Pod {
	p := statemachine.RenderPod(&vcjob.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "u1"}},
		&vcjob.TaskSpec{Name: task, PartitionPolicy: partitionOf(task)}, index)
	p.Status.Phase = phase
	for _, o := range opts {
		o(p)
	}
	return p
}

func partitionOf(task string) *vcjob.PartitionPolicySpec {
	if task == "w" {
		return &vcjob.PartitionPolicySpec{TotalPartitions: 2, PartitionSize: 2}
	}
	return nil
}

func terminating(p *corev1.Pod) { p.DeletionTimestamp = &now }
func outOfSync(p *corev1.Pod)   { p.Annotations[vcjob.PodOutOfSyncKey] = "true" }

func names(pods []*corev1.Pod) []string {
	out := []string{}
	for _, p := range pods {
		out = append(out, p.Name)
	}
	sort.Strings(out)
	return out
}

func TestPlanKillJob(t *testing.T) {
	ji := fixture(t, vcjob.Running,
		pod("w", 0, corev1.PodRunning), pod("w", 1, corev1.PodSucceeded), pod("w", 2, corev1.PodFailed),
		pod("w", 3, corev1.PodRunning, terminating), pod("ps", 0, corev1.PodPending))

	t.Run("retain none kills every pod not already terminating", func(t *testing.T) {
		p := statemachine.PlanKillJob(ji, statemachine.RetainNone)
		assert.Equal(t, []string{"j-ps-0", "j-w-0", "j-w-1", "j-w-2"}, names(p.Delete))
		assert.True(t, p.BumpVersion)
		assert.True(t, p.DeletePodGroup)
	})
	t.Run("retain soft keeps Succeeded and Failed", func(t *testing.T) {
		p := statemachine.PlanKillJob(ji, statemachine.RetainSoft)
		assert.Equal(t, []string{"j-ps-0", "j-w-0"}, names(p.Delete))
	})
	t.Run("the last retry always retains soft", func(t *testing.T) {
		last := ji.Clone()
		last.Job.Status.RetryCount = 2 // maxRetry 3
		p := statemachine.PlanKillJob(last, statemachine.RetainNone)
		assert.Equal(t, []string{"j-ps-0", "j-w-0"}, names(p.Delete))
	})
	t.Run("complete: version bumped, only terminating counted, condition appended", func(t *testing.T) {
		p := statemachine.PlanKillJob(ji, statemachine.RetainSoft)
		out := p.Complete(nil, statemachine.UpdateAbort.Func(ji.Job), now)
		require.NoError(t, out.Err)
		assert.True(t, out.Write)
		assert.True(t, out.DeletePodGroup)
		assert.Equal(t, int32(3), out.Status.Version)
		assert.Equal(t, int32(3), out.Status.Terminating, "2 deleted + 1 already terminating")
		assert.Zero(t, out.Status.Succeeded, "retained pods are not counted")
		assert.Empty(t, out.Status.TaskStatusCount)
		assert.Equal(t, vcjob.Aborting, out.Status.State.Phase)
		assert.Equal(t, vcjob.Aborting, out.Status.Conditions[len(out.Status.Conditions)-1].Status)
	})
	t.Run("a failed delete writes nothing and returns the error", func(t *testing.T) {
		p := statemachine.PlanKillJob(ji, statemachine.RetainSoft)
		boom := errors.New("boom")
		out := p.Complete(map[string]error{"j-w-0": boom}, statemachine.UpdateAbort.Func(ji.Job), now)
		assert.ErrorIs(t, out.Err, boom)
		assert.False(t, out.Write)
		assert.False(t, out.DeletePodGroup)
	})
	t.Run("a job being deleted is left alone", func(t *testing.T) {
		gone := ji.Clone()
		gone.Job.DeletionTimestamp = &now
		assert.True(t, statemachine.PlanKillJob(gone, statemachine.RetainNone).Noop)
	})
}

func TestPlanKillTarget(t *testing.T) {
	ji := fixture(t, vcjob.Running,
		pod("w", 0, corev1.PodRunning), pod("w", 1, corev1.PodSucceeded), pod("w", 2, corev1.PodRunning),
		pod("w", 3, corev1.PodRunning, terminating), pod("ps", 0, corev1.PodRunning))
	cases := []struct {
		name   string
		target request.Target
		delete []string
		noop   bool
	}{
		{"task: every pod of it, whatever the phase", request.Target{Level: vcjob.TaskLevel, TaskName: "w"}, []string{"j-w-0", "j-w-1", "j-w-2"}, false},
		{"pod", request.Target{Level: vcjob.PodLevel, TaskName: "w", PodName: "j-w-1"}, []string{"j-w-1"}, false},
		{"a pod that does not exist still restarts, killing nothing", request.Target{Level: vcjob.PodLevel, TaskName: "w", PodName: "j-w-9"}, []string{}, false},
		{"partition by label", request.Target{Level: vcjob.PartitionLevel, TaskName: "w", PartitionID: "1"}, []string{"j-w-2"}, false},
		{"unknown partition is a no-op", request.Target{Level: vcjob.PartitionLevel, TaskName: "w", PartitionID: "7"}, []string{}, true},
		{"empty partition id is a no-op", request.Target{Level: vcjob.PartitionLevel, TaskName: "w"}, []string{}, true},
		{"a task without partition policy is a no-op", request.Target{Level: vcjob.PartitionLevel, TaskName: "ps", PartitionID: "0"}, []string{}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := statemachine.PlanKillTarget(ji, tc.target)
			assert.Equal(t, tc.noop, p.Noop)
			assert.Equal(t, tc.delete, names(p.Delete))
			assert.False(t, p.BumpVersion)
			assert.False(t, p.DeletePodGroup)
		})
	}
	t.Run("complete counts only the target's terminating pods", func(t *testing.T) {
		p := statemachine.PlanKillTarget(ji, request.Target{Level: vcjob.PartitionLevel, TaskName: "w", PartitionID: "1"})
		out := p.Complete(nil, statemachine.UpdateRestart.Func(ji.Job), now)
		assert.Equal(t, int32(2), out.Status.Terminating)
		assert.Zero(t, out.Status.Running)
		assert.Equal(t, int32(2), out.Status.Version, "no version bump")
		assert.Equal(t, int32(1), out.Status.RetryCount)
		assert.Equal(t, vcjob.Restarting, out.Status.State.Phase)
	})
}

func TestPlanSync(t *testing.T) {
	running := statemachine.PodGroupState{Exists: true, Phase: podgroup.PhaseRunning}

	t.Run("a new job is initiated: Pending, minAvailable, condition", func(t *testing.T) {
		ji := fixture(t, "")
		ji.Job.Status = vcjob.JobStatus{}
		p := statemachine.PlanSync(ji, statemachine.PodGroupState{}, now)
		require.NotNil(t, p.InitStatus)
		assert.True(t, p.Initiate)
		assert.Equal(t, vcjob.Pending, p.InitStatus.State.Phase)
		assert.Equal(t, int32(5), p.InitStatus.MinAvailable)
		assert.Len(t, p.InitStatus.Conditions, 1)
		assert.False(t, p.Reconcile, "no PodGroup: pods are not touched")
	})
	for _, pg := range []statemachine.PodGroupState{{}, {Exists: true}, {Exists: true, Phase: podgroup.PhasePending}} {
		t.Run("no reconcile with PodGroup "+string(pg.Phase), func(t *testing.T) {
			p := statemachine.PlanSync(fixture(t, vcjob.Running), pg, now)
			assert.False(t, p.Reconcile)
			assert.Empty(t, p.Create)
		})
	}
	t.Run("reconcile: create missing, delete out-of-sync and excess, count", func(t *testing.T) {
		ji := fixture(t, vcjob.Running,
			pod("w", 0, corev1.PodRunning), pod("w", 1, corev1.PodRunning, outOfSync),
			pod("w", 2, corev1.PodFailed, terminating), pod("w", 4, corev1.PodRunning, terminating),
			pod("w", 5, corev1.PodSucceeded))
		p := statemachine.PlanSync(ji, running, now)
		assert.True(t, p.Reconcile)
		assert.Equal(t, []string{"j-ps-0", "j-w-3"}, names(p.Create))
		assert.Equal(t, []string{"j-w-1", "j-w-4", "j-w-5"}, names(p.Delete))
		out := p.Complete(nil, statemachine.UpdateRunningSync.Func(ji.Job), now)
		require.NoError(t, out.Err)
		// running: w-0 and w-1 (out-of-sync still counted); pending: the 2
		// created; terminating: w-2 (already) + 3 deleted.
		assert.Equal(t, int32(2), out.Status.Running)
		assert.Equal(t, int32(2), out.Status.Pending)
		assert.Equal(t, int32(4), out.Status.Terminating)
		assert.Equal(t, int32(5), out.Status.MinAvailable)
		assert.True(t, out.Write)
	})
	t.Run("created pods carry the status before the step", func(t *testing.T) {
		ji := fixture(t, vcjob.Restarting)
		ji.Job.Status.RetryCount = 2
		p := statemachine.PlanSync(ji, running, now)
		require.NotEmpty(t, p.Create)
		assert.Equal(t, "2", p.Create[0].Annotations[vcjob.JobVersionKey])
		assert.Equal(t, "2", p.Create[0].Annotations[vcjob.JobRetryCountKey])
	})
	t.Run("dependsOn not met: nothing created for the task", func(t *testing.T) {
		ji := fixture(t, vcjob.Running, pod("ps", 0, corev1.PodPending))
		ji.Job.Spec.Tasks[0].DependsOn = &vcjob.DependsOn{Name: []string{"ps"}}
		p := statemachine.PlanSync(ji, running, now)
		assert.Equal(t, []string{"w"}, p.Waiting)
		assert.Empty(t, p.Create)
	})
	t.Run("dependsOn met by a ready running pod", func(t *testing.T) {
		ready := func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", Ready: true}}
		}
		ji := fixture(t, vcjob.Running, pod("ps", 0, corev1.PodRunning, ready))
		ji.Job.Spec.Tasks[0].DependsOn = &vcjob.DependsOn{Name: []string{"ps"}}
		p := statemachine.PlanSync(ji, running, now)
		assert.Empty(t, p.Waiting)
		assert.Len(t, p.Create, 4)
	})
	t.Run("dependsOn any: one ready task is enough", func(t *testing.T) {
		ji := fixture(t, vcjob.Running)
		ji.Job.Spec.Tasks = append(ji.Job.Spec.Tasks, vcjob.TaskSpec{Name: "idle", Replicas: 1, MinAvailable: i32(0)})
		ji.Job.Spec.Tasks[0].DependsOn = &vcjob.DependsOn{Name: []string{"ps", "idle"}, Iteration: vcjob.IterationAny}
		assert.True(t, statemachine.DependsOnMet(ji, &ji.Job.Spec.Tasks[0]), "minAvailable 0 is always ready")
		ji.Job.Spec.Tasks[0].DependsOn.Iteration = vcjob.IterationAll
		assert.False(t, statemachine.DependsOnMet(ji, &ji.Job.Spec.Tasks[0]))
	})
	t.Run("an unchanged status is not written", func(t *testing.T) {
		ji := fixture(t, vcjob.Running, pod("w", 0, corev1.PodRunning), pod("w", 1, corev1.PodRunning),
			pod("w", 2, corev1.PodRunning), pod("w", 3, corev1.PodRunning), pod("ps", 0, corev1.PodRunning))
		p := statemachine.PlanSync(ji, running, now)
		first := p.Complete(nil, statemachine.UpdateRunningSync.Func(ji.Job), now)
		require.True(t, first.Write)
		ji.Job.Status = first.Status
		again := statemachine.PlanSync(ji, running, now).Complete(nil, statemachine.UpdateRunningSync.Func(ji.Job), now)
		assert.False(t, again.Write)
	})
	t.Run("a failed create writes nothing", func(t *testing.T) {
		ji := fixture(t, vcjob.Running)
		p := statemachine.PlanSync(ji, running, now)
		out := p.Complete(map[string]error{"j-ps-0": errors.New("quota")}, statemachine.UpdateRunningSync.Func(ji.Job), now)
		assert.Error(t, out.Err)
		assert.False(t, out.Write)
	})
}

func TestAppendConditionMovesARepeatedPhase(t *testing.T) {
	s := vcjob.JobStatus{}
	for _, p := range []vcjob.JobPhase{vcjob.Pending, vcjob.Running, vcjob.Restarting, vcjob.Pending} {
		statemachine.AppendCondition(&s, p, now)
	}
	var got []vcjob.JobPhase
	for _, c := range s.Conditions {
		got = append(got, c.Status)
	}
	assert.Equal(t, []vcjob.JobPhase{vcjob.Running, vcjob.Restarting, vcjob.Pending}, got)
}

func TestRenderPod(t *testing.T) {
	job := &vcjob.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "u1",
			Annotations: map[string]string{vcjob.PreemptableKey: "true", vcjob.JDBMinAvailableKey: "1", vcjob.JDBMaxUnavailableKey: "2"},
			Labels:      map[string]string{vcjob.CooldownTimeKey: "60s"}},
		Spec: vcjob.JobSpec{Queue: "q", SchedulerName: "volcano", PriorityClassName: "high",
			Volumes: []vcjob.VolumeSpec{{MountPath: "/data", VolumeClaimName: "data"}}},
		Status: vcjob.JobStatus{Version: 3, RetryCount: 1},
	}
	task := &vcjob.TaskSpec{Name: "w", TopologyPolicy: vcjob.NumaPolicyBestEffort,
		PartitionPolicy: &vcjob.PartitionPolicySpec{TotalPartitions: 2, PartitionSize: 2},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}}
	p := statemachine.RenderPod(job, task, 3)
	assert.Equal(t, "j-w-3", p.Name)
	assert.Equal(t, map[string]string{
		"app": "x", vcjob.TaskIndexKey: "3", vcjob.JobNameKey: "j", vcjob.TaskSpecKey: "w", vcjob.JobNamespaceKey: "ns",
		vcjob.QueueNameKey: "q", vcjob.CooldownTimeKey: "60s", vcjob.PartitionIDKey: "1",
	}, p.Labels)
	assert.Equal(t, map[string]string{
		vcjob.TaskIndexKey: "3", vcjob.TaskSpecKey: "w", vcjob.PodGroupNameKey: "j-u1", vcjob.JobNameKey: "j",
		vcjob.QueueNameKey: "q", vcjob.JobVersionKey: "3", vcjob.TemplateUIDKey: "j-w", vcjob.JobRetryCountKey: "1",
		vcjob.NumaPolicyKey: "best-effort", vcjob.PreemptableKey: "true", vcjob.JDBMinAvailableKey: "1",
	}, p.Annotations, "jdb-max-unavailable is dropped when jdb-min-available is set")
	assert.Equal(t, "volcano", p.Spec.SchedulerName)
	assert.Equal(t, "high", p.Spec.PriorityClassName)
	require.Len(t, p.Spec.Volumes, 1)
	assert.Equal(t, "data", p.Spec.Volumes[0].PersistentVolumeClaim.ClaimName)
	assert.Equal(t, "/data", p.Spec.Containers[0].VolumeMounts[0].MountPath)
	require.Len(t, p.OwnerReferences, 1)
	assert.True(t, *p.OwnerReferences[0].Controller)
	_, touched := task.Template.Labels[vcjob.TaskIndexKey]
	assert.False(t, touched, "the template is not changed")
}

func TestKillTargetWithAJobLevelTargetKillsNothing(t *testing.T) {
	ji := fixture(t, vcjob.Running, pod("w", 0, corev1.PodRunning), pod("ps", 0, corev1.PodRunning))
	p := statemachine.PlanKillTarget(ji, request.Target{})
	assert.Empty(t, p.Delete)
	assert.False(t, p.BumpVersion)
	assert.False(t, p.DeletePodGroup)
}
