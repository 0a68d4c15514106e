package lint_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/lint"
	"github.com/vcjob/vcjob/policy"
)

func row(t *testing.T, table lint.Table, task, event string) lint.Row {
	t.Helper()
	for _, r := range table.Rows {
		if r.Task == task && r.EventText() == event {
			return r
		}
	}
	t.Fatalf("no row %s / %s in\n%s", task, event, table.Text())
	return lint.Row{}
}

func TestExplain(t *testing.T) {
	table := lint.Explain(ddpJob())
	if table.Job != "ml/mnist-ddp" {
		t.Errorf("job %q", table.Job)
	}
	for _, tc := range []struct {
		task, event string
		action      vcjob.Action
		delay       time.Duration
		target      string
		rule        string
		note        string
	}{
		// What happens if a worker is evicted? The job restarts.
		{"worker", "PodEvicted", vcjob.RestartJobAction, 0, "job", "job policy 0 (event)", ""},
		{"worker", "PodFailed 137", vcjob.RestartPodAction, 0, "the pod", `task "worker" policy 0 (exit code)`, ""},
		{"worker", "PodFailed 1 (unmatched)", vcjob.SyncJobAction, 0, "job", "no policy matched", ""},
		{"worker", "PodPending", vcjob.AbortJobAction, 10 * time.Minute, "job", `task "worker" policy 1 (event)`, "runs unless the pod leaves Pending first"},
		{"master", "TaskCompleted", vcjob.CompleteJobAction, 0, "job", `task "master" policy 0 (event)`, ""},
		{"master", "PodPending", vcjob.SyncJobAction, 0, "job", "no policy matched", ""},
		{"", "Unknown", vcjob.SyncJobAction, 0, "job", "no policy matched", ""},
		{"", "command RestartPod", vcjob.RestartPodAction, 0, "no pod", "command", "names nothing: Restarting, retry +1, nothing killed"},
		{"", "command RestartPartition", vcjob.RestartPartitionAction, 0, "no partition", "command", "names no partition: does nothing"},
	} {
		r := row(t, table, tc.task, tc.event)
		if r.Action != tc.action || r.Delay != tc.delay || r.Target != tc.target || r.Rule.String() != tc.rule || r.Note != tc.note {
			t.Errorf("%s / %s: %s after %s on %q by %s, note %q; want %s after %s on %q by %s, note %q",
				tc.task, tc.event, r.Action, r.Delay, r.Target, r.Rule, r.Note, tc.action, tc.delay, tc.target, tc.rule, tc.note)
		}
	}
}

func TestExplainNotes(t *testing.T) {
	job := ddpJob()
	w := worker(job)
	w.Policies = append(w.Policies, vcjob.LifecyclePolicy{Event: vcjob.PodEvictedEvent, Action: vcjob.RestartPodAction, Timeout: timeout(time.Minute)})
	w.Policies[0].Action = vcjob.RestartPartitionAction
	master(job).Policies = append(master(job).Policies, vcjob.LifecyclePolicy{Event: vcjob.PodPendingEvent, Action: vcjob.AbortJobAction})
	job.Spec.Policies = append(job.Spec.Policies, vcjob.LifecyclePolicy{Event: vcjob.JobUnknownEvent, Action: vcjob.AbortJobAction})
	table := lint.Explain(job)
	for _, tc := range []struct{ task, event, note string }{
		{"master", "PodPending", "spec.tasks[0].policies[1] skipped: PodPending without a timeout"},
		{"worker", "PodFailed 137", "no partitionPolicy: does nothing"},
		{"worker", "PodEvicted", "runs unless a pod of that name runs again first; the pod is already gone: only a retry is counted"},
		{"", "Unknown", "only until the job is first killed: PodGroup requests carry job version 0"},
	} {
		if r := row(t, table, tc.task, tc.event); r.Note != tc.note {
			t.Errorf("%s / %s: note %q, want %q", tc.task, tc.event, r.Note, tc.note)
		}
	}

	// Once the job has been killed, Unknown is stale.
	job.Status.Version = 2
	r := row(t, lint.Explain(job), "", "Unknown")
	if r.Action != vcjob.SyncJobAction || r.Rule.Kind != policy.RuleStaleVersion || !strings.HasPrefix(r.Note, "stale:") {
		t.Errorf("Unknown at version 2: %s by %s, note %q", r.Action, r.Rule, r.Note)
	}
	// Pod events carry the current version and still reach the policies.
	if r := row(t, lint.Explain(job), "worker", "PodEvicted"); r.Action != vcjob.RestartPodAction {
		t.Errorf("PodEvicted at version 2: %s by %s", r.Action, r.Rule)
	}
}

func TestExplainText(t *testing.T) {
	text := lint.Explain(ddpJob()).Text()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "TASK") || len(lines) != 1+2*6+1+8 {
		t.Fatalf("%d lines:\n%s", len(lines), text)
	}
	// Aligned: the RULE column starts at the same offset on every line.
	col := strings.Index(lines[0], "RULE")
	for _, l := range lines[1:] {
		if strings.HasSuffix(l, " ") {
			t.Errorf("trailing blanks: %q", l)
		}
		if len(l) <= col || l[col-1] != ' ' || l[col] == ' ' {
			t.Errorf("RULE column not at %d: %q", col, l)
		}
	}
}

func TestExplainJSON(t *testing.T) {
	raw, err := json.Marshal(lint.Explain(ddpJob()))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Job  string `json:"job"`
		Rows []struct {
			Task     string      `json:"task"`
			Event    vcjob.Event `json:"event"`
			ExitCode *int32      `json:"exitCode"`
			Action   string      `json:"action"`
			Delay    string      `json:"delay"`
			Rule     policy.Rule `json:"rule"`
			RuleText string      `json:"ruleText"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range got.Rows {
		if r.Task == "worker" && r.Event == vcjob.PodPendingEvent {
			found = true
			if r.Delay != "10m0s" || r.Action != "AbortJob" || r.RuleText != `task "worker" policy 1 (event)` || r.Rule.Kind != policy.RuleTaskPolicy {
				t.Errorf("row %+v", r)
			}
		}
		if r.Event == vcjob.PodFailedEvent && r.ExitCode == nil {
			t.Errorf("a PodFailed row without its exit code: %+v", r)
		}
	}
	if !found || got.Job != "ml/mnist-ddp" {
		t.Fatalf("%s", raw)
	}
}
