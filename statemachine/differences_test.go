package statemachine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/jobinfo"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
)

// Each correction of behavior.Set against Volcano's behaviour, which the
// zero Semantics keeps.

func TestCountFinishedAfterKill(t *testing.T) {
	pods := func() []*corev1.Pod {
		return []*corev1.Pod{
			pod("w", 0, corev1.PodSucceeded), pod("w", 1, corev1.PodSucceeded), pod("w", 2, corev1.PodRunning),
			pod("w", 3, corev1.PodFailed), pod("ps", 0, corev1.PodRunning),
		}
	}
	for _, tc := range []struct {
		name                   string
		sem                    behavior.Set
		kill                   func(ji *jobinfo.Info, opts statemachine.PlanOptions) *statemachine.KillPlan
		succeeded, failed, trm int32
		tasks                  map[string]vcjob.TaskState
	}{
		{name: "volcano: an abort keeps the finished pods and zeroes their counts (volcano#4616)",
			kill: func(ji *jobinfo.Info, o statemachine.PlanOptions) *statemachine.KillPlan {
				return statemachine.PlanKillJobWith(ji, statemachine.RetainSoft, o)
			},
			trm: 2, tasks: map[string]vcjob.TaskState{}},
		{name: "corrected: the abort counts them",
			sem: behavior.Of(behavior.CountFinishedAfterKill),
			kill: func(ji *jobinfo.Info, o statemachine.PlanOptions) *statemachine.KillPlan {
				return statemachine.PlanKillJobWith(ji, statemachine.RetainSoft, o)
			},
			succeeded: 2, failed: 1, trm: 2,
			tasks: map[string]vcjob.TaskState{"w": {Phase: map[corev1.PodPhase]int32{corev1.PodSucceeded: 2, corev1.PodFailed: 1}}}},
		{name: "corrected: a restart that kills every pod has none to count",
			sem: behavior.Of(behavior.CountFinishedAfterKill),
			kill: func(ji *jobinfo.Info, o statemachine.PlanOptions) *statemachine.KillPlan {
				return statemachine.PlanKillJobWith(ji, statemachine.RetainNone, o)
			},
			trm: 5, tasks: map[string]vcjob.TaskState{}},
		{name: "volcano: a targeted kill counts only its target",
			kill: func(ji *jobinfo.Info, o statemachine.PlanOptions) *statemachine.KillPlan {
				return statemachine.PlanKillTargetWith(ji, request.Target{Level: vcjob.TaskLevel, TaskName: "ps"}, o)
			},
			trm: 1, tasks: map[string]vcjob.TaskState{}},
		{name: "corrected: a targeted kill counts the finished pods outside it",
			sem: behavior.Of(behavior.CountFinishedAfterKill),
			kill: func(ji *jobinfo.Info, o statemachine.PlanOptions) *statemachine.KillPlan {
				return statemachine.PlanKillTargetWith(ji, request.Target{Level: vcjob.TaskLevel, TaskName: "ps"}, o)
			},
			succeeded: 2, failed: 1, trm: 1,
			tasks: map[string]vcjob.TaskState{"w": {Phase: map[corev1.PodPhase]int32{corev1.PodSucceeded: 2, corev1.PodFailed: 1}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ji := fixture(t, vcjob.Running, pods()...)
			out := tc.kill(ji, statemachine.PlanOptions{Behavior: tc.sem}).Complete(nil, statemachine.UpdateAbort.Func(ji.Job), now)
			require.NoError(t, out.Err)
			assert.Equal(t, tc.succeeded, out.Status.Succeeded)
			assert.Equal(t, tc.failed, out.Status.Failed)
			assert.Equal(t, tc.trm, out.Status.Terminating)
			assert.Equal(t, int32(0), out.Status.Running)
			assert.Equal(t, tc.tasks, out.Status.TaskStatusCount)
		})
	}
}

func TestOutOfSyncCountedOnce(t *testing.T) {
	for _, recount := range []bool{false, true} {
		for _, tc := range []struct {
			sem              behavior.Set
			running, failed  int32
			wTask            map[corev1.PodPhase]int32
			name             string
			terminatingAfter int32
		}{
			{name: "volcano: the out-of-sync pods count by phase and as terminating", running: 4, failed: 1, terminatingAfter: 2,
				wTask: map[corev1.PodPhase]int32{corev1.PodRunning: 3, corev1.PodFailed: 1}},
			{name: "corrected: only as terminating", sem: behavior.Of(behavior.OutOfSyncCountedOnce), running: 3, terminatingAfter: 2,
				wTask: map[corev1.PodPhase]int32{corev1.PodRunning: 2}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				ji := fixture(t, vcjob.Running,
					pod("w", 0, corev1.PodRunning), pod("w", 1, corev1.PodRunning, outOfSync), pod("w", 2, corev1.PodRunning),
					pod("w", 3, corev1.PodFailed, outOfSync), pod("ps", 0, corev1.PodRunning))
				p := statemachine.PlanSyncWith(ji, statemachine.PodGroupState{Exists: true, Phase: podgroup.PhaseRunning}, now,
					statemachine.PlanOptions{Behavior: tc.sem, Recount: recount})
				assert.Equal(t, []string{"j-w-1", "j-w-3"}, names(p.Delete))
				out := p.Complete(nil, nil, now)
				require.NoError(t, out.Err)
				assert.Equal(t, tc.running, out.Status.Running, "recount %v", recount)
				assert.Equal(t, tc.failed, out.Status.Failed, "recount %v", recount)
				assert.Equal(t, tc.terminatingAfter, out.Status.Terminating)
				assert.Equal(t, tc.wTask, out.Status.TaskStatusCount["w"].Phase)
			})
		}
	}
}

// TestTableVariants: the rows a difference or a mark selects, and the
// rows they leave alone.
func TestTableVariants(t *testing.T) {
	for _, tc := range []struct {
		state  statemachine.State
		action vcjob.Action
		sem    behavior.Set
		update statemachine.UpdateRule
		retain statemachine.Retain
		to     []vcjob.JobPhase
	}{
		// ResumeJob counts a retry in Volcano (volcano#3067).
		{statemachine.StateAborted, vcjob.ResumeJobAction, behavior.Set{}, statemachine.UpdateRestart, statemachine.RetainSoft, []vcjob.JobPhase{vcjob.Restarting}},
		{statemachine.StateAborted, vcjob.ResumeJobAction, behavior.Of(behavior.ResumeKeepsRetries), statemachine.UpdateResume, statemachine.RetainSoft, []vcjob.JobPhase{vcjob.Restarting}},
		{statemachine.StateAborting, vcjob.ResumeJobAction, behavior.Set{}, statemachine.UpdateRestart, statemachine.RetainSoft, []vcjob.JobPhase{vcjob.Restarting}},
		{statemachine.StateAborting, vcjob.ResumeJobAction, behavior.Of(behavior.ResumeKeepsRetries), statemachine.UpdateResume, statemachine.RetainSoft, []vcjob.JobPhase{vcjob.Restarting}},
		// AbortJob in Restarting does not abort in Volcano.
		{statemachine.StateRestarting, vcjob.AbortJobAction, behavior.Set{}, statemachine.UpdateRestarting, statemachine.RetainNone, []vcjob.JobPhase{vcjob.Failed, vcjob.Pending}},
		{statemachine.StateRestarting, vcjob.AbortJobAction, behavior.Of(behavior.AbortWhileRestarting), statemachine.UpdateAbort, statemachine.RetainSoft, []vcjob.JobPhase{vcjob.Aborting}},
		// Other actions keep their rows.
		{statemachine.StateRestarting, vcjob.TerminateJobAction, behavior.Corrected(), statemachine.UpdateRestarting, statemachine.RetainNone, []vcjob.JobPhase{vcjob.Failed, vcjob.Pending}},
		{statemachine.StateRunning, vcjob.ResumeJobAction, behavior.Corrected(), statemachine.UpdateRunningSync, "", []vcjob.JobPhase{vcjob.Completed, vcjob.Failed, vcjob.Pending}},
	} {
		tr := statemachine.LookupFor(tc.state, tc.action, 0, tc.sem)
		assert.Equal(t, tc.update, tr.Update, "%s %s %s", tc.state, tc.action, tc.sem)
		assert.Equal(t, tc.retain, tr.Retain, "%s %s %s", tc.state, tc.action, tc.sem)
		assert.Equal(t, tc.to, tr.To, "%s %s %s", tc.state, tc.action, tc.sem)
	}
	for _, tc := range []struct {
		state  statemachine.State
		action vcjob.Action
		marks  statemachine.Mark
		call   statemachine.Call
		update statemachine.UpdateRule
	}{
		{statemachine.StateRunning, vcjob.RestartJobAction, statemachine.MarkKeepRetries, statemachine.CallKillJob, statemachine.UpdateResume},
		{statemachine.StateRunning, vcjob.RestartPodAction, statemachine.MarkFailJob, statemachine.CallKillJob, statemachine.UpdateFail},
		// Both marks: a restart that keeps retries does not fail.
		{statemachine.StatePending, vcjob.RestartTaskAction, statemachine.MarkKeepRetries | statemachine.MarkFailJob, statemachine.CallKillTarget, statemachine.UpdateResume},
		// In Restarting a restart counts no retry anyway; beyond the
		// budget it fails, but a sync stays a sync.
		{statemachine.StateRestarting, vcjob.RestartPodAction, statemachine.MarkKeepRetries, statemachine.CallKillTarget, statemachine.UpdateRestarting},
		{statemachine.StateRestarting, vcjob.RestartJobAction, statemachine.MarkFailJob, statemachine.CallKillJob, statemachine.UpdateFail},
		{statemachine.StateRestarting, vcjob.SyncJobAction, statemachine.MarkFailJob, statemachine.CallSyncJob, statemachine.UpdateRestarting},
		{statemachine.StateRunning, vcjob.SyncJobAction, statemachine.MarkFailJob, statemachine.CallSyncJob, statemachine.UpdateRunningSync},
		{statemachine.StateFinished, vcjob.RestartJobAction, statemachine.MarkFailJob, statemachine.CallKillJob, statemachine.UpdateKeep},
	} {
		tr := statemachine.LookupFor(tc.state, tc.action, tc.marks, behavior.Set{})
		assert.Equal(t, tc.call, tr.Call, "%s %s %s", tc.state, tc.action, tc.marks)
		assert.Equal(t, tc.update, tr.Update, "%s %s %s", tc.state, tc.action, tc.marks)
	}
	for _, state := range []statemachine.State{statemachine.StateFinished, statemachine.StateAborted} {
		tr := statemachine.LookupFor(state, vcjob.SyncJobAction, 0, behavior.Of(behavior.LeaveFinishedJobs))
		assert.Equal(t, statemachine.CallKillJobUnlessIdle, tr.Call, state)
	}
	s := vcjob.JobStatus{RetryCount: 2, State: vcjob.JobState{Phase: vcjob.Aborted}}
	assert.True(t, statemachine.UpdateResume.Func(nil)(&s))
	assert.Equal(t, vcjob.JobStatus{RetryCount: 2, State: vcjob.JobState{Phase: vcjob.Restarting}}, s)
}

// calls records which calls Execute made.
type calls []statemachine.Call

func (c *calls) SyncJob(context.Context, *jobinfo.Info, statemachine.UpdateStatusFunc) error {
	*c = append(*c, statemachine.CallSyncJob)
	return nil
}

func (c *calls) KillJob(context.Context, *jobinfo.Info, statemachine.Retain, statemachine.UpdateStatusFunc) error {
	*c = append(*c, statemachine.CallKillJob)
	return nil
}

func (c *calls) KillTarget(context.Context, *jobinfo.Info, request.Target, statemachine.UpdateStatusFunc) error {
	*c = append(*c, statemachine.CallKillTarget)
	return nil
}

func TestLeaveFinishedJobs(t *testing.T) {
	leave := behavior.Of(behavior.LeaveFinishedJobs)
	done := []*corev1.Pod{pod("w", 0, corev1.PodSucceeded), pod("w", 1, corev1.PodFailed), pod("ps", 0, corev1.PodSucceeded, terminating)}
	for _, tc := range []struct {
		name   string
		phase  vcjob.JobPhase
		action vcjob.Action
		sem    behavior.Set
		pods   []*corev1.Pod
		want   statemachine.Call
	}{
		{"volcano kills a finished job again", vcjob.Completed, vcjob.SyncJobAction, behavior.Set{}, done, statemachine.CallKillJob},
		{"corrected leaves it alone", vcjob.Completed, vcjob.SyncJobAction, leave, done, statemachine.CallNone},
		{"also a command", vcjob.Failed, vcjob.RestartJobAction, leave, done, statemachine.CallNone},
		{"also Terminated", vcjob.Terminated, vcjob.SyncJobAction, leave, done, statemachine.CallNone},
		{"also Aborted", vcjob.Aborted, vcjob.SyncJobAction, leave, done, statemachine.CallNone},
		{"but ResumeJob resumes an Aborted job", vcjob.Aborted, vcjob.ResumeJobAction, leave, done, statemachine.CallKillJob},
		{"a pod left to delete is killed", vcjob.Completed, vcjob.SyncJobAction, leave, append(done, pod("w", 2, corev1.PodRunning)), statemachine.CallKillJob},
		{"a running job is not finished", vcjob.Running, vcjob.SyncJobAction, leave, done, statemachine.CallSyncJob},
		{"Aborting finishes its kill", vcjob.Aborting, vcjob.SyncJobAction, leave, done, statemachine.CallKillJob},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ji := fixture(t, tc.phase, tc.pods...)
			var c calls
			tr, err := statemachine.ExecuteWith(context.Background(), &c, ji, tc.action, request.Target{}, statemachine.Options{Behavior: tc.sem})
			require.NoError(t, err)
			assert.Equal(t, tc.want, tr.Call)
			if tc.want == statemachine.CallNone {
				assert.Empty(t, c, "no call made")
			} else {
				assert.Equal(t, calls{tc.want}, c)
			}
		})
	}
}

func TestExecuteReadsTheJobsAnnotation(t *testing.T) {
	ji := fixture(t, vcjob.Restarting)
	var c calls
	tr, err := statemachine.Execute(context.Background(), &c, ji, vcjob.AbortJobAction, request.Target{})
	require.NoError(t, err)
	assert.Equal(t, statemachine.UpdateRestarting, tr.Update, "Volcano's without the annotation")

	job := ji.Job.DeepCopy()
	job.Annotations = map[string]string{behavior.Annotation: "abort-while-restarting"}
	ji.SetJob(job)
	tr, err = statemachine.Execute(context.Background(), &c, ji, vcjob.AbortJobAction, request.Target{})
	require.NoError(t, err)
	assert.Equal(t, statemachine.UpdateAbort, tr.Update)
	tr, err = statemachine.ExecuteWith(context.Background(), &c, ji, vcjob.AbortJobAction, request.Target{}, statemachine.Options{Behavior: behavior.Corrected()})
	require.NoError(t, err)
	assert.Equal(t, statemachine.UpdateAbort, tr.Update)
	job = job.DeepCopy()
	job.Annotations[behavior.Annotation] = "volcano"
	ji.SetJob(job)
	tr, err = statemachine.ExecuteWith(context.Background(), &c, ji, vcjob.AbortJobAction, request.Target{}, statemachine.Options{Behavior: behavior.Corrected()})
	require.NoError(t, err)
	assert.Equal(t, statemachine.UpdateRestarting, tr.Update, "the job asks for Volcano's over the embedder's")
}

func TestAppliedExtensionsFor(t *testing.T) {
	a := &statemachine.Applied{Extensions: &policy.Extensions{Disruptions: &policy.DisruptionRule{}}}
	job := fixture(t, vcjob.Running).Job.DeepCopy()
	assert.Same(t, a.Extensions, a.ExtensionsFor(job), "no annotation: the embedder's")
	job.Annotations = map[string]string{policy.ExtensionsAnnotation: "deadline: {after: 1h}"}
	first := a.ExtensionsFor(job)
	require.NotNil(t, first)
	assert.NotNil(t, first.Deadline)
	assert.Nil(t, first.Disruptions, "the job's own document replaces the embedder's")
	assert.Same(t, first, a.ExtensionsFor(job.DeepCopy()), "decoded once")
	job.Annotations[policy.ExtensionsAnnotation] = "bogus: 1"
	assert.Nil(t, a.ExtensionsFor(job), "a document that does not decode gives none")
}

// TestEveryTableDifferenceHasARow: a difference whose owner the registry
// names as the table selects at least one row, and every row's difference
// names the table as its owner.
func TestEveryTableDifferenceHasARow(t *testing.T) {
	tagged := map[behavior.ID]bool{}
	for _, tr := range statemachine.Table() {
		if tr.When != 0 {
			tagged[tr.When] = true
			owner := tr.When.Entry().Owner
			assert.True(t, owner == "statemachine.Table" || owner == "statemachine.leaveAlone", "%s: row of %s, owned by %s", tr.When, tr.State, owner)
		}
	}
	for _, e := range behavior.Registry() {
		if e.Owner == "statemachine.Table" {
			assert.True(t, tagged[e.ID], "%s: owned by the table, but no row is tagged with it", e.Name)
		}
	}
}
