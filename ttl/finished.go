package ttl

import "github.com/vcjob/vcjob"

// Finished reports whether the garbage collector counts job as finished:
// its status.state.phase is Completed, Failed or Terminated. Aborted is
// not one of them, so an Aborted job is never cleaned up, whatever its
// ttlSecondsAfterFinished; neither is any other phase, an empty one or one
// Volcano does not know. A nil job is not finished.
func Finished(job *vcjob.Job) bool {
	if job == nil {
		return false
	}
	switch job.Status.State.Phase {
	case vcjob.Completed, vcjob.Failed, vcjob.Terminated:
		return true
	}
	return false
}

// NeedsCleanup reports whether job is one the garbage collector deletes
// once its time is up: spec.ttlSecondsAfterFinished is set (0 and negative
// values included) and the job is Finished. It does not look at the
// deletion timestamp; Enqueues and Check do.
func NeedsCleanup(job *vcjob.Job) bool {
	return job != nil && job.Spec.TTLSecondsAfterFinished != nil && Finished(job)
}

// Enqueues reports whether an informer's add or update of job puts it on
// the garbage collector's queue, to be looked at now: it has no deletion
// timestamp and NeedsCleanup. An update is judged on the new object
// alone. A job that is not queued is never looked at until it changes
// again.
func Enqueues(job *vcjob.Job) bool {
	return job != nil && job.DeletionTimestamp == nil && NeedsCleanup(job)
}
