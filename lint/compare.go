package lint

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/policy"
)

// semantics lints vcjob's own annotations (vcjob.dev/semantics,
// vcjob.dev/policy) and where Volcano's semantics will bite the job.
func (l *linter) semantics() {
	job := l.a.given
	for _, e := range behavior.ValidateAnnotation(job) {
		l.add(mustPath(e.Field), CodeSemanticsAnnotationInvalid, "%s", e.Detail)
	}
	for _, e := range policy.ValidateExtensionsAnnotation(job) {
		l.add(mustPath(e.Field), CodeExtensionsInvalid, "%s", e.ErrorBody())
	}
	sem := behavior.Set{}.For(job)
	if job.Spec.MinSuccess != nil && !sem.Has(behavior.CountFinishedAfterKill) {
		if kills := l.a.softKills(); len(kills) > 0 {
			l.add(field.NewPath("spec", "minSuccess"), CodeFinishedNotCounted,
				"minSuccess %d: after a kill that keeps Succeeded pods (%s), Volcano writes succeeded 0 and an empty taskStatusCount (volcano#4616), so the status no longer shows the work done; annotate %s: count-finished-after-kill to count them",
				*job.Spec.MinSuccess, kills, behavior.Annotation)
		}
	}
}

// softKills names the job's policy actions whose kill keeps Succeeded
// pods: AbortJob, CompleteJob, TerminateJob, and a restart on its last
// retry.
func (a *analysis) softKills() string {
	seen := map[vcjob.Action]bool{}
	var out string
	for _, list := range a.lists {
		for _, p := range list.policies {
			switch p.Action {
			case vcjob.AbortJobAction, vcjob.CompleteJobAction, vcjob.TerminateJobAction, vcjob.RestartJobAction:
				if !seen[p.Action] {
					seen[p.Action] = true
					if out != "" {
						out += ", "
					}
					out += string(p.Action)
				}
			}
		}
	}
	return out
}

// mustPath is a field path from its printed form, for findings that carry
// the path of a field error: the path is kept as text.
func mustPath(s string) *field.Path { return field.NewPath(s) }

// Difference is one request Explain lists that a semantics profile decides
// otherwise than Volcano: the row, the correction, and what each does.
type Difference struct {
	Task    string `json:"task,omitempty"`
	Event   string `json:"event"`
	Switch  string `json:"switch"`
	Volcano string `json:"volcano"`
	Other   string `json:"other"`
}

func (d Difference) String() string {
	task := d.Task
	if task == "" {
		task = "(job)"
	}
	return fmt.Sprintf("%s %s [%s]: Volcano %s; corrected %s", task, d.Event, d.Switch, d.Volcano, d.Other)
}

// containerNames names the containers of task's pod template, in order.
func containerNames(job *vcjob.Job, task string) []string {
	t := job.Task(task)
	if t == nil {
		return nil
	}
	var out []string
	for _, c := range t.Template.Spec.Containers {
		out = append(out, c.Name)
	}
	return out
}

// Compare lists, row by row of Explain(job), where the semantics sem
// decide otherwise than Volcano, and, at the end, the job-wide
// differences (finished jobs left alone, out-of-sync pods counted once,
// pods first seen finished, pods of an earlier job of the name).
// With the zero Semantics it lists nothing.
func Compare(job *vcjob.Job, sem behavior.Set) []Difference {
	if job == nil || sem.IsVolcano() {
		return nil
	}
	var out []Difference
	t := Explain(job)
	for _, r := range t.Rows {
		add := func(sw, volcano, other string) {
			out = append(out, Difference{Task: r.Task, Event: r.EventText(), Switch: sw, Volcano: volcano, Other: other})
		}
		if sem.Has(behavior.PodGroupRequestsCurrentVersion) && r.Event == vcjob.JobUnknownEvent {
			a := newAnalysis(job)
			req := a.request(-1, vcjob.JobUnknownEvent, nil)
			req.JobVersion = job.Status.Version
			d := policy.Resolve(a.defaulted, req)
			if d.Action != r.Action {
				add("podgroup-requests-current-version", fmt.Sprintf("%s (%s)", r.Action, r.Rule), fmt.Sprintf("%s (%s)", d.Action, d.Rule))
			} else if r.Rule.Kind == policy.RuleJobPolicy {
				add("podgroup-requests-current-version", fmt.Sprintf("%s only until the job is first killed", r.Action), fmt.Sprintf("%s at every job version", r.Action))
			}
		}
		if r.Delay > 0 && sem.Has(behavior.DelaysByPodUID) && (r.Event == vcjob.PodFailedEvent || r.Event == vcjob.PodEvictedEvent || r.Event == vcjob.PodPendingEvent) {
			add("delays-by-pod-uid", "the delayed "+string(r.Action)+" is the pod name's: a re-created pod's events cancel it or are dropped as its duplicates",
				"it is the pod's (its UID): only that pod's events cancel it")
		}
		if sem.Has(behavior.ExitCodeFirstFailedContainer) && r.ExitCode != nil && !r.Unmatched {
			if names := containerNames(job, r.Task); len(names) > 1 {
				add("exit-code-first-failed-container",
					fmt.Sprintf("%s when the first container status (%s) says %d, whichever container failed", r.Action, names[0], *r.ExitCode),
					fmt.Sprintf("%s when the first of %s, in this order, to exit non-zero exits %d", r.Action, strings.Join(names, ", "), *r.ExitCode))
			}
		}
		if sem.Has(behavior.FailurePolicyBeforeSync) && r.Event == vcjob.PodFailedEvent && r.Delay == 0 && r.Action != vcjob.SyncJobAction {
			add("failure-policy-before-sync",
				fmt.Sprintf("%s only when the pod's request comes before any sync that counts the failure (after a controller restart the job's sync comes first and may finish the job)", r.Action),
				fmt.Sprintf("%s also when a sync of the Running job sees the failure first", r.Action))
		}
		if r.Delay == 0 {
			switch r.Action {
			case vcjob.AbortJobAction:
				if sem.Has(behavior.AbortWhileRestarting) {
					add("abort-while-restarting", "in Restarting a whole-job kill that does not abort", "aborts in Restarting too")
				}
				fallthrough
			case vcjob.CompleteJobAction, vcjob.TerminateJobAction:
				if sem.Has(behavior.CountFinishedAfterKill) {
					add("count-finished-after-kill", "the kill keeps Succeeded/Failed pods and writes succeeded 0, failed 0", "they are still counted")
				}
			case vcjob.ResumeJobAction:
				if sem.Has(behavior.ResumeKeepsRetries) {
					add("resume-keeps-retries", "in Aborting/Aborted -> Restarting, retry +1", "-> Restarting without a retry counted")
				}
			}
		}
	}
	if sem.Has(behavior.LeaveFinishedJobs) {
		out = append(out, Difference{Event: "any, once finished", Switch: "leave-finished-jobs",
			Volcano: "a kill, status.version +1, a status write", Other: "nothing, when no pod is left to delete"})
	}
	if sem.Has(behavior.OutOfSyncCountedOnce) {
		out = append(out, Difference{Event: "sync with an out-of-sync pod", Switch: "out-of-sync-counted-once",
			Volcano: "counted by its phase and as terminating", Other: "counted as terminating only"})
	}
	if sem.Has(behavior.FinishedPodsOnAdd) {
		out = append(out, Difference{Event: "a pod first seen finished", Switch: "finished-pods-on-add",
			Volcano: "PodPending: its failure or its task's completion is never acted on", Other: "PodFailed with its exit code, or TaskCompleted"})
	}
	if sem.Has(behavior.CacheByJobUID) {
		out = append(out, Difference{Event: "pods of an earlier job of this name", Switch: "cache-by-job-uid",
			Volcano: "counted as the job's own once it is created again under the name (a Succeeded one completes its task), and the pods whose names they hold not created until they are gone",
			Other:   "left out of the job's info, their events never change it"})
	}
	if sem.Has(behavior.KillStatusFirst) {
		out = append(out, Difference{Event: "a controller stopped during a kill", Switch: "kill-status-first",
			Volcano: "the pods marked or deleted so far, the job in its old phase: the action (its phase, its retry) is never taken",
			Other:   "the job already in the kill's phase (Restarting, Aborting, Completing, Terminating), its retry counted"})
	}
	if sem.Has(behavior.PodGroupPhaseOnAdd) {
		out = append(out, Difference{Event: "a PodGroup first seen in a phase", Switch: "podgroup-phase-on-add",
			Volcano: "nothing: a job waiting for its PodGroup's admission whose move to Inqueue was lost waits for ever", Other: "the request of the phase change the watch lost"})
	}
	return out
}
