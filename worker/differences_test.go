package worker_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
)

// The step decides under Cluster.Semantics: a finished job left alone
// records no call and no effects of an earlier one; delayed actions are
// held by pod UID.
func TestStepUnderSemantics(t *testing.T) {
	for _, tc := range []struct {
		name      string
		sem       behavior.Set
		call      statemachine.Call
		version   int32
		cancelled int
	}{
		{"volcano", behavior.Set{}, statemachine.CallKillJob, 2, 1},
		{"corrected", behavior.Corrected(), statemachine.CallNone, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, step := world(t)
			step.Cluster.Behavior = tc.sem

			// An eviction's delayed restart; the pod of that name comes
			// back as another pod (another UID) and runs.
			rec := step.Process(context.Background(), podReq(vcjob.PodEvictedEvent, "j-worker-0"), t0)
			require.NotNil(t, rec.Registered)
			assert.Equal(t, tc.sem.Has(behavior.DelaysByPodUID), rec.Registered.ByPodUID)
			back := podReq(vcjob.PodRunningEvent, "j-worker-0")
			back.PodUID = "uid-new"
			rec = step.Process(context.Background(), back, t0)
			assert.Len(t, rec.Cancelled, tc.cancelled)

			// The job finishes with nothing left to delete.
			job := c.Job("ns", "j").DeepCopy()
			job.Status.State.Phase = vcjob.Completed
			c.PutJob(job)
			for _, p := range c.Pods("ns", "j") {
				p = p.DeepCopy()
				p.Status.Phase = corev1.PodSucceeded
				c.PutPod(p)
			}
			step.Process(context.Background(), request.Request{Namespace: "ns", JobName: "j", Event: vcjob.CommandIssuedEvent, Action: vcjob.ResumeJobAction}, t0)
			rec = step.Process(context.Background(), request.Request{Namespace: "ns", JobName: "j", Event: vcjob.OutOfSyncEvent}, t0)
			require.NoError(t, rec.Err)
			assert.Equal(t, tc.call, rec.Transition.Call)
			assert.Equal(t, tc.call, rec.Effects.Call)
			if tc.call == statemachine.CallNone {
				assert.False(t, rec.Effects.StatusWritten)
			}
			assert.Equal(t, vcjob.Completed, c.Job("ns", "j").Status.State.Phase)
			assert.Equal(t, tc.version, c.Job("ns", "j").Status.Version-job.Status.Version, "version bumps by the two requests")
		})
	}
}

// Under FailurePolicyBeforeSync a step asked to sync a Running job runs
// the policy of a pod failure the cache shows and no step acted on
// (volcano#3967: after a controller restart the job's sync comes before
// the pod's PodFailed, and under Volcano's semantics finishes the job).
func TestFailurePolicyBeforeSync(t *testing.T) {
	on := behavior.Of(behavior.FailurePolicyBeforeSync)
	restartOnFail := []vcjob.LifecyclePolicy{{Event: vcjob.PodFailedEvent, Action: vcjob.RestartJobAction}}
	for _, tc := range []struct {
		name     string
		sem      behavior.Set
		policies []vcjob.LifecyclePolicy
		phase    vcjob.JobPhase      // the job's, before the step
		pod      func(p *corev1.Pod) // worker-0, failed
		action   vcjob.Action
		after    vcjob.JobPhase
	}{
		{"volcano: the sync finishes the job", behavior.Set{}, restartOnFail, vcjob.Running, nil, vcjob.SyncJobAction, vcjob.Failed},
		{"the failure's RestartJob runs", on, restartOnFail, vcjob.Running, nil, vcjob.RestartJobAction, vcjob.Restarting},
		{"an exit-code policy", on, []vcjob.LifecyclePolicy{{ExitCode: code(3), Action: vcjob.AbortJobAction}}, vcjob.Running, nil, vcjob.AbortJobAction, vcjob.Aborting},
		{"no policy for that exit code", on, []vcjob.LifecyclePolicy{{ExitCode: code(4), Action: vcjob.AbortJobAction}}, vcjob.Running, nil, vcjob.SyncJobAction, vcjob.Failed},
		{"a policy that waits is left to the request", on,
			[]vcjob.LifecyclePolicy{{Event: vcjob.PodFailedEvent, Action: vcjob.RestartJobAction, Timeout: minutes(1)}}, vcjob.Running, nil, vcjob.SyncJobAction, vcjob.Failed},
		{"a terminating pod was acted on", on, restartOnFail, vcjob.Running,
			func(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{Time: t0} }, vcjob.SyncJobAction, vcjob.Running},
		{"a pod of an older version was acted on", on, restartOnFail, vcjob.Running,
			func(p *corev1.Pod) { p.Annotations[vcjob.JobVersionKey] = "-1" }, vcjob.SyncJobAction, vcjob.Failed},
		{"a pod of another job", on, restartOnFail, vcjob.Running,
			func(p *corev1.Pod) { p.OwnerReferences[0].UID = "uid-old" }, vcjob.SyncJobAction, vcjob.Failed},
		{"a Pending job syncs", on, restartOnFail, vcjob.Pending, nil, vcjob.SyncJobAction, vcjob.Running},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, step := world(t)
			step.Cluster.Behavior = tc.sem
			job := c.Job("ns", "j")
			job.Spec.Tasks[0].Policies = tc.policies
			job.Status.State.Phase = tc.phase
			c.PutJob(job)
			// worker-0 fails with exit code 3, worker-1 succeeds: every
			// pod has finished, and a sync in Running fails the job.
			for i, p := range c.Pods("ns", "j") {
				p.Status.Phase = corev1.PodSucceeded
				if i == 0 {
					p.Status.Phase = corev1.PodFailed
					p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 3}}}}
					if tc.pod != nil {
						tc.pod(p)
					}
				}
				c.PutPod(p)
			}
			rec := step.Process(context.Background(), request.Request{Namespace: "ns", JobName: "j", Event: vcjob.OutOfSyncEvent}, t0)
			require.NoError(t, rec.Err)
			assert.Equal(t, tc.action, rec.Action)
			assert.Equal(t, tc.after, c.Job("ns", "j").Status.State.Phase)
			if tc.action == vcjob.SyncJobAction {
				assert.Nil(t, rec.FailureFirst)
			} else if assert.NotNil(t, rec.FailureFirst) {
				assert.Equal(t, "j-worker-0", rec.FailureFirst.PodName)
				assert.Equal(t, vcjob.PodFailedEvent, rec.FailureFirst.Event)
				assert.Equal(t, int32(3), rec.FailureFirst.ExitCode)
			}
		})
	}
}

func code(c int32) *int32 { return &c }
