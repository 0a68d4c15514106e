package lint

import (
	"fmt"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/policy"
)

// addExtensionCodes adds to codes the bounds of the job's extension
// exit-code values (positive ones, each once), so Explain shows a row for
// each, and returns whether a code falls in an extension's In values.
func addExtensionCodes(job *vcjob.Job, seen map[int32]bool, codes *[]int32) func(int32) bool {
	ext, _ := policy.ExtensionsOf(job)
	if ext == nil || len(ext.ExitCodes) == 0 {
		return func(int32) bool { return false }
	}
	for _, r := range ext.ExitCodes {
		for _, v := range r.Values {
			lo, hi, err := policy.ParseExitCodes(v)
			if err != nil {
				continue
			}
			for _, c := range []int32{lo, hi} {
				if c > 0 && !seen[c] {
					seen[c] = true
					*codes = append(*codes, c)
				}
			}
		}
	}
	return func(code int32) bool {
		for _, r := range ext.ExitCodes {
			if r.Operator == policy.ExitCodeIn && r.Matches(r.Task, code) {
				return true
			}
		}
		return false
	}
}

// disruptionRows are the rows of a disrupted pod of task t (evicted,
// failed), for a job with the disruptions extension.
func (a *analysis) disruptionRows(t int) []Row {
	ext, _ := policy.ExtensionsOf(a.defaulted)
	if ext == nil || ext.Disruptions == nil {
		return nil
	}
	var out []Row
	for _, e := range []vcjob.Event{vcjob.PodFailedEvent, vcjob.PodEvictedEvent} {
		req := a.request(t, e, nil)
		req.JobVersion = a.defaulted.Status.Version
		req.Disrupted = true
		r := a.decide(t, req)
		r.Disrupted = true
		r.Note = a.note(r, req, t)
		out = append(out, r)
	}
	return out
}

// deadlineRows is the job's deadline, as a row of its own.
func (a *analysis) deadlineRows() []Row {
	ext, _ := policy.ExtensionsOf(a.defaulted)
	if ext == nil || ext.Deadline == nil {
		return nil
	}
	return []Row{{Event: "DeadlineExceeded", Action: ext.Deadline.ActionOf(), Delay: ext.Deadline.After.Duration,
		Target: "job", Rule: policy.Rule{Kind: policy.RuleDeadline}, Note: "counted from the job's creation, restarts included"}}
}

// extensionNotes are what the job's extensions add to a row.
func (a *analysis) extensionNotes(r Row) []string {
	ext, _ := policy.ExtensionsOf(a.defaulted)
	if ext == nil {
		return nil
	}
	var out []string
	restart := r.Action == vcjob.RestartJobAction || r.Action == vcjob.RestartTaskAction ||
		r.Action == vcjob.RestartPodAction || r.Action == vcjob.RestartPartitionAction
	if r.Rule.Kind == policy.RuleDisruption {
		out = append(out, "no retry counted")
	}
	if e := ext.Escalation; e != nil && (r.Action == vcjob.RestartPodAction || r.Action == vcjob.RestartTaskAction) && r.Delay == 0 {
		out = append(out, fmt.Sprintf("escalates: RestartPod %d times per pod, then RestartTask %d times per task, then RestartJob", e.RestartPod, e.RestartTask))
	}
	if b := ext.RetryBudget; b != nil && restart && r.Rule.Kind != policy.RuleDisruption {
		out = append(out, fmt.Sprintf("no retry counted while within %d restarts per %s; beyond, the job fails", b.Restarts, b.Window.Duration))
	}
	if b := ext.RestartBackoff; b != nil && restart {
		out = append(out, fmt.Sprintf("pods come back after %s, doubling per restart up to %s", b.Base.Duration, b.Max.Duration))
	}
	return out
}
