package cronjob

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
)

// concurrency applies the concurrency policy before a run starts. It
// reports whether the run is held back and whether the status changed.
//
//   - Forbid, with any entry in status.active (finished or not, stale or
//     not: whatever the checks before left there), holds the run back
//     with a ForbidConcurrent warning.
//   - Replace, with entries in status.active, records a ReplaceConcurrent
//     warning, then for each entry gets the job from the API server by the
//     entry's namespace and name and deletes it. A Get that fails (the job
//     is gone; the entry has no namespace) is a FailedGet warning and
//     fails the sync, as does a delete that fails (FailedDelete). The
//     deleted job's UID leaves the list: an entry of another UID, or none,
//     stays. Each removal skips the next entry
//     (Options.VisitEveryActiveReference).
//   - Allow, and any other value ("" included), starts the run.
func (s *syncer) concurrency() (held, changed bool, err error) {
	switch s.cj.Spec.ConcurrencyPolicy {
	case vcjob.ForbidConcurrent:
		if len(s.cj.Status.Active) > 0 {
			s.record(forbidConcurrent())
			return true, false, nil
		}
	case vcjob.ReplaceConcurrent:
		if len(s.cj.Status.Active) == 0 {
			return false, false, nil
		}
		s.record(replaceConcurrent())
		rangeActive(&s.cj.Status, s.opts.VisitEveryActiveReference, func(ref corev1.ObjectReference) bool {
			job, getErr := s.api.getJob(ref.Namespace, ref.Name)
			if getErr != nil {
				s.record(failedGet(getErr))
				err = fmt.Errorf("replace job %s/%s: %w", ref.Namespace, ref.Name, getErr)
				return true
			}
			if !s.deleteJob(job) {
				err = fmt.Errorf("could not replace job %s/%s", job.Namespace, job.Name)
				return true
			}
			changed = true
			return false
		})
	}
	return false, changed, err
}
