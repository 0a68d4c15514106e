package worker_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/delay"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
	"github.com/vcjob/vcjob/worker"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func minutes(n int) *metav1.Duration {
	return &metav1.Duration{Duration: time.Duration(n) * time.Minute}
}

// world is a running job "j" of two workers in memcluster, and a step on
// it. The worker task aborts the job 5 minutes after a pod is Pending, and
// restarts the job 1 minute after an eviction.
func world(t *testing.T) (*memcluster.Cluster, *worker.Step) {
	t.Helper()
	job := &vcjob.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "uid-j"},
		Spec: vcjob.JobSpec{MinAvailable: 2, MaxRetry: 3, Queue: "default", Tasks: []vcjob.TaskSpec{{
			Name: "worker", Replicas: 2, MaxRetry: 3,
			Policies: []vcjob.LifecyclePolicy{
				{Event: vcjob.PodPendingEvent, Action: vcjob.AbortJobAction, Timeout: minutes(5)},
				{Event: vcjob.PodEvictedEvent, Action: vcjob.RestartJobAction, Timeout: minutes(1)},
			},
		}}},
		Status: vcjob.JobStatus{State: vcjob.JobState{Phase: vcjob.Running}, MinAvailable: 2},
	}
	c := memcluster.New(metav1.NewTime(t0))
	c.PutJob(job)
	for i := 0; i < 2; i++ {
		p := statemachine.RenderPod(job, &job.Spec.Tasks[0], i)
		p.UID = "uid-pod"
		p.Status.Phase = corev1.PodRunning
		c.PutPod(p)
	}
	c.SetPodGroupPhase("ns", podgroup.Name(job), podgroup.PhaseRunning)
	return c, &worker.Step{Jobs: c, Delays: delay.New(), Cluster: &statemachine.Applied{Applier: c}}
}

func podReq(event vcjob.Event, pod string) request.Request {
	return request.Request{Namespace: "ns", JobName: "j", JobUID: "uid-j", TaskName: "worker", PodName: pod, PodUID: "uid-pod", Event: event}
}

func TestProcessRegistersADelayInsteadOfActing(t *testing.T) {
	c, s := world(t)
	rec := s.Process(context.Background(), podReq(vcjob.PodPendingEvent, "j-worker-0"), t0)
	require.NotNil(t, rec.Registered)
	assert.Equal(t, vcjob.AbortJobAction, rec.Action)
	assert.Equal(t, 5*time.Minute, rec.Delay)
	assert.Equal(t, t0.Add(5*time.Minute), rec.Registered.Due)
	assert.Nil(t, rec.Transition, "nothing ran")
	assert.Equal(t, vcjob.Running, c.Job("ns", "j").Status.State.Phase)

	again := s.Process(context.Background(), podReq(vcjob.PodPendingEvent, "j-worker-0"), t0.Add(time.Minute))
	assert.True(t, again.DelayDropped, "same pod, same action: dropped")
	assert.Equal(t, 1, s.Delays.Len())
}

func TestPodRunningCancelsThePendingTimeout(t *testing.T) {
	_, s := world(t)
	s.Process(context.Background(), podReq(vcjob.PodPendingEvent, "j-worker-0"), t0)
	rec := s.Process(context.Background(), podReq(vcjob.PodRunningEvent, "j-worker-0"), t0.Add(time.Minute))
	require.Len(t, rec.Cancelled, 1)
	assert.Equal(t, vcjob.AbortJobAction, rec.Cancelled[0].Action)
	assert.Zero(t, s.Delays.Len())
	assert.Equal(t, vcjob.SyncJobAction, rec.Action)
}

func TestFireRunsOnTheJobAsItIsThen(t *testing.T) {
	c, s := world(t)
	s.Process(context.Background(), podReq(vcjob.PodEvictedEvent, "j-worker-1"), t0)
	require.Empty(t, s.Delays.Due(t0.Add(59*time.Second)), "not due yet")
	due := s.Delays.Due(t0.Add(time.Minute))
	require.Len(t, due, 1)
	rec := s.Fire(context.Background(), due[0], t0.Add(time.Minute))
	require.NoError(t, rec.Err)
	assert.Equal(t, worker.RuleDelayed, rec.Rule.Kind)
	assert.Equal(t, vcjob.Running, rec.PhaseBefore)
	assert.Equal(t, vcjob.Restarting, rec.PhaseAfter)
	assert.ElementsMatch(t, []string{"j-worker-0", "j-worker-1"}, rec.Effects.Deleted)
	assert.Equal(t, int32(1), c.Job("ns", "j").Status.RetryCount)
}

func TestAJobLevelActionCancelsJobLevelDelays(t *testing.T) {
	_, s := world(t)
	s.Process(context.Background(), podReq(vcjob.PodPendingEvent, "j-worker-0"), t0)
	require.Equal(t, 1, s.Delays.Len())
	cmd := request.Request{Namespace: "ns", JobName: "j", Event: vcjob.CommandIssuedEvent, Action: vcjob.TerminateJobAction}
	rec := s.Process(context.Background(), cmd, t0.Add(time.Second))
	require.NoError(t, rec.Err)
	assert.Equal(t, policy.RuleCommand, rec.Rule.Kind)
	assert.Equal(t, vcjob.Terminating, rec.PhaseAfter)
	require.Len(t, rec.Cancelled, 1, "the pending AbortJob is job level too")
	assert.Zero(t, s.Delays.Len())
}

func TestSyncCancelsNothing(t *testing.T) {
	_, s := world(t)
	s.Process(context.Background(), podReq(vcjob.PodPendingEvent, "j-worker-0"), t0)
	rec := s.Process(context.Background(), request.Request{Namespace: "ns", JobName: "j", Event: vcjob.OutOfSyncEvent}, t0)
	assert.Empty(t, rec.Cancelled)
	assert.Equal(t, 1, s.Delays.Len())
}

func TestAFailedStepKeepsItsDelays(t *testing.T) {
	c, s := world(t)
	s.Process(context.Background(), podReq(vcjob.PodPendingEvent, "j-worker-0"), t0)
	c.FailDelete = func(*corev1.Pod) error { return errors.New("apiserver unavailable") }
	rec := s.Process(context.Background(), request.Request{Namespace: "ns", JobName: "j", Event: vcjob.CommandIssuedEvent, Action: vcjob.RestartJobAction}, t0)
	require.Error(t, rec.Err)
	assert.Contains(t, rec.Err.Error(), "apiserver unavailable")
	assert.Empty(t, rec.Cancelled)
	assert.Equal(t, 1, s.Delays.Len())
	assert.Equal(t, vcjob.Running, c.Job("ns", "j").Status.State.Phase, "nothing written")
}

func TestAJobThatIsGoneIsSkipped(t *testing.T) {
	_, s := world(t)
	rec := s.Process(context.Background(), request.Request{Namespace: "ns", JobName: "gone", Event: vcjob.OutOfSyncEvent}, t0)
	assert.NotEmpty(t, rec.Skipped)
	assert.Nil(t, rec.Transition)
}

func TestRequeue(t *testing.T) {
	for _, tc := range []struct {
		requeues, max int
		want          bool
	}{{0, 15, true}, {14, 15, true}, {15, 15, false}, {1000, -1, true}, {0, 0, false}} {
		assert.Equal(t, tc.want, worker.Requeue(tc.requeues, tc.max), "%d of %d", tc.requeues, tc.max)
	}
}

func TestDeleteBackoff(t *testing.T) {
	want := []time.Duration{5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560}
	for i, w := range want {
		got, ok := worker.DeleteBackoff(i)
		assert.True(t, ok)
		assert.Equal(t, w*time.Millisecond, got, "attempt %d", i)
	}
	_, ok := worker.DeleteBackoff(10)
	assert.False(t, ok, "at most 10 retries")
	_, ok = worker.DeleteBackoff(-1)
	assert.False(t, ok)
}
