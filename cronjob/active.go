package cronjob

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"
)

// checkActive holds the cronjob's jobs and status.active against each
// other, and reports whether the status changed.
//
//   - An unfinished job the cronjob controls whose UID is not in
//     status.active is an OrphanedJob warning, unless the cronjob as the
//     API server holds it (a Get) lists it: then the rest of the check
//     works on that copy, and its changes are not the sync's. The job is
//     not adopted either way.
//   - An entry of status.active whose UID is no controlled job's is looked
//     up in the Job lister by its namespace and name: missing, it is a
//     StaleReference warning and leaves the list; of another UID, a
//     StaleReference warning too, and it leaves the list unless its own
//     UID is empty (the list's entries are removed by UID). A job of the
//     same UID the cronjob does not control stays. An entry without a
//     namespace is never found.
//   - Each removal shifts the next entry into the removed one's place, and
//     the check skips it (Options.VisitEveryActiveReference).
func (s *syncer) checkActive(jobs []*vcjob.Job) (bool, error) {
	changed := false
	target := s.cj
	controlled := make(map[types.UID]bool, len(jobs))
	for _, job := range jobs {
		controlled[job.UID] = true
		if inActive(target.Status.Active, job.UID) || isFinished(job) {
			continue
		}
		stored, err := s.api.getCronJob(target.Namespace, target.Name)
		if err != nil {
			return changed, fmt.Errorf("get the cronjob: %w", err)
		}
		if inActive(stored.Status.Active, job.UID) {
			target = stored
			continue
		}
		s.record(orphanedJob(job.Name, string(job.UID)))
	}

	rangeActive(&target.Status, s.opts.VisitEveryActiveReference, func(ref corev1.ObjectReference) bool {
		if controlled[ref.UID] {
			return false
		}
		job := listerGet(s.listed, ref.Namespace, ref.Name)
		switch {
		case job == nil:
			s.record(staleReferenceGone(ref.Name, string(ref.UID)))
		case job.UID != ref.UID:
			s.record(staleReferenceUID(ref.Name, string(ref.UID), string(job.UID)))
		default:
			return false
		}
		removeFromActive(&target.Status, ref.UID)
		changed = true
		return false
	})
	return changed, nil
}
