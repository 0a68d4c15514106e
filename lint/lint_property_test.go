package lint_test

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"pgregory.net/rapid"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/lint"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/vcjobtest/rapidgen"
)

// arbitraryJob generates jobs nobody should write: empty and duplicate
// names, negative and huge counts, unknown events and actions, exit codes
// out of range, dependencies on nothing or on themselves, partitions of
// size 0, phases that do not exist.
func arbitraryJob() *rapid.Generator[*vcjob.Job] {
	events := append(append([]vcjob.Event{}, vcjob.PolicyEvents()...), vcjob.PodRunningEvent, vcjob.OutOfSyncEvent, "", "PodFail")
	actions := append(append([]vcjob.Action{}, vcjob.PolicyActions()...), vcjob.SyncJobAction, "", "Bogus")
	codes := []int32{0, 1, 2, 137, -1, 255, 256, math.MaxInt32, math.MinInt32}
	timeouts := []time.Duration{-time.Second, 0, 30 * time.Second, 10 * time.Minute}
	names := []string{"", "a", "b", "worker", "a-b", "worker"}
	counts := func(t *rapid.T, label string) int32 {
		if rapid.IntRange(0, 20).Draw(t, label+".huge") == 0 {
			return rapid.SampledFrom([]int32{math.MaxInt32, math.MinInt32}).Draw(t, label+".extreme")
		}
		return rapid.Int32Range(-2, 5).Draw(t, label)
	}
	optCount := func(t *rapid.T, label string) *int32 {
		if rapid.Bool().Draw(t, label+".set") {
			v := counts(t, label)
			return &v
		}
		return nil
	}
	pols := func(t *rapid.T, label string) []vcjob.LifecyclePolicy {
		n := rapid.IntRange(0, 4).Draw(t, label+".n")
		out := make([]vcjob.LifecyclePolicy, n)
		for i := range out {
			p := &out[i]
			if rapid.Bool().Draw(t, label+".hasEvent") {
				p.Event = rapid.SampledFrom(events).Draw(t, label+".event")
			}
			p.Events = rapid.SliceOfN(rapid.SampledFrom(events), 0, 3).Draw(t, label+".events")
			if rapid.Bool().Draw(t, label+".hasCode") {
				c := rapid.SampledFrom(codes).Draw(t, label+".code")
				p.ExitCode = &c
			}
			p.Action = rapid.SampledFrom(actions).Draw(t, label+".action")
			if rapid.Bool().Draw(t, label+".hasTimeout") {
				p.Timeout = &metav1.Duration{Duration: rapid.SampledFrom(timeouts).Draw(t, label+".timeout")}
			}
		}
		return out
	}
	return rapid.Custom(func(t *rapid.T) *vcjob.Job {
		job := &vcjob.Job{ObjectMeta: metav1.ObjectMeta{Name: rapid.SampledFrom([]string{"", "j", "mnist-ddp"}).Draw(t, "name"), Namespace: "ns"}}
		n := rapid.IntRange(0, 4).Draw(t, "tasks")
		for i := 0; i < n; i++ {
			task := vcjob.TaskSpec{
				Name:         rapid.SampledFrom(names).Draw(t, "taskName"),
				Replicas:     counts(t, "replicas"),
				MinAvailable: optCount(t, "taskMinAvailable"),
				MaxRetry:     counts(t, "taskMaxRetry"),
				Policies:     pols(t, "taskPolicies"),
			}
			task.Template.Spec.RestartPolicy = rapid.SampledFrom([]corev1.RestartPolicy{"", corev1.RestartPolicyNever, corev1.RestartPolicyOnFailure, corev1.RestartPolicyAlways, "Bogus"}).Draw(t, "restartPolicy")
			if rapid.Bool().Draw(t, "partitioned") {
				task.PartitionPolicy = &vcjob.PartitionPolicySpec{TotalPartitions: counts(t, "totalPartitions"), PartitionSize: counts(t, "partitionSize"), MinPartitions: counts(t, "minPartitions")}
			}
			if rapid.Bool().Draw(t, "hasDependsOn") {
				task.DependsOn = &vcjob.DependsOn{
					Name:      rapid.SliceOfN(rapid.SampledFrom(append(names, "nope")), 0, 3).Draw(t, "dependsOn"),
					Iteration: rapid.SampledFrom([]vcjob.Iteration{"", vcjob.IterationAny, vcjob.IterationAll, "some"}).Draw(t, "iteration"),
				}
			}
			job.Spec.Tasks = append(job.Spec.Tasks, task)
		}
		job.Spec.MinAvailable = counts(t, "minAvailable")
		job.Spec.MaxRetry = counts(t, "maxRetry")
		job.Spec.MinSuccess = optCount(t, "minSuccess")
		job.Spec.Policies = pols(t, "jobPolicies")
		job.Status.Version = rapid.Int32Range(0, 3).Draw(t, "version")
		job.Status.State.Phase = rapid.SampledFrom(append(vcjob.Phases(), "", "Weird")).Draw(t, "phase")
		return job
	})
}

// TestLintAnyJob: Lint and Explain never panic, whatever the job; they
// leave it alone, give the same answer twice, and every finding is well
// formed (a code Checks lists, its severity, a spec path, one line).
func TestLintAnyJob(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		job := arbitraryJob().Draw(t, "job")
		before := job.DeepCopy()
		findings := lint.Lint(job)
		if !reflect.DeepEqual(findings, lint.Lint(job)) {
			t.Fatal("Lint is not deterministic")
		}
		for _, f := range findings {
			checkWellFormed(t, f)
		}
		table := lint.Explain(job)
		if _, err := json.Marshal(table); err != nil {
			t.Fatalf("Explain's table does not marshal: %v", err)
		}
		_ = table.Text()
		if !reflect.DeepEqual(before, job) {
			t.Fatal("Lint or Explain changed the job")
		}
	})
	if lint.Lint(nil) != nil || len(lint.Explain(nil).Rows) != 0 {
		t.Fatal("a nil job has no findings and no rows")
	}
}

// deadCodes are the findings that say a trigger (an event or exit code
// written in a policy) never reaches its policy.
var deadCodes = map[string]bool{
	lint.CodePolicyShadowed: true, lint.CodeJobPolicyOverridden: true, lint.CodePendingWithoutTimeout: true,
	lint.CodeEventWithoutTask: true, lint.CodeEventNeverRaised: true, lint.CodeUnknownEvent: true,
	lint.CodeExitCodeZero: true, lint.CodeExitCodeOutOfRange: true,
}

// TestLintDeadTriggersNeverDecide: for valid jobs, no request Volcano can
// raise (rapidgen.Requests, and every row Explain builds) is decided by a
// trigger Lint reported dead.
func TestLintDeadTriggersNeverDecide(t *testing.T) {
	var checked, deadSeen int
	rapid.Check(t, func(t *rapid.T) {
		job := rapidgen.Job().Draw(t, "job")
		dead := map[string]string{}
		for _, f := range lint.Lint(job) {
			if deadCodes[f.Code] {
				dead[f.Path] = f.Code
			}
		}
		deadSeen += len(dead)
		reqs := rapidgen.Requests(job).Draw(t, "requests")
		for _, r := range lint.Explain(job).Rows {
			req := request.Request{Namespace: job.Namespace, JobName: job.Name, TaskName: r.Task, Event: r.Event, Action: r.Command}
			if r.Task != "" {
				req.PodName = vcjob.PodName(job.Name, r.Task, 0)
			}
			if r.ExitCode != nil {
				req.ExitCode = *r.ExitCode
			}
			reqs = append(reqs, req)
		}
		for _, req := range reqs {
			d := policy.Resolve(job, req)
			path := triggerPath(job, d.Rule, req)
			if path == "" {
				continue
			}
			checked++
			if code, ok := dead[path]; ok {
				t.Fatalf("request %s resolves by %s through %s, which Lint reported as %s", req, d.Rule, path, code)
			}
		}
	})
	t.Logf("decisions by a policy checked: %d; dead triggers reported: %d", checked, deadSeen)
	if checked == 0 || deadSeen == 0 {
		t.Fatal("the property checked nothing")
	}
}

// triggerPath is the field through which a policy decided req: its
// exitCode, the event or events entry naming req's event, or its "*".
func triggerPath(job *vcjob.Job, rule policy.Rule, req request.Request) string {
	var list []vcjob.LifecyclePolicy
	var base *field.Path
	switch rule.Kind {
	case policy.RuleJobPolicy:
		list, base = job.Spec.Policies, field.NewPath("spec", "policies")
	case policy.RuleTaskPolicy:
		for i := range job.Spec.Tasks {
			if job.Spec.Tasks[i].Name == rule.Task {
				list, base = job.Spec.Tasks[i].Policies, field.NewPath("spec", "tasks").Index(i).Child("policies")
				break
			}
		}
	default:
		return ""
	}
	p, pp := list[rule.Index], base.Index(rule.Index)
	if rule.ByExitCode {
		return pp.Child("exitCode").String()
	}
	var star string
	check := func(e vcjob.Event, path *field.Path) string {
		switch e {
		case req.Event:
			return path.String()
		case vcjob.AnyEvent:
			star = path.String()
		}
		return ""
	}
	if s := check(p.Event, pp.Child("event")); s != "" {
		return s
	}
	for k, e := range p.Events {
		if s := check(e, pp.Child("events").Index(k)); s != "" {
			return s
		}
	}
	if star == "" {
		panic("decided by event, but the policy names neither the event nor *: " + strings.Join([]string{string(req.Event), rule.String()}, " "))
	}
	return star
}

// TestExplainRows: a row per task and event (and exit code), then Unknown
// and the commands; the unmatched exit code really matches no policy.
func TestExplainRows(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		job := rapidgen.Job().Draw(t, "job")
		codes := map[int32]bool{}
		for _, p := range job.Spec.Policies {
			if p.ExitCode != nil {
				codes[*p.ExitCode] = true
			}
		}
		for _, task := range job.Spec.Tasks {
			for _, p := range task.Policies {
				if p.ExitCode != nil {
					codes[*p.ExitCode] = true
				}
			}
		}
		rows := lint.Explain(job).Rows
		perTask := 4 + len(codes) + 1
		if want := len(job.Spec.Tasks)*perTask + 1 + len(vcjob.PolicyActions()); len(rows) != want {
			t.Fatalf("%d rows, want %d", len(rows), want)
		}
		for _, r := range rows {
			if r.Unmatched && (r.Rule.ByExitCode || codes[*r.ExitCode]) {
				t.Fatalf("row %s is the unmatched code but %s decided it", r.EventText(), r.Rule)
			}
			if r.Command != "" && (r.Rule.Kind != policy.RuleCommand || r.Action != r.Command) {
				t.Fatalf("command row %s decided by %s as %s", r.Command, r.Rule, r.Action)
			}
		}
	})
}
