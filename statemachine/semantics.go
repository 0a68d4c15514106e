package statemachine

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/jobinfo"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/semantics"
)

// UpdateResume moves to Restarting without counting a retry: ResumeJob
// under semantics.Profile.ResumeKeepsRetries.
const UpdateResume UpdateRule = "resume"

// CallNone is the call of a transition that does nothing at all: an event
// on a finished job with nothing left to delete, under
// semantics.Profile.LeaveFinishedJobs. Execute makes no call for it.
const CallNone Call = "None"

// LookupWith is Lookup under the semantics sem (already resolved for the
// job, see semantics.Profile.For). With the zero Semantics it is Lookup.
func LookupWith(state State, action vcjob.Action, sem semantics.Profile) Transition {
	tr := Lookup(state, action)
	if sem.IsVolcano() {
		return tr
	}
	if sem.ResumeKeepsRetries && action == vcjob.ResumeJobAction && (state == StateAborting || state == StateAborted) {
		tr.Update = UpdateResume
	}
	if sem.AbortWhileRestarting && action == vcjob.AbortJobAction && state == StateRestarting {
		tr = Transition{State: state, Action: action, Call: CallKillJob, Retain: RetainSoft,
			Update: UpdateAbort, To: []vcjob.JobPhase{vcjob.Aborting}}
	}
	return tr
}

// Options are how ExecuteWith departs from Volcano; the zero value does
// what Volcano does.
type Options struct {
	// Semantics are the embedder's choice, to which the job's
	// semantics.Annotation applies (semantics.Profile.For).
	Semantics semantics.Profile
	// KeepRetries: a restart this action makes moves to Restarting
	// without counting a retry (policy.Decision.KeepRetries: a disrupted
	// pod under the policy extensions).
	KeepRetries bool
	// FailJob: a restart this action makes fails the job instead (a
	// whole-job kill that keeps finished pods, then Failed): the retry
	// budget of the policy extensions is spent (policy.Decision.FailJob).
	FailJob bool
}

// UpdateFail moves to Failed: a restart beyond the retry budget.
const UpdateFail UpdateRule = "fail"

// ExecuteWith is Execute with options. Execute is ExecuteWith with the zero
// options: Volcano's semantics unless the job asks otherwise.
//
// Under LeaveFinishedJobs, a finished job (and an Aborted one, but for
// ResumeJob) that has no pod left to delete gets no call: the transition
// returned has Call CallNone.
func ExecuteWith(ctx context.Context, cluster Cluster, ji *jobinfo.Info, action vcjob.Action, target request.Target, opts Options) (Transition, error) {
	if ji != nil && ji.Job != nil {
		opts.Semantics = opts.Semantics.For(ji.Job)
	}
	return execute(ctx, cluster, ji, action, target, opts)
}

// leaveAlone reports whether tr, under LeaveFinishedJobs, is a kill of a
// finished or Aborted job with nothing left to delete.
func leaveAlone(ji *jobinfo.Info, tr Transition) bool {
	if tr.Call != CallKillJob || tr.Update != UpdateKeep || (tr.State != StateFinished && tr.State != StateAborted) {
		return false
	}
	if ji.Job.DeletionTimestamp != nil {
		return false // the kill is a no-op anyway
	}
	for _, pod := range ji.Pods() {
		if pod.DeletionTimestamp == nil && !RetainSoft.Keeps(pod.Status.Phase) {
			return false
		}
	}
	return true
}

// retainedFinished lists the pods of ji a kill leaves alone that are
// Succeeded or Failed and not terminating: what CountFinishedAfterKill
// counts. deleted are the pods the kill deletes (sorted by name).
func retainedFinished(ji *jobinfo.Info, deleted []*corev1.Pod) []*corev1.Pod {
	gone := make(map[string]bool, len(deleted))
	for _, p := range deleted {
		gone[p.Name] = true
	}
	var out []*corev1.Pod
	for _, pod := range ji.Pods() {
		if pod.DeletionTimestamp == nil && RetainSoft.Keeps(pod.Status.Phase) && !gone[pod.Name] {
			out = append(out, pod)
		}
	}
	return out
}
