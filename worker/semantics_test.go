package worker_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/semantics"
	"github.com/vcjob/vcjob/statemachine"
)

// The step decides under Cluster.Semantics: a finished job left alone
// records no call and no effects of an earlier one; delayed actions are
// held by pod UID.
func TestStepUnderSemantics(t *testing.T) {
	for _, tc := range []struct {
		name      string
		sem       semantics.Profile
		call      statemachine.Call
		version   int32
		cancelled int
	}{
		{"volcano", semantics.Profile{}, statemachine.CallKillJob, 2, 1},
		{"corrected", semantics.Corrected(), statemachine.CallNone, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, step := world(t)
			step.Cluster.Semantics = tc.sem

			// An eviction's delayed restart; the pod of that name comes
			// back as another pod (another UID) and runs.
			rec := step.Process(context.Background(), podReq(vcjob.PodEvictedEvent, "j-worker-0"), t0)
			require.NotNil(t, rec.Registered)
			assert.Equal(t, tc.sem.DelaysByPodUID, rec.Registered.ByPodUID)
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
