package worker_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/worker"
)

// TestDecisionEvents pins processNextReq's ExecuteAction Events: their
// type, reason and message, the trailing space included.
func TestDecisionEvents(t *testing.T) {
	for _, tc := range []struct {
		action vcjob.Action
		delay  time.Duration
		want   []record.Event
	}{
		{vcjob.SyncJobAction, 0, nil},
		{vcjob.RestartJobAction, 0, []record.Event{{Type: "Normal", Reason: "ExecuteAction", Message: "Start to execute action RestartJob "}}},
		{vcjob.CompleteJobAction, 0, []record.Event{{Type: "Normal", Reason: "ExecuteAction", Message: "Start to execute action CompleteJob "}}},
		{vcjob.AbortJobAction, 10 * time.Minute, []record.Event{{Type: "Normal", Reason: "ExecuteAction", Message: "Execute action AbortJob after 10m0s"}}},
		{vcjob.SyncJobAction, 90 * time.Second, []record.Event{{Type: "Normal", Reason: "ExecuteAction", Message: "Execute action SyncJob after 1m30s"}}},
	} {
		assert.Equal(t, tc.want, worker.DecisionEvents(tc.action, tc.delay), "%s after %s", tc.action, tc.delay)
	}
	assert.Equal(t, "Normal ExecuteAction Job failed on action RestartPod for retry limit reached", worker.RetryLimitEvent(vcjob.RestartPodAction).String())
}

// TestRecordEvents: a record carries processNextReq's Event first, then
// the call's; a delayed action registered or dropped records its Event,
// one that fires records only its call's, a SyncJob records none.
func TestRecordEvents(t *testing.T) {
	ctx := context.Background()
	c, s := world(t)
	boom := errors.New("boom")

	sync := s.Process(ctx, podReq(vcjob.PodRunningEvent, "j-worker-0"), t0)
	assert.Nil(t, sync.Events, "a SyncJob that fails at nothing records nothing")

	delayed := s.Process(ctx, podReq(vcjob.PodPendingEvent, "j-worker-0"), t0)
	require.NotNil(t, delayed.Registered)
	assert.Equal(t, []record.Event{worker.DelayedActionEvent(vcjob.AbortJobAction, 5*time.Minute)}, delayed.Events)
	dropped := s.Process(ctx, podReq(vcjob.PodPendingEvent, "j-worker-0"), t0.Add(time.Minute))
	require.True(t, dropped.DelayDropped)
	assert.Equal(t, []record.Event{{Type: "Normal", Reason: "ExecuteAction", Message: "Execute action AbortJob after 5m0s"}}, dropped.Events,
		"Volcano records the Event before it finds the duplicate")

	// A restart whose delete fails: the action's Event, then the kill's.
	c.FailDelete = func(p *corev1.Pod) error { return boom }
	restart := s.Process(ctx, request.Request{Namespace: "ns", JobName: "j", Event: vcjob.CommandIssuedEvent, Action: vcjob.RestartJobAction}, t0)
	require.Error(t, restart.Err)
	assert.Equal(t, []record.Event{
		{Type: "Normal", Reason: "ExecuteAction", Message: "Start to execute action RestartJob "},
		{Type: "Warning", Reason: "FailedDelete", Message: `Error deleting pods: [failed to delete pod j-worker-0, err &errors.errorString{s:"boom"} failed to delete pod j-worker-1, err &errors.errorString{s:"boom"}]`},
	}, restart.Events)
	assert.Equal(t, restart.Events[1:], restart.Effects.Events)

	// The pending timeout fires: no ExecuteAction Event, the kill's only.
	due := s.Delays.Due(t0.Add(5 * time.Minute))
	require.Len(t, due, 1)
	fired := s.Fire(ctx, due[0], t0.Add(5*time.Minute))
	require.Error(t, fired.Err)
	require.Len(t, fired.Events, 1)
	assert.Equal(t, "FailedDelete", fired.Events[0].Reason)

	// Given up: the retry-limit Event, then the TerminateJob kill's.
	c.FailDelete = nil
	gave := s.GiveUp(ctx, fired, t0.Add(5*time.Minute))
	require.NoError(t, gave.Err)
	assert.Equal(t, []record.Event{{Type: "Normal", Reason: "ExecuteAction", Message: "Job failed on action AbortJob for retry limit reached"}}, gave.Events)
	assert.Equal(t, vcjob.TerminateJobAction, gave.Action)
	assert.Equal(t, worker.RuleGiveUp, gave.Rule.Kind)
	assert.Equal(t, vcjob.Terminating, gave.PhaseAfter)
	assert.Equal(t, vcjob.Terminating, c.Job("ns", "j").Status.State.Phase)
}

// TestGiveUpKeepsDelayedActions: Volcano's handleJobError terminates the
// job without cancelling its delayed actions (a TerminateJob request
// would), and records its Event even when the kill fails.
func TestGiveUpKeepsDelayedActions(t *testing.T) {
	ctx := context.Background()
	c, s := world(t)
	s.Process(ctx, podReq(vcjob.PodPendingEvent, "j-worker-0"), t0)
	require.Equal(t, 1, s.Delays.Len())
	failed := worker.Record{Request: podReq(vcjob.PodFailedEvent, "j-worker-1"), Action: vcjob.RestartPodAction, Err: errors.New("boom")}
	c.FailStatus = func(*vcjob.Job) error { return errors.New("conflict") }
	gave := s.GiveUp(ctx, failed, t0)
	require.Error(t, gave.Err)
	assert.Equal(t, "Job failed on action RestartPod for retry limit reached", gave.Events[0].Message)
	assert.Empty(t, gave.Cancelled)
	assert.Equal(t, 1, s.Delays.Len(), "the pending timeout stays registered")

	gone := s.GiveUp(ctx, worker.Record{Request: request.Request{Namespace: "ns", JobName: "gone"}, Action: vcjob.SyncJobAction}, t0)
	assert.NotEmpty(t, gone.Skipped)
	assert.Nil(t, gone.Events, "Volcano records on the job its cache holds: none")
}
