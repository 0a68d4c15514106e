package statemachine

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

// StatusFirst is the status a kill writes before its first delete under
// behavior.Set.KillStatusFirst, and whether it writes one: the
// phase, retry count, version, transition time and conditions Complete
// would write were every delete to succeed, over the counts of stored,
// the job's status as stored. It writes one only when the kill moves the
// job into Restarting, Aborting, Completing or Terminating, or counts a
// retry: a job stopped there has a state that kills again on its next
// request, so the action survives a controller stopped among the
// deletes. A phase the counts decide (Pending, Failed or Completed after
// Restarting, a finished phase once idle) is never written before the
// pods are gone, and a kill that only bumps the version is left in
// Volcano's order: its job is already in a state that kills again.
func (p *KillPlan) StatusFirst(stored vcjob.JobStatus, update UpdateStatusFunc, now metav1.Time) (vcjob.JobStatus, bool) {
	if p.Noop || p.Err != nil || len(p.Delete) == 0 {
		return vcjob.JobStatus{}, false
	}
	out := p.Complete(nil, update, now)
	if out.Err != nil || !out.Write {
		return vcjob.JobStatus{}, false
	}
	to := out.Status.State.Phase
	switch {
	case out.Status.RetryCount != stored.RetryCount:
	case to != stored.State.Phase && (to == vcjob.Restarting || to == vcjob.Aborting || to == vcjob.Completing || to == vcjob.Terminating):
	default:
		return vcjob.JobStatus{}, false
	}
	first := *stored.DeepCopy()
	first.State = out.Status.State
	first.RetryCount = out.Status.RetryCount
	first.Version = out.Status.Version
	first.Conditions = out.Status.Conditions
	return first, true
}
