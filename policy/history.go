package policy

import (
	"time"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/request"
)

// History is what the stateful policy extensions (RetryBudget,
// Escalation) remember of one job: when it restarted, and how often
// each pod and task was restarted. Volcano keeps nothing of the kind (only
// status.retryCount), so the caller keeps it: worker.Step keeps one per job
// in memory, for the life of the step.
type History struct {
	// Restarts are the times of the restarts within the budget's window
	// (older ones are dropped as they stop counting).
	Restarts []time.Time `json:"restarts,omitempty"`
	// Pods and Tasks count RestartPod by pod name and RestartTask by task.
	Pods  map[string]int32 `json:"pods,omitempty"`
	Tasks map[string]int32 `json:"tasks,omitempty"`
}

// isRestart reports whether a is one of the restart actions.
func isRestart(a vcjob.Action) bool {
	switch a {
	case vcjob.RestartJobAction, vcjob.RestartTaskAction, vcjob.RestartPodAction, vcjob.RestartPartitionAction:
		return true
	}
	return false
}

// Stateful applies ext's escalation and retry budget to d, decided for req
// at now, given the job's history h (nil: an empty one). A RestartPod of a
// pod restarted Escalation.RestartPod times becomes RestartTask, and a
// RestartTask of a task restarted Escalation.RestartTask times becomes
// RestartJob. Under a RetryBudget a restart counts no retry while the
// restarts within the window, this one included, stay within it; beyond it
// the decision fails the job (FailJob). d is returned unchanged when ext
// has neither.
func Stateful(ext *Extensions, h *History, d Decision, req request.Request, now time.Time) Decision {
	if ext == nil || !isRestart(d.Action) {
		return d
	}
	if h == nil {
		h = &History{}
	}
	if e := ext.Escalation; e != nil {
		if d.Action == vcjob.RestartPodAction && h.Pods[req.PodName] >= e.RestartPod {
			d.Action, d.Escalated = vcjob.RestartTaskAction, true
		}
		if d.Action == vcjob.RestartTaskAction && h.Tasks[req.TaskName] >= e.RestartTask {
			d.Action, d.Escalated = vcjob.RestartJobAction, true
		}
		d.Target = request.TargetOf(d.Action, req)
	}
	if b := ext.RetryBudget; b != nil {
		if int32(h.within(b.Window.Duration, now)) < b.Restarts {
			d.KeepRetries = true
		} else {
			d.FailJob = true
		}
	}
	return d
}

// within counts the restarts in the window ending at now.
func (h *History) within(window time.Duration, now time.Time) int {
	n := 0
	for _, t := range h.Restarts {
		if now.Sub(t) < window {
			n++
		}
	}
	return n
}

// Record notes a restart that ran at now (action on target), dropping the
// restarts that have left ext's budget window.
func (h *History) Record(ext *Extensions, action vcjob.Action, target request.Target, now time.Time) {
	if !isRestart(action) {
		return
	}
	if ext != nil && ext.RetryBudget != nil {
		kept := h.Restarts[:0]
		for _, t := range h.Restarts {
			if now.Sub(t) < ext.RetryBudget.Window.Duration {
				kept = append(kept, t)
			}
		}
		h.Restarts = append(kept, now)
	}
	switch action {
	case vcjob.RestartPodAction:
		if h.Pods == nil {
			h.Pods = map[string]int32{}
		}
		h.Pods[target.PodName]++
	case vcjob.RestartTaskAction:
		if h.Tasks == nil {
			h.Tasks = map[string]int32{}
		}
		h.Tasks[target.TaskName]++
	}
}

// NeedsHistory reports whether ext has an extension that reads a History.
func NeedsHistory(ext *Extensions) bool {
	return ext != nil && (ext.RetryBudget != nil || ext.Escalation != nil)
}
