package lint

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/request"
)

// What Lint and Explain know about where requests come from (the
// cache's event rules):
// pod events, and the task events derived from a pod's change, name a task
// and a pod; a PodGroup's change (Unknown) names neither; commands carry
// their action and name neither.

// podEvents are the policy events Volcano raises about a pod of a task.
var podEvents = []vcjob.Event{
	vcjob.PodPendingEvent, vcjob.PodFailedEvent, vcjob.PodEvictedEvent,
	vcjob.TaskCompletedEvent, vcjob.TaskFailedEvent,
}

// raisedEvents are the policy events Volcano raises at all: "*" stands for
// these. JobUpdated is never raised (a job update is OutOfSync).
var raisedEvents = append(append([]vcjob.Event{}, podEvents...), vcjob.JobUnknownEvent)

// policyList is one list of policies: the job's (task −1) or a task's.
type policyList struct {
	task     int
	path     *field.Path
	policies []vcjob.LifecyclePolicy
}

// analysis holds the job as given and a defaulted copy that requests are
// resolved against.
type analysis struct {
	given     *vcjob.Job
	defaulted *vcjob.Job
	total     int64
	lists     []*policyList
}

func newAnalysis(job *vcjob.Job) *analysis {
	d := job.DeepCopy()
	vcjob.SetDefaults(d)
	// Resolve against a fresh incarnation: no stale or foreign requests.
	d.UID = ""
	d.Status = vcjob.JobStatus{}
	a := &analysis{given: job, defaulted: d}
	for _, t := range job.Spec.Tasks {
		a.total += int64(t.Replicas)
	}
	a.lists = append(a.lists, &policyList{task: -1, path: field.NewPath("spec", "policies"), policies: job.Spec.Policies})
	for i, t := range job.Spec.Tasks {
		a.lists = append(a.lists, &policyList{task: i, path: field.NewPath("spec", "tasks").Index(i).Child("policies"), policies: t.Policies})
	}
	return a
}

// taskName is task i's name after defaults.
func (a *analysis) taskName(i int) string { return a.defaulted.Spec.Tasks[i].Name }

// taskIndex is the index of the first task named name (the one Resolve
// finds), or −1.
func (a *analysis) taskIndex(name string) int {
	for i := range a.defaulted.Spec.Tasks {
		if a.defaulted.Spec.Tasks[i].Name == name {
			return i
		}
	}
	return -1
}

// restartPolicy is task i's pod restart policy; the API server's default
// is Always.
func (a *analysis) restartPolicy(i int) corev1.RestartPolicy {
	if r := a.defaulted.Spec.Tasks[i].Template.Spec.RestartPolicy; r != "" {
		return r
	}
	return corev1.RestartPolicyAlways
}

// restartActions lists the restarting actions the job's policies name.
func (a *analysis) restartActions() []string {
	var out []string
	for _, l := range a.lists {
		for _, p := range l.policies {
			switch p.Action {
			case vcjob.RestartJobAction, vcjob.RestartTaskAction, vcjob.RestartPodAction, vcjob.RestartPartitionAction:
				out = appendUnique(out, string(p.Action))
			}
		}
	}
	return out
}

// trigger is one way a policy can match: an event a request carries (for
// "*", each raised event), or an exit code of a PodFailed request. A
// trigger that can never match as written carries skip, the finding to
// report instead.
type trigger struct {
	path     *field.Path
	event    vcjob.Event
	exitCode *int32
	viaAny   bool
	skip     string
	skipCode string
}

// triggers lists policy i's triggers.
func (a *analysis) triggers(list *policyList, i int) []trigger {
	p := list.policies[i]
	pp := list.path.Index(i)
	var out []trigger
	seen := map[vcjob.Event]bool{}
	skip := func(path *field.Path, code, msg string) {
		out = append(out, trigger{path: path, skip: msg, skipCode: code})
	}
	add := func(e vcjob.Event, path *field.Path) {
		if seen[e] {
			return
		}
		seen[e] = true
		switch {
		case e == vcjob.AnyEvent:
			for _, re := range raisedEvents {
				if re == vcjob.PodPendingEvent && p.Timeout == nil {
					continue // "*" skips PodPending without a timeout
				}
				out = append(out, trigger{path: path, event: re, viaAny: true})
			}
		case !slices.Contains(vcjob.PolicyEvents(), e):
			skip(path, CodeUnknownEvent, fmt.Sprintf("%q is not an event a policy may name (want one of %s): it never matches", e, joinEvents(vcjob.PolicyEvents())))
		case e == vcjob.JobUpdatedEvent:
			skip(path, CodeEventNeverRaised, "Volcano's controller never raises JobUpdated (a job update raises OutOfSync, which only syncs): this never matches")
		case e == vcjob.PodPendingEvent && p.Timeout == nil:
			skip(path, CodePendingWithoutTimeout, "Volcano never fires a PodPending policy without a timeout (every pod is Pending when it starts): the search goes on as if it were not there; add a timeout such as 10m")
		case e == vcjob.JobUnknownEvent && list.task >= 0:
			skip(path, CodeEventWithoutTask, "Unknown comes from the PodGroup and names no task, so a task's policy never sees it: move the policy to spec.policies")
		default:
			out = append(out, trigger{path: path, event: e})
		}
	}
	if p.Event != "" {
		add(p.Event, pp.Child("event"))
	}
	for k, e := range p.Events {
		add(e, pp.Child("events").Index(k))
	}
	if p.ExitCode != nil {
		c := *p.ExitCode
		path := pp.Child("exitCode")
		switch {
		case c == 0:
			skip(path, CodeExitCodeZero, "exit code 0 means success and validation refuses it; were it accepted it would match every request that carries no exit code (evictions, task events, ...), not failures")
		case c < 0 || c > 255:
			skip(path, CodeExitCodeOutOfRange, fmt.Sprintf("a Linux container's exit code is 0-255 (a signal gives 128+n), so %d never matches", c))
		default:
			out = append(out, trigger{path: path, event: vcjob.PodFailedEvent, exitCode: &c})
		}
	}
	return out
}

// firing is a request a trigger stands for, and what Resolve decided.
type firing struct {
	trigger
	task     int
	decision policy.Decision
}

type fires struct{ hits, misses []firing }

// fire resolves every request the trigger stands for: hits reach policy i
// of list, misses are decided by something else.
func (a *analysis) fire(list *policyList, i int, tr trigger) fires {
	var out fires
	for _, t := range a.sourceTasks(list, tr.event) {
		req := a.request(t, tr.event, tr.exitCode)
		f := firing{trigger: tr, task: t, decision: policy.Resolve(a.defaulted, req)}
		if a.isRule(list, i, f.decision.Rule) {
			out.hits = append(out.hits, f)
		} else {
			out.misses = append(out.misses, f)
		}
	}
	return out
}

// sourceTasks lists the tasks whose requests for event reach list: −1 for
// a request that names no task.
func (a *analysis) sourceTasks(list *policyList, event vcjob.Event) []int {
	if event == vcjob.JobUnknownEvent {
		if list.task >= 0 {
			return nil
		}
		return []int{-1}
	}
	if list.task >= 0 {
		return []int{list.task}
	}
	out := make([]int, len(a.defaulted.Spec.Tasks))
	for i := range out {
		out[i] = i
	}
	return out
}

// request is a request as Volcano raises it for event about the first pod
// of task t (t −1: no task), at the job's current version.
func (a *analysis) request(t int, event vcjob.Event, exitCode *int32) request.Request {
	job := a.defaulted
	req := request.Request{Namespace: job.Namespace, JobName: job.Name, Event: event}
	if t >= 0 {
		task := &job.Spec.Tasks[t]
		req.TaskName = task.Name
		req.PodName = vcjob.PodName(job.Name, task.Name, 0)
		if task.PartitionPolicy != nil {
			req.PartitionID = "0"
		}
	}
	if exitCode != nil {
		req.ExitCode = *exitCode
	}
	return req
}

// isRule reports whether rule names policy i of list.
func (a *analysis) isRule(list *policyList, i int, rule policy.Rule) bool {
	return a.sameList(list, rule) && rule.Index == i
}

// sameList reports whether rule names a policy of list.
func (a *analysis) sameList(list *policyList, rule policy.Rule) bool {
	if list.task < 0 {
		return rule.Kind == policy.RuleJobPolicy
	}
	return rule.Kind == policy.RuleTaskPolicy && a.taskIndex(rule.Task) == list.task
}

// rulePath is the field path of the policy rule names, "" for other rules.
func (a *analysis) rulePath(rule policy.Rule) string {
	switch rule.Kind {
	case policy.RuleJobPolicy:
		return field.NewPath("spec", "policies").Index(rule.Index).String()
	case policy.RuleTaskPolicy:
		if t := a.taskIndex(rule.Task); t >= 0 {
			return field.NewPath("spec", "tasks").Index(t).Child("policies").Index(rule.Index).String()
		}
	}
	return ""
}

func (a *analysis) describeTrigger(tr trigger) string {
	switch {
	case tr.exitCode != nil:
		return "exit code " + strconv.Itoa(int(*tr.exitCode))
	case tr.event == vcjob.AnyEvent:
		return `"*"`
	}
	return string(tr.event)
}

func joinEvents(es []vcjob.Event) string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = string(e)
	}
	return strings.Join(out, ", ")
}
