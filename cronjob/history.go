package cronjob

import (
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

// finishedJobs takes the finished jobs out of status.active, moves
// status.lastSuccessfulTime, and deletes the finished jobs beyond the
// history limits. It reports whether the status changed.
//
//   - A finished job (Completed, Failed, Terminated) whose UID is in
//     status.active leaves it, with a SawCompletedJob event.
//   - A Completed job sets lastSuccessfulTime when there is none (to the
//     job's status.state.lastTransitionTime, even an unset one), and moves
//     it to a later transition time.
//   - With either limit set, the oldest Completed jobs beyond
//     successfulJobsHistoryLimit, then the oldest Failed jobs beyond
//     failedJobsHistoryLimit, are deleted, oldest first by creation time
//     (jobs without one last), then by name. Terminated jobs count against
//     neither limit: they are never deleted. An unset limit keeps every
//     job of its kind. A negative limit makes Volcano's sync panic after
//     deleting every job of its kind.
func (s *syncer) finishedJobs(jobs []*vcjob.Job) (bool, error) {
	changed := false
	var successful, failed []*vcjob.Job
	for _, job := range jobs {
		if !isFinished(job) {
			continue
		}
		if inActive(s.cj.Status.Active, job.UID) {
			removeFromActive(&s.cj.Status, job.UID)
			s.record(sawCompletedJob(job.Name))
			changed = true
		}
		switch job.Status.State.Phase {
		case vcjob.Completed:
			finished := job.Status.State.LastTransitionTime
			last := s.cj.Status.LastSuccessfulTime
			if last == nil || (!finished.IsZero() && finished.After(last.Time)) {
				s.cj.Status.LastSuccessfulTime = &finished
				changed = true
			}
			successful = append(successful, job)
		case vcjob.Failed:
			failed = append(failed, job)
		}
	}

	spec := s.cj.Spec
	for _, kind := range []struct {
		jobs  []*vcjob.Job
		limit *int32
	}{{successful, spec.SuccessfulJobsHistoryLimit}, {failed, spec.FailedJobsHistoryLimit}} {
		if kind.limit == nil {
			continue
		}
		deleted, err := s.deleteOldest(kind.jobs, *kind.limit)
		changed = changed || deleted
		if err != nil {
			return changed, err
		}
	}
	return changed, nil
}

// deleteOldest deletes the oldest jobs beyond limit and reports whether it
// deleted one. A delete that fails is a FailedDelete event, and the next
// job is deleted all the same.
func (s *syncer) deleteOldest(jobs []*vcjob.Job, limit int32) (bool, error) {
	excess := len(jobs) - int(limit)
	if excess <= 0 {
		return false, nil
	}
	slices.SortFunc(jobs, olderFirst)
	deleted := false
	for i := range excess {
		if i >= len(jobs) {
			return deleted, fmt.Errorf("%w: history limit %d: runtime error: index out of range [%d] with length %d", ErrPanic, limit, i, len(jobs))
		}
		if s.deleteJob(jobs[i]) {
			deleted = true
			if s.opts.RecordDeletedRuns {
				s.recordDeletedRun(jobs[i])
			}
		}
	}
	return deleted, nil
}

// deleteJob deletes a job, takes it out of status.active, and records the
// outcome; it reports whether the delete succeeded.
func (s *syncer) deleteJob(job *vcjob.Job) bool {
	if err := s.api.deleteJob(job.Namespace, job.Name); err != nil {
		s.record(failedDelete(job.Name, err))
		return false
	}
	removeFromActive(&s.cj.Status, job.UID)
	s.record(successfulDelete(job.Name))
	return true
}

// olderFirst orders jobs by creation time, jobs without one last, then by
// name.
func olderFirst(a, b *vcjob.Job) int {
	az, bz := a.CreationTimestamp.IsZero(), b.CreationTimestamp.IsZero()
	switch {
	case az && !bz:
		return 1
	case !az && bz:
		return -1
	case a.CreationTimestamp.Equal(&b.CreationTimestamp):
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	case a.CreationTimestamp.Before(&b.CreationTimestamp):
		return -1
	}
	return 1
}

// recordDeletedRun moves status.lastScheduleTime up to the scheduled time
// of a deleted job, when that is later and not after now
// (Options.RecordDeletedRuns).
func (s *syncer) recordDeletedRun(job *vcjob.Job) {
	scheduled, ok := scheduledTime(job)
	if !ok || scheduled.After(s.now) {
		return
	}
	if last := s.cj.Status.LastScheduleTime; last == nil || scheduled.After(last.Time) {
		s.cj.Status.LastScheduleTime = &metav1.Time{Time: scheduled}
	}
}

// scheduledTime is a job's volcano.sh/cronjob-scheduled-timestamp
// annotation, when it holds an RFC 3339 time.
func scheduledTime(job *vcjob.Job) (time.Time, bool) {
	v, ok := job.Annotations[vcjob.CronJobScheduledTimeKey]
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, v)
	return t, err == nil
}
