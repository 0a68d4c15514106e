package statemachine

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
)

// Func turns an update rule into the status-update function for job.
// Rules read the job's spec (minAvailable, minSuccess, tasks, maxRetry) as
// it was when the decision was made.
func (r UpdateRule) Func(job *vcjob.Job) UpdateStatusFunc {
	set := func(p vcjob.JobPhase) UpdateStatusFunc {
		return func(s *vcjob.JobStatus) bool { s.State.Phase = p; return true }
	}
	whenIdle := func(p vcjob.JobPhase) UpdateStatusFunc {
		return func(s *vcjob.JobStatus) bool {
			if s.Terminating != 0 || s.Pending != 0 || s.Running != 0 {
				return false
			}
			s.State.Phase = p
			return true
		}
	}
	switch r {
	case UpdateRestart:
		return func(s *vcjob.JobStatus) bool {
			s.State.Phase = vcjob.Restarting
			s.RetryCount++
			return true
		}
	case UpdateResume:
		return set(vcjob.Restarting)
	case UpdateFail:
		return set(vcjob.Failed)
	case UpdateAbort:
		return set(vcjob.Aborting)
	case UpdateComplete:
		return set(vcjob.Completing)
	case UpdateTerminate:
		return set(vcjob.Terminating)
	case UpdatePendingSync:
		return func(s *vcjob.JobStatus) bool { return pendingSync(job, s) }
	case UpdateRunningSync:
		return func(s *vcjob.JobStatus) bool { return runningSync(job, s) }
	case UpdateRestarting:
		return func(s *vcjob.JobStatus) bool { return restarting(job, s) }
	case UpdateAborted:
		return whenIdle(vcjob.Aborted)
	case UpdateCompleted:
		return whenIdle(vcjob.Completed)
	case UpdateTerminated:
		return whenIdle(vcjob.Terminated)
	}
	return func(*vcjob.JobStatus) bool { return false }
}

func pendingSync(job *vcjob.Job, s *vcjob.JobStatus) bool {
	if job.Spec.MinAvailable <= s.Running+s.Succeeded+s.Failed {
		s.State.Phase = vcjob.Running
		return true
	}
	return false
}

func runningSync(job *vcjob.Job, s *vcjob.JobStatus) bool {
	total := job.TotalReplicas()
	if total == 0 {
		// Scaled down to zero: keep the phase.
		return false
	}
	minSuccess := job.Spec.MinSuccess
	if minSuccess != nil && s.Succeeded >= *minSuccess {
		s.State.Phase = vcjob.Completed
		return true
	}
	if s.Succeeded+s.Failed == total {
		if job.Spec.MinAvailable >= TotalTaskMinAvailable(job) {
			for _, t := range job.Spec.Tasks {
				if t.MinAvailable == nil {
					continue
				}
				// Tasks absent from taskStatusCount are skipped.
				if ts, ok := s.TaskStatusCount[t.Name]; ok && ts.Phase[corev1.PodSucceeded] < *t.MinAvailable {
					s.State.Phase = vcjob.Failed
					return true
				}
			}
		}
		switch {
		case minSuccess != nil && s.Succeeded < *minSuccess:
			s.State.Phase = vcjob.Failed
		case s.Succeeded >= job.Spec.MinAvailable:
			s.State.Phase = vcjob.Completed
		default:
			s.State.Phase = vcjob.Failed
		}
		return true
	}
	if s.Pending > total-job.Spec.MinAvailable {
		s.State.Phase = vcjob.Pending
		return true
	}
	return false
}

func restarting(job *vcjob.Job, s *vcjob.JobStatus) bool {
	if s.RetryCount >= job.Spec.MaxRetry {
		s.State.Phase = vcjob.Failed
		return true
	}
	// Compared with status.minAvailable, which the reconcile path sets from
	// the spec and the kill paths leave as stored.
	if job.TotalReplicas()-s.Terminating >= s.MinAvailable {
		s.State.Phase = vcjob.Pending
		return true
	}
	return false
}

// TotalTaskMinAvailable is the sum of the tasks' minAvailable, counting a
// task without one as its replicas.
func TotalTaskMinAvailable(job *vcjob.Job) int32 {
	var n int32
	for _, t := range job.Spec.Tasks {
		if t.MinAvailable != nil {
			n += *t.MinAvailable
		} else {
			n += t.Replicas
		}
	}
	return n
}
