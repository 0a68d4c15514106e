package statemachine_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/statemachine"
)

func i32(v int32) *int32 { return &v }

// twoTasks is a job of master (1) and worker (3) with minAvailable 4.
func twoTasks() *vcjob.Job {
	return &vcjob.Job{Spec: vcjob.JobSpec{MinAvailable: 4, MaxRetry: 3, Tasks: []vcjob.TaskSpec{
		{Name: "master", Replicas: 1, MinAvailable: i32(1)},
		{Name: "worker", Replicas: 3, MinAvailable: i32(3)},
	}}}
}

func TestUpdateRules(t *testing.T) {
	tasks := func(masterSucceeded, workerSucceeded int32) map[string]vcjob.TaskState {
		return map[string]vcjob.TaskState{
			"master": {Phase: map[corev1.PodPhase]int32{corev1.PodSucceeded: masterSucceeded}},
			"worker": {Phase: map[corev1.PodPhase]int32{corev1.PodSucceeded: workerSucceeded}},
		}
	}
	cases := []struct {
		name    string
		rule    statemachine.UpdateRule
		job     func(*vcjob.Job)
		status  vcjob.JobStatus
		phase   vcjob.JobPhase
		retry   int32
		changed bool
	}{
		{name: "restart counts a retry", rule: statemachine.UpdateRestart, status: vcjob.JobStatus{RetryCount: 1}, phase: vcjob.Restarting, retry: 2, changed: true},
		{name: "abort always moves to Aborting", rule: statemachine.UpdateAbort, phase: vcjob.Aborting, changed: true},
		{name: "complete always moves to Completing", rule: statemachine.UpdateComplete, phase: vcjob.Completing, changed: true},
		{name: "terminate always moves to Terminating", rule: statemachine.UpdateTerminate, phase: vcjob.Terminating, changed: true},
		{name: "pending: minAvailable reached by running+succeeded+failed", rule: statemachine.UpdatePendingSync, status: vcjob.JobStatus{State: vcjob.JobState{Phase: vcjob.Pending}, Running: 2, Succeeded: 1, Failed: 1}, phase: vcjob.Running, changed: true},
		{name: "pending: one short stays", rule: statemachine.UpdatePendingSync, status: vcjob.JobStatus{State: vcjob.JobState{Phase: vcjob.Pending}, Running: 3, Pending: 1}, phase: vcjob.Pending},
		{name: "running: zero replicas keeps the phase", rule: statemachine.UpdateRunningSync, job: func(j *vcjob.Job) { j.Spec.Tasks[0].Replicas, j.Spec.Tasks[1].Replicas = 0, 0 }, status: running(0, 0), phase: vcjob.Running},
		{name: "running: minSuccess reached completes", rule: statemachine.UpdateRunningSync, job: func(j *vcjob.Job) { j.Spec.MinSuccess = i32(2) }, status: running(2, 0), phase: vcjob.Completed, changed: true},
		{name: "running: all finished but a task below its minAvailable fails", rule: statemachine.UpdateRunningSync, status: withTasks(running(3, 1), tasks(1, 2)), phase: vcjob.Failed, changed: true},
		{name: "running: all finished, a task absent from taskStatusCount is skipped", rule: statemachine.UpdateRunningSync, status: withTasks(running(4, 0), map[string]vcjob.TaskState{"worker": {Phase: map[corev1.PodPhase]int32{corev1.PodSucceeded: 3}}}), phase: vcjob.Completed, changed: true},
		{name: "running: all finished below minSuccess fails", rule: statemachine.UpdateRunningSync, job: func(j *vcjob.Job) { j.Spec.MinSuccess = i32(5); j.Spec.Tasks[1].Replicas = 5 }, status: running(4, 2), phase: vcjob.Failed, changed: true},
		{name: "running: all succeeded completes", rule: statemachine.UpdateRunningSync, status: withTasks(running(4, 0), tasks(1, 3)), phase: vcjob.Completed, changed: true},
		{name: "running: all finished, too few succeeded fails", rule: statemachine.UpdateRunningSync, job: func(j *vcjob.Job) { j.Spec.Tasks[1].MinAvailable = i32(1); j.Spec.MinAvailable = 2 }, status: running(1, 3), phase: vcjob.Failed, changed: true},
		{name: "running: too many pending falls back to Pending", rule: statemachine.UpdateRunningSync, job: func(j *vcjob.Job) { j.Spec.MinAvailable = 3 }, status: vcjob.JobStatus{State: vcjob.JobState{Phase: vcjob.Running}, Pending: 2, Running: 2}, phase: vcjob.Pending, changed: true},
		{name: "running: steady stays", rule: statemachine.UpdateRunningSync, status: vcjob.JobStatus{State: vcjob.JobState{Phase: vcjob.Running}, Running: 4}, phase: vcjob.Running},
		{name: "restarting: retries spent fails", rule: statemachine.UpdateRestarting, status: vcjob.JobStatus{State: vcjob.JobState{Phase: vcjob.Restarting}, RetryCount: 3}, phase: vcjob.Failed, retry: 3, changed: true},
		{name: "restarting: enough pods gone returns to Pending", rule: statemachine.UpdateRestarting, status: vcjob.JobStatus{State: vcjob.JobState{Phase: vcjob.Restarting}, RetryCount: 1, MinAvailable: 4}, phase: vcjob.Pending, retry: 1, changed: true},
		{name: "restarting: pods still terminating keeps Restarting", rule: statemachine.UpdateRestarting, status: vcjob.JobStatus{State: vcjob.JobState{Phase: vcjob.Restarting}, RetryCount: 1, MinAvailable: 4, Terminating: 1}, phase: vcjob.Restarting, retry: 1},
		{name: "restarting compares with status.minAvailable, not the spec", rule: statemachine.UpdateRestarting, status: vcjob.JobStatus{State: vcjob.JobState{Phase: vcjob.Restarting}, MinAvailable: 0, Terminating: 4}, phase: vcjob.Pending, changed: true},
		{name: "aborted once idle", rule: statemachine.UpdateAborted, status: vcjob.JobStatus{State: vcjob.JobState{Phase: vcjob.Aborting}, Succeeded: 2}, phase: vcjob.Aborted, changed: true},
		{name: "aborting while pods terminate", rule: statemachine.UpdateAborted, status: vcjob.JobStatus{State: vcjob.JobState{Phase: vcjob.Aborting}, Terminating: 1}, phase: vcjob.Aborting},
		{name: "completing while pods run", rule: statemachine.UpdateCompleted, status: vcjob.JobStatus{State: vcjob.JobState{Phase: vcjob.Completing}, Running: 1}, phase: vcjob.Completing},
		{name: "terminated once idle", rule: statemachine.UpdateTerminated, status: vcjob.JobStatus{State: vcjob.JobState{Phase: vcjob.Terminating}}, phase: vcjob.Terminated, changed: true},
		{name: "keep changes nothing", rule: statemachine.UpdateKeep, status: vcjob.JobStatus{State: vcjob.JobState{Phase: vcjob.Failed}}, phase: vcjob.Failed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			job := twoTasks()
			if tc.job != nil {
				tc.job(job)
			}
			s := tc.status
			changed := tc.rule.Func(job)(&s)
			if s.State.Phase != tc.phase || changed != tc.changed || s.RetryCount != tc.retry {
				t.Fatalf("phase %s changed %v retry %d; want %s %v %d", s.State.Phase, changed, s.RetryCount, tc.phase, tc.changed, tc.retry)
			}
		})
	}
}

func running(succeeded, failed int32) vcjob.JobStatus {
	return vcjob.JobStatus{State: vcjob.JobState{Phase: vcjob.Running}, Succeeded: succeeded, Failed: failed}
}

func withTasks(s vcjob.JobStatus, tasks map[string]vcjob.TaskState) vcjob.JobStatus {
	s.TaskStatusCount = tasks
	return s
}

func TestLookup(t *testing.T) {
	cases := []struct {
		state  statemachine.State
		action vcjob.Action
		call   statemachine.Call
		retain statemachine.Retain
		update statemachine.UpdateRule
	}{
		{statemachine.StatePending, vcjob.RestartJobAction, statemachine.CallKillJob, statemachine.RetainNone, statemachine.UpdateRestart},
		{statemachine.StateRunning, vcjob.RestartPartitionAction, statemachine.CallKillTarget, "", statemachine.UpdateRestart},
		{statemachine.StateRunning, vcjob.AbortJobAction, statemachine.CallKillJob, statemachine.RetainSoft, statemachine.UpdateAbort},
		{statemachine.StateRunning, vcjob.ResumeJobAction, statemachine.CallSyncJob, "", statemachine.UpdateRunningSync},
		{statemachine.StatePending, vcjob.SyncJobAction, statemachine.CallSyncJob, "", statemachine.UpdatePendingSync},
		{statemachine.StateRestarting, vcjob.SyncJobAction, statemachine.CallSyncJob, "", statemachine.UpdateRestarting},
		{statemachine.StateRestarting, vcjob.RestartPodAction, statemachine.CallKillTarget, "", statemachine.UpdateRestarting},
		{statemachine.StateRestarting, vcjob.AbortJobAction, statemachine.CallKillJob, statemachine.RetainNone, statemachine.UpdateRestarting},
		{statemachine.StateAborting, vcjob.ResumeJobAction, statemachine.CallKillJob, statemachine.RetainSoft, statemachine.UpdateRestart},
		{statemachine.StateAborting, vcjob.SyncJobAction, statemachine.CallKillJob, statemachine.RetainSoft, statemachine.UpdateAborted},
		{statemachine.StateAborted, vcjob.SyncJobAction, statemachine.CallKillJob, statemachine.RetainSoft, statemachine.UpdateKeep},
		{statemachine.StateCompleting, vcjob.RestartJobAction, statemachine.CallKillJob, statemachine.RetainSoft, statemachine.UpdateCompleted},
		{statemachine.StateTerminating, vcjob.SyncJobAction, statemachine.CallKillJob, statemachine.RetainSoft, statemachine.UpdateTerminated},
		{statemachine.StateFinished, vcjob.ResumeJobAction, statemachine.CallKillJob, statemachine.RetainSoft, statemachine.UpdateKeep},
	}
	for _, tc := range cases {
		tr := statemachine.Lookup(tc.state, tc.action)
		if tr.Call != tc.call || tr.Retain != tc.retain || tr.Update != tc.update {
			t.Errorf("%s × %s: %s/%s/%s, want %s/%s/%s", tc.state, tc.action, tr.Call, tr.Retain, tr.Update, tc.call, tc.retain, tc.update)
		}
	}
}

func TestStateOf(t *testing.T) {
	for phase, want := range map[vcjob.JobPhase]statemachine.State{
		"": statemachine.StatePending, "Bogus": statemachine.StatePending, vcjob.Pending: statemachine.StatePending,
		vcjob.Running: statemachine.StateRunning, vcjob.Restarting: statemachine.StateRestarting,
		vcjob.Completed: statemachine.StateFinished, vcjob.Terminated: statemachine.StateFinished, vcjob.Failed: statemachine.StateFinished,
		vcjob.Aborted: statemachine.StateAborted,
	} {
		if got := statemachine.StateOf(&vcjob.Job{Status: vcjob.JobStatus{State: vcjob.JobState{Phase: phase}}}); got != want {
			t.Errorf("%q: %s, want %s", phase, got, want)
		}
	}
}

// TestTableIsComplete: every state answers every action, and each row's
// update rule can only lead to the phases the row declares.
func TestTableIsComplete(t *testing.T) {
	states := []statemachine.State{statemachine.StatePending, statemachine.StateRunning, statemachine.StateRestarting, statemachine.StateAborting,
		statemachine.StateAborted, statemachine.StateCompleting, statemachine.StateTerminating, statemachine.StateFinished}
	actions := append(vcjob.PolicyActions(), vcjob.SyncJobAction)
	for _, s := range states {
		for _, a := range actions {
			if tr := statemachine.Lookup(s, a); tr.Call == "" {
				t.Errorf("no transition for %s in %s", a, s)
			}
		}
	}
}
