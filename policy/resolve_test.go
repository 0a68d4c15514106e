package policy_test

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/request"
)

func code(c int32) *int32 { return &c }

func timeout(d time.Duration) *metav1.Duration { return &metav1.Duration{Duration: d} }

// job has task "worker" with its own policies and job-level policies; the
// cases below pick the ones they need.
func job(taskPolicies, jobPolicies []vcjob.LifecyclePolicy) *vcjob.Job {
	return &vcjob.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "uid-j"},
		Spec: vcjob.JobSpec{
			Tasks:    []vcjob.TaskSpec{{Name: "worker", Replicas: 2, Policies: taskPolicies}, {Name: "ps", Replicas: 1}},
			Policies: jobPolicies,
		},
		Status: vcjob.JobStatus{Version: 2},
	}
}

func podReq(event vcjob.Event, exitCode int32) request.Request {
	return request.Request{Namespace: "ns", JobName: "j", JobUID: "uid-j", TaskName: "worker", PodName: "j-worker-1",
		PodUID: "uid-p", PartitionID: "0", Event: event, ExitCode: exitCode, JobVersion: 2}
}

func TestResolve(t *testing.T) {
	anyRestart := []vcjob.LifecyclePolicy{{Event: vcjob.AnyEvent, Action: vcjob.RestartJobAction}}
	cases := []struct {
		name       string
		task, jobP []vcjob.LifecyclePolicy
		req        request.Request
		action     vcjob.Action
		delay      time.Duration
		rule       policy.Rule
	}{
		{
			name: "a command's action wins over every policy",
			jobP: anyRestart, req: func() request.Request {
				r := podReq(vcjob.CommandIssuedEvent, 0)
				r.Action = vcjob.AbortJobAction
				return r
			}(),
			action: vcjob.AbortJobAction, rule: policy.Rule{Kind: policy.RuleCommand},
		},
		{name: "OutOfSync syncs even under *", jobP: anyRestart, req: podReq(vcjob.OutOfSyncEvent, 0), action: vcjob.SyncJobAction, rule: policy.Rule{Kind: policy.RuleInternalEvent}},
		{name: "CommandIssued without action syncs", jobP: anyRestart, req: podReq(vcjob.CommandIssuedEvent, 0), action: vcjob.SyncJobAction, rule: policy.Rule{Kind: policy.RuleInternalEvent}},
		{name: "PodRunning syncs", jobP: anyRestart, req: podReq(vcjob.PodRunningEvent, 0), action: vcjob.SyncJobAction, rule: policy.Rule{Kind: policy.RuleInternalEvent}},
		{
			name: "a request for another UID syncs",
			jobP: anyRestart, req: func() request.Request { r := podReq(vcjob.PodFailedEvent, 1); r.JobUID = "uid-old"; return r }(),
			action: vcjob.SyncJobAction, rule: policy.Rule{Kind: policy.RuleOtherUID},
		},
		{
			name: "an empty UID is not another UID",
			jobP: anyRestart, req: func() request.Request { r := podReq(vcjob.PodFailedEvent, 1); r.JobUID = ""; return r }(),
			action: vcjob.RestartJobAction, rule: policy.Rule{Kind: policy.RuleJobPolicy},
		},
		{
			name: "a stale job version syncs (PodGroup requests carry version 0)",
			jobP: anyRestart, req: func() request.Request { r := podReq(vcjob.JobUnknownEvent, 0); r.JobVersion = 0; return r }(),
			action: vcjob.SyncJobAction, rule: policy.Rule{Kind: policy.RuleStaleVersion},
		},
		{
			name: "task policies come before job policies",
			task: []vcjob.LifecyclePolicy{{Event: vcjob.PodFailedEvent, Action: vcjob.RestartTaskAction}},
			jobP: anyRestart, req: podReq(vcjob.PodFailedEvent, 1),
			action: vcjob.RestartTaskAction, rule: policy.Rule{Kind: policy.RuleTaskPolicy, Task: "worker"},
		},
		{
			name: "the events list matches",
			task: []vcjob.LifecyclePolicy{{Events: []vcjob.Event{vcjob.PodFailedEvent, vcjob.PodEvictedEvent}, Action: vcjob.RestartPodAction}},
			req:  podReq(vcjob.PodEvictedEvent, 0), action: vcjob.RestartPodAction, rule: policy.Rule{Kind: policy.RuleTaskPolicy, Task: "worker"},
		},
		{
			name: "the first matching policy wins",
			task: []vcjob.LifecyclePolicy{{Event: vcjob.TaskFailedEvent, Action: vcjob.AbortJobAction}, {Event: vcjob.PodFailedEvent, Action: vcjob.RestartPodAction}, {Event: vcjob.AnyEvent, Action: vcjob.TerminateJobAction}},
			req:  podReq(vcjob.PodFailedEvent, 1), action: vcjob.RestartPodAction, rule: policy.Rule{Kind: policy.RuleTaskPolicy, Task: "worker", Index: 1},
		},
		{
			name: "exit code matches",
			task: []vcjob.LifecyclePolicy{{ExitCode: code(137), Action: vcjob.RestartPodAction}},
			req:  podReq(vcjob.PodFailedEvent, 137), action: vcjob.RestartPodAction, rule: policy.Rule{Kind: policy.RuleTaskPolicy, Task: "worker", ByExitCode: true},
		},
		{
			name: "exit code matches whatever the event",
			jobP: []vcjob.LifecyclePolicy{{ExitCode: code(2), Action: vcjob.TerminateJobAction}},
			req:  podReq(vcjob.PodEvictedEvent, 2), action: vcjob.TerminateJobAction, rule: policy.Rule{Kind: policy.RuleJobPolicy, ByExitCode: true},
		},
		{
			name: "another exit code does not match",
			jobP: []vcjob.LifecyclePolicy{{ExitCode: code(2), Action: vcjob.TerminateJobAction}},
			req:  podReq(vcjob.PodFailedEvent, 1), action: vcjob.SyncJobAction, rule: policy.Rule{Kind: policy.RuleNoMatch},
		},
		{
			name: "PodPending without a timeout never fires; the search goes on to the job",
			task: []vcjob.LifecyclePolicy{{Event: vcjob.PodPendingEvent, Action: vcjob.AbortJobAction}},
			jobP: []vcjob.LifecyclePolicy{{Event: vcjob.PodPendingEvent, Action: vcjob.TerminateJobAction, Timeout: timeout(time.Minute)}},
			req:  podReq(vcjob.PodPendingEvent, 0), action: vcjob.TerminateJobAction, delay: time.Minute, rule: policy.Rule{Kind: policy.RuleJobPolicy},
		},
		{
			name: "PodPending through * without a timeout is skipped too",
			task: []vcjob.LifecyclePolicy{{Event: vcjob.AnyEvent, Action: vcjob.AbortJobAction}},
			req:  podReq(vcjob.PodPendingEvent, 0), action: vcjob.SyncJobAction, rule: policy.Rule{Kind: policy.RuleNoMatch},
		},
		{
			name: "any matched policy with a timeout schedules its action",
			task: []vcjob.LifecyclePolicy{{Event: vcjob.PodEvictedEvent, Action: vcjob.RestartJobAction, Timeout: timeout(90 * time.Second)}},
			req:  podReq(vcjob.PodEvictedEvent, 0), action: vcjob.RestartJobAction, delay: 90 * time.Second, rule: policy.Rule{Kind: policy.RuleTaskPolicy, Task: "worker"},
		},
		{
			name: "a request for an unknown task falls back to job policies",
			task: []vcjob.LifecyclePolicy{{Event: vcjob.PodFailedEvent, Action: vcjob.RestartTaskAction}},
			jobP: anyRestart, req: func() request.Request { r := podReq(vcjob.PodFailedEvent, 1); r.TaskName = "nope"; return r }(),
			action: vcjob.RestartJobAction, rule: policy.Rule{Kind: policy.RuleJobPolicy},
		},
		{name: "nothing matched syncs", req: podReq(vcjob.PodFailedEvent, 1), action: vcjob.SyncJobAction, rule: policy.Rule{Kind: policy.RuleNoMatch}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := policy.Resolve(job(tc.task, tc.jobP), tc.req)
			if d.Action != tc.action || d.Delay != tc.delay || d.Rule != tc.rule {
				t.Fatalf("got %s after %s by %+v; want %s after %s by %+v", d.Action, d.Delay, d.Rule, tc.action, tc.delay, tc.rule)
			}
		})
	}
}

func TestResolveTarget(t *testing.T) {
	req := podReq(vcjob.PodFailedEvent, 0)
	for action, want := range map[vcjob.Action]request.Target{
		vcjob.RestartTaskAction:      {Level: vcjob.TaskLevel, TaskName: "worker"},
		vcjob.RestartPodAction:       {Level: vcjob.PodLevel, TaskName: "worker", PodName: "j-worker-1"},
		vcjob.RestartPartitionAction: {Level: vcjob.PartitionLevel, TaskName: "worker", PodName: "j-worker-1", PartitionID: "0"},
		vcjob.RestartJobAction:       {Level: vcjob.JobLevel},
		vcjob.AbortJobAction:         {Level: vcjob.JobLevel},
	} {
		d := policy.Resolve(job(nil, []vcjob.LifecyclePolicy{{Event: vcjob.PodFailedEvent, Action: action}}), req)
		if d.Target != want {
			t.Errorf("%s: target %+v, want %+v", action, d.Target, want)
		}
	}
}

func TestRuleString(t *testing.T) {
	for rule, want := range map[policy.Rule]string{
		{Kind: policy.RuleTaskPolicy, Task: "worker", Index: 1, ByExitCode: true}: `task "worker" policy 1 (exit code)`,
		{Kind: policy.RuleJobPolicy}:    "job policy 0 (event)",
		{Kind: policy.RuleStaleVersion}: "stale job version",
		{Kind: policy.RuleNoMatch}:      "no policy matched",
	} {
		if got := rule.String(); got != want {
			t.Errorf("%+v: %q, want %q", rule, got, want)
		}
	}
}
