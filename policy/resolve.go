package policy

import (
	"fmt"
	"time"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/request"
)

// RuleKind names the rule that decided a request.
type RuleKind string

// The rules, in the order they are tried.
const (
	RuleCommand       RuleKind = "Command"
	RuleInternalEvent RuleKind = "InternalEvent"
	RuleOtherUID      RuleKind = "OtherUID"
	RuleStaleVersion  RuleKind = "StaleVersion"
	RuleTaskPolicy    RuleKind = "TaskPolicy"
	RuleJobPolicy     RuleKind = "JobPolicy"
	RuleNoMatch       RuleKind = "NoMatch"
	// RuleDisruption and RuleExitCodes are the policy extensions
	// (Extensions): a disrupted pod, an exit-code set or range.
	RuleDisruption RuleKind = "Disruption"
	RuleExitCodes  RuleKind = "ExitCodes"
	// RuleDeadline is the deadline extension's action, as lint.Explain shows
	// it (the step registers it as a delayed action).
	RuleDeadline RuleKind = "Deadline"
)

// Rule says which rule decided a request. For a task or job policy it names
// the policy: Task (task policies only) and Index into that policy list,
// and whether the event or the exit code matched.
type Rule struct {
	Kind       RuleKind `json:"kind"`
	Task       string   `json:"task,omitempty"`
	Index      int      `json:"index"`
	ByExitCode bool     `json:"byExitCode,omitempty"`
}

func (r Rule) String() string {
	switch r.Kind {
	case RuleTaskPolicy:
		return fmt.Sprintf("task %q policy %d%s", r.Task, r.Index, r.by())
	case RuleJobPolicy:
		return fmt.Sprintf("job policy %d%s", r.Index, r.by())
	case RuleCommand:
		return "command"
	case RuleInternalEvent:
		return "internal event"
	case RuleOtherUID:
		return "request for another job UID"
	case RuleStaleVersion:
		return "stale job version"
	case RuleNoMatch:
		return "no policy matched"
	case RuleDisruption:
		return "extension disruptions (no retry counted)"
	case RuleExitCodes:
		return fmt.Sprintf("extension exitCodes[%d]", r.Index)
	case RuleDeadline:
		return "extension deadline"
	}
	return string(r.Kind)
}

func (r Rule) by() string {
	if r.ByExitCode {
		return " (exit code)"
	}
	return " (event)"
}

// Decision is what a request resolves to. A Delay above zero means the
// action is only scheduled to run after it.
type Decision struct {
	Action vcjob.Action   `json:"action"`
	Delay  time.Duration  `json:"delay,omitempty"`
	Target request.Target `json:"target"`
	Rule   Rule           `json:"rule"`
	// KeepRetries: a restart this decision makes counts no retry (a
	// disruption, under the policy extensions); see
	// statemachine.Options.KeepRetries.
	KeepRetries bool `json:"keepRetries,omitempty"`
	// FailJob: the restart goes beyond the retry budget and fails the job
	// instead (Stateful); see statemachine.Options.FailJob.
	FailJob bool `json:"failJob,omitempty"`
	// Escalated: Stateful turned a RestartPod or RestartTask into a wider
	// restart.
	Escalated bool `json:"escalated,omitempty"`
}

// Resolve decides what Volcano's controller does about req for job.
// A job carrying the ExtensionsAnnotation also gets its policy
// extensions (see ResolveWith); one whose annotation does not decode gets
// none (lint.Lint reports it).
func Resolve(job *vcjob.Job, req request.Request) Decision {
	ext, _ := ExtensionsOf(job)
	return ResolveWith(job, req, ext)
}

// ResolveWith is Resolve with the policy extensions ext (nil: none). After
// the rules of commands, internal events, other UIDs and stale versions,
// a disrupted pod (Disruptions) and then ext's exit-code rules are tried
// before the job's own policies.
func ResolveWith(job *vcjob.Job, req request.Request, ext *Extensions) Decision {
	d := resolve(job, req, ext)
	d.Target = request.TargetOf(d.Action, req)
	return d
}

func resolve(job *vcjob.Job, req request.Request, ext *Extensions) Decision {
	if req.Action != "" {
		return Decision{Action: req.Action, Rule: Rule{Kind: RuleCommand}}
	}
	sync := func(k RuleKind) Decision { return Decision{Action: vcjob.SyncJobAction, Rule: Rule{Kind: k}} }
	if req.Event.IsInternal() {
		return sync(RuleInternalEvent)
	}
	if req.JobUID != "" && req.JobUID != job.UID {
		return sync(RuleOtherUID)
	}
	// A request raised before the job was last killed (its pods carried an
	// older job version) is about pods that no longer count.
	if req.JobVersion < job.Status.Version {
		return sync(RuleStaleVersion)
	}
	if ext != nil {
		if d, ok := extended(ext, req); ok {
			return d
		}
	}
	if req.TaskName != "" {
		if t := job.Task(req.TaskName); t != nil {
			if d, ok := match(t.Policies, req, Rule{Kind: RuleTaskPolicy, Task: t.Name}); ok {
				return d
			}
		}
	}
	if d, ok := match(job.Spec.Policies, req, Rule{Kind: RuleJobPolicy}); ok {
		return d
	}
	return sync(RuleNoMatch)
}

// match tries each policy as an event match, then as an exit-code match;
// the first hit wins.
func match(policies []vcjob.LifecyclePolicy, req request.Request, rule Rule) (Decision, bool) {
	for i, p := range policies {
		rule.Index = i
		if req.Event != "" && eventMatches(p, req.Event) {
			// Volcano never fires a PodPending policy without a timeout: a
			// pod is Pending on every start, so such a match is skipped and
			// the search goes on.
			if req.Event != vcjob.PodPendingEvent || p.Timeout != nil {
				rule.ByExitCode = false
				return decided(p, rule), true
			}
		}
		// The exit code is compared whatever the event; only PodFailed
		// requests carry one in practice. Validation forbids exit code 0 in
		// a policy, so "no exit code" (0) cannot match a valid job.
		if p.ExitCode != nil && *p.ExitCode == req.ExitCode {
			rule.ByExitCode = true
			return decided(p, rule), true
		}
	}
	return Decision{}, false
}

func decided(p vcjob.LifecyclePolicy, rule Rule) Decision {
	d := Decision{Action: p.Action, Rule: rule}
	if p.Timeout != nil {
		d.Delay = p.Timeout.Duration
	}
	return d
}

// Events lists the events a policy reacts to: Event and Events together.
func Events(p vcjob.LifecyclePolicy) []vcjob.Event {
	var out []vcjob.Event
	if p.Event != "" {
		out = append(out, p.Event)
	}
	return append(out, p.Events...)
}

func eventMatches(p vcjob.LifecyclePolicy, e vcjob.Event) bool {
	for _, pe := range Events(p) {
		if pe == e || pe == vcjob.AnyEvent {
			return true
		}
	}
	return false
}

// extended tries the policy extensions: a disrupted pod, then the
// exit-code rules in order.
func extended(ext *Extensions, req request.Request) (Decision, bool) {
	if ext.Disruptions != nil && req.Disrupted && (req.Event == vcjob.PodFailedEvent || req.Event == vcjob.PodEvictedEvent) {
		return Decision{Action: ext.Disruptions.ActionOf(), Rule: Rule{Kind: RuleDisruption}, KeepRetries: true}, true
	}
	if req.Event != vcjob.PodFailedEvent {
		return Decision{}, false
	}
	for i, r := range ext.ExitCodes {
		if r.Matches(req.TaskName, req.ExitCode) {
			return Decision{Action: r.Action, Rule: Rule{Kind: RuleExitCodes, Task: r.Task, Index: i, ByExitCode: true}}, true
		}
	}
	return Decision{}, false
}
