package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/request"
)

// Table answers "what happens if…" for one job: one row per request the
// job can see, with what Resolve makes of it.
type Table struct {
	// Job is namespace/name.
	Job  string `json:"job"`
	Rows []Row  `json:"rows"`
}

// Row is one request and its decision. Pod and task events name a task
// (and its first pod); Unknown (a PodGroup change) and commands name none
// (Task is "").
type Row struct {
	Task  string      `json:"task,omitempty"`
	Event vcjob.Event `json:"event"`
	// ExitCode is the first container's exit code of a PodFailed request.
	ExitCode *int32 `json:"exitCode,omitempty"`
	// Unmatched marks the PodFailed row whose exit code no policy names.
	Unmatched bool `json:"unmatched,omitempty"`
	// Command is the action a command row asks for (Event CommandIssued).
	Command vcjob.Action `json:"command,omitempty"`
	// Disrupted marks a row of a disrupted pod (the policy extension
	// disruptions: a DisruptionTarget condition).
	Disrupted bool `json:"disrupted,omitempty"`

	Action vcjob.Action `json:"action"`
	// Delay above zero: the action is only scheduled.
	Delay time.Duration `json:"-"`
	// Target says what the action acts on: "job", "task NAME", "the pod",
	// "its partition", or "no pod" / "no task" / "no partition" when the
	// request names none.
	Target string      `json:"target"`
	Rule   policy.Rule `json:"rule"`
	// Note is what Volcano does here that a reader may not expect.
	Note string `json:"note,omitempty"`
}

// MarshalJSON writes Delay as a Go duration string ("10m0s") and the
// rule's text beside it.
func (r Row) MarshalJSON() ([]byte, error) {
	type plain Row
	out := struct {
		plain
		Delay    string `json:"delay,omitempty"`
		RuleText string `json:"ruleText"`
	}{plain: plain(r), RuleText: r.Rule.String()}
	if r.Delay != 0 {
		out.Delay = r.Delay.String()
	}
	// Notes say "->": keep them readable instead of escaping '>' for HTML.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// EventText is the row's request as a short label: "PodFailed 137",
// "PodFailed 1 (unmatched)", "command AbortJob".
func (r Row) EventText() string {
	switch {
	case r.Command != "":
		return "command " + string(r.Command)
	case r.ExitCode != nil && r.Unmatched:
		return fmt.Sprintf("%s %d (unmatched)", r.Event, *r.ExitCode)
	case r.ExitCode != nil:
		return fmt.Sprintf("%s %d", r.Event, *r.ExitCode)
	case r.Disrupted:
		return string(r.Event) + " (disrupted)"
	}
	return string(r.Event)
}

// Text renders the table in aligned columns.
func (t Table) Text() string {
	var b bytes.Buffer
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "TASK\tEVENT\tACTION\tDELAY\tTARGET\tRULE\tNOTE")
	for _, r := range t.Rows {
		task, delay := r.Task, "-"
		if task == "" {
			task = "(job)"
		}
		if r.Delay != 0 {
			delay = r.Delay.String()
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", task, r.EventText(), r.Action, delay, r.Target, r.Rule, r.Note)
	}
	_ = w.Flush()
	// tabwriter pads the last column too; drop trailing blanks.
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// Explain resolves, with Resolve, every request job can see: for each task
// PodPending, PodFailed with each exit code any policy names plus one no
// policy names, PodEvicted, TaskCompleted and TaskFailed; for the job
// Unknown (a PodGroup change) and each command. Requests are built as
// Volcano raises them: pod events name the task's first pod (and its
// partition) at the job's current status.version, Unknown carries job
// version 0.
//
// Task names are read after defaults (an unnamed task is default<i>); the
// job is not changed. A nil job gives an empty table.
func Explain(job *vcjob.Job) Table {
	if job == nil {
		return Table{}
	}
	a := newAnalysis(job)
	a.defaulted.Status.Version = job.Status.Version
	d := a.defaulted
	t := Table{Job: request.JobKey(job.Namespace, job.Name)}
	codes, other := exitCodes(job)
	for ti := range d.Spec.Tasks {
		for _, e := range podEvents {
			if e != vcjob.PodFailedEvent {
				t.Rows = append(t.Rows, a.row(ti, e, nil, false))
				continue
			}
			for _, c := range codes {
				t.Rows = append(t.Rows, a.row(ti, e, &c, false))
			}
			t.Rows = append(t.Rows, a.row(ti, e, &other, true))
		}
		t.Rows = append(t.Rows, a.disruptionRows(ti)...)
	}
	t.Rows = append(t.Rows, a.row(-1, vcjob.JobUnknownEvent, nil, false))
	t.Rows = append(t.Rows, a.deadlineRows()...)
	for _, action := range vcjob.PolicyActions() {
		req := request.Request{Namespace: d.Namespace, JobName: d.Name, Event: vcjob.CommandIssuedEvent, Action: action, JobVersion: d.Status.Version}
		r := a.decide(-1, req)
		r.Command = action
		r.Note = a.note(r, req, -1)
		t.Rows = append(t.Rows, r)
	}
	return t
}

// exitCodes lists the exit codes the job's policies name (but 0), sorted,
// and the smallest positive code none names.
func exitCodes(job *vcjob.Job) (codes []int32, other int32) {
	seen := map[int32]bool{}
	add := func(ps []vcjob.LifecyclePolicy) {
		for _, p := range ps {
			if p.ExitCode != nil && *p.ExitCode != 0 && !seen[*p.ExitCode] {
				seen[*p.ExitCode] = true
				codes = append(codes, *p.ExitCode)
			}
		}
	}
	add(job.Spec.Policies)
	for _, t := range job.Spec.Tasks {
		add(t.Policies)
	}
	in := addExtensionCodes(job, seen, &codes)
	sort.Slice(codes, func(i, j int) bool { return codes[i] < codes[j] })
	other = 1
	for seen[other] || in(other) {
		other++
	}
	return codes, other
}

func (a *analysis) row(t int, e vcjob.Event, code *int32, unmatched bool) Row {
	req := a.request(t, e, code)
	if e == vcjob.JobUnknownEvent {
		req.JobVersion = 0 // Volcano's PodGroup requests carry none
	} else {
		req.JobVersion = a.defaulted.Status.Version
	}
	r := a.decide(t, req)
	r.Event, r.Unmatched = e, unmatched
	if code != nil {
		c := *code
		r.ExitCode = &c
	}
	r.Note = a.note(r, req, t)
	return r
}

func (a *analysis) decide(t int, req request.Request) Row {
	d := policy.Resolve(a.defaulted, req)
	r := Row{Event: req.Event, Action: d.Action, Delay: d.Delay, Rule: d.Rule, Target: targetText(d.Target)}
	if t >= 0 {
		r.Task = a.taskName(t)
	}
	return r
}

func targetText(t request.Target) string {
	switch t.Level {
	case vcjob.TaskLevel:
		if t.TaskName == "" {
			return "no task"
		}
		return "task " + t.TaskName
	case vcjob.PodLevel:
		if t.PodName == "" {
			return "no pod"
		}
		return "the pod"
	case vcjob.PartitionLevel:
		if t.PartitionID == "" {
			return "no partition"
		}
		return "its partition"
	}
	return "job"
}

// note says what is surprising about a row.
func (a *analysis) note(r Row, req request.Request, t int) string {
	var notes []string
	add := func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }
	if r.Delay > 0 {
		switch r.Event {
		case vcjob.PodPendingEvent:
			add("runs unless the pod leaves Pending first")
		case vcjob.PodFailedEvent, vcjob.PodEvictedEvent:
			add("runs unless a pod of that name runs again first")
		default:
			add("runs after the delay")
		}
	}
	if r.Event == vcjob.PodPendingEvent {
		if skipped := a.pendingWithoutTimeout(t); len(skipped) > 0 {
			add("%s skipped: PodPending without a timeout", strings.Join(skipped, ", "))
		}
	}
	if r.Event == vcjob.JobUnknownEvent {
		if a.defaulted.Status.Version > 0 {
			add("stale: PodGroup requests carry job version 0 and the job is at version %d", a.defaulted.Status.Version)
		} else if r.Rule.Kind == policy.RuleJobPolicy {
			add("only until the job is first killed: PodGroup requests carry job version 0")
		}
	}
	switch r.Action {
	case vcjob.RestartPodAction, vcjob.RestartTaskAction:
		if (r.Action == vcjob.RestartPodAction && req.PodName == "") || req.TaskName == "" {
			add("names nothing: Restarting, retry +1, nothing killed")
		} else if r.Action == vcjob.RestartPodAction && r.Event == vcjob.PodEvictedEvent {
			add("the pod is already gone: only a retry is counted")
		}
	case vcjob.RestartPartitionAction:
		switch {
		case req.TaskName == "":
			add("names no partition: does nothing")
		case t >= 0 && a.defaulted.Spec.Tasks[t].PartitionPolicy == nil:
			add("no partitionPolicy: does nothing")
		}
	case vcjob.ResumeJobAction:
		add("acts only in Aborting/Aborted (-> Restarting); in Restarting it kills every pod")
	case vcjob.AbortJobAction:
		if r.Command != "" {
			add("in Restarting a whole-job kill that does not abort")
		}
	}
	if t >= 0 && r.Rule.Kind != policy.RuleNoMatch {
		rp := a.restartPolicy(t)
		switch {
		case r.Event == vcjob.TaskCompletedEvent && rp == corev1.RestartPolicyAlways:
			add("never raised: restartPolicy Always pods never succeed")
		case r.Event == vcjob.TaskFailedEvent && rp == corev1.RestartPolicyNever:
			add("never raised: restartPolicy Never containers never restart")
		case r.Rule.ByExitCode && rp != corev1.RestartPolicyNever:
			add("restartPolicy %s restarts the container in place: the pod rarely fails", rp)
		}
	}
	notes = append(notes, a.extensionNotes(r)...)
	return strings.Join(notes, "; ")
}

// pendingWithoutTimeout lists the policies that name PodPending without a
// timeout in task t's list and the job's.
func (a *analysis) pendingWithoutTimeout(t int) []string {
	var out []string
	lists := []*policyList{a.lists[0]}
	if t >= 0 {
		// The task's policies are searched first.
		lists = []*policyList{a.lists[t+1], a.lists[0]}
	}
	for _, l := range lists {
		for i, p := range l.policies {
			if p.Timeout == nil && slices.Contains(policy.Events(p), vcjob.PodPendingEvent) {
				out = append(out, l.path.Index(i).String())
			}
		}
	}
	return out
}
