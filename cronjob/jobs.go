package cronjob

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"
)

// IsControlledBy reports whether a sync of cj counts job as one of its
// jobs, as Volcano selects them from its Job lister: the job is in the
// cronjob's namespace and its controller reference names a kind CronJob
// of the cronjob's name and UID. The reference's apiVersion is not looked
// at (a batch/v1 CronJob of that name and UID would do), and a cronjob
// without a UID controls the jobs whose reference has none.
//
// Decide selects the jobs itself; this is for a controller deciding which
// cronjob a job's change concerns. (Volcano's job event handlers ask for
// apiVersion batch.volcano.sh/v1alpha1 besides.)
func IsControlledBy(job *vcjob.Job, cj *vcjob.CronJob) bool {
	if job == nil || cj == nil || (cj.Namespace != "" && job.Namespace != cj.Namespace) {
		return false
	}
	ref := metav1.GetControllerOfNoCopy(job)
	return ref != nil && ref.Kind == vcjob.CronJobKind && ref.Name == cj.Name && ref.UID == cj.UID
}

// controlledJobs are the jobs the lister holds that IsControlledBy cj, in
// the lister's order.
func controlledJobs(cj *vcjob.CronJob, listed []*vcjob.Job) []*vcjob.Job {
	var jobs []*vcjob.Job
	for _, j := range listed {
		if IsControlledBy(j, cj) {
			jobs = append(jobs, j)
		}
	}
	return jobs
}

// listerGet is the job of that namespace and name, as a namespaced lister
// finds it.
func listerGet(listed []*vcjob.Job, namespace, name string) *vcjob.Job {
	for _, j := range listed {
		if j != nil && j.Namespace == namespace && j.Name == name {
			return j
		}
	}
	return nil
}

// isFinished: Completed, Failed and Terminated jobs leave status.active.
// Aborted is not finished here: an Aborted job stays active, and under
// Forbid holds every later run back.
func isFinished(job *vcjob.Job) bool {
	switch job.Status.State.Phase {
	case vcjob.Completed, vcjob.Failed, vcjob.Terminated:
		return true
	}
	return false
}

// inActive reports whether an entry of active has the UID; an empty UID
// is never in it.
func inActive(active []corev1.ObjectReference, uid types.UID) bool {
	if uid == "" {
		return false
	}
	for _, ref := range active {
		if ref.UID == uid {
			return true
		}
	}
	return false
}

// inActiveByName reports whether an entry of active names the job.
func inActiveByName(active []corev1.ObjectReference, namespace, name string) bool {
	for _, ref := range active {
		if ref.Name == name && ref.Namespace == namespace {
			return true
		}
	}
	return false
}

// removeFromActive drops the entries of the UID (none for an empty UID).
// It compacts the list in place, in the array it shares with any copy of
// the slice taken before, as Volcano does: a loop ranging over such a copy
// then sees the entry after a removed one moved into the removed one's
// place, and skips it (see Options.VisitEveryActiveReference).
func removeFromActive(status *vcjob.CronJobStatus, uid types.UID) {
	if uid == "" || len(status.Active) == 0 {
		return
	}
	active := status.Active
	kept := 0
	for i := range active {
		if active[i].UID != uid {
			active[kept] = active[i]
			kept++
		}
	}
	if kept < len(active) {
		status.Active = active[:kept:kept]
	}
}

// rangeActive is the entries a loop over status.active visits while
// removeFromActive may change it: each is read from the shared array when
// its turn comes, as Go's range over a slice does. With every set, the
// loop visits a copy taken before it starts.
func rangeActive(status *vcjob.CronJobStatus, every bool, visit func(ref corev1.ObjectReference) (stop bool)) {
	active := status.Active
	if every {
		active = append([]corev1.ObjectReference(nil), active...)
	}
	for i := range active {
		if visit(active[i]) {
			return
		}
	}
}

// jobReference is the status.active entry of a job, as client-go's
// reference.GetReference makes it: the job's own apiVersion and kind when
// it carries either, else (the typed client's objects carry neither) the
// Volcano Job's.
func jobReference(job *vcjob.Job) corev1.ObjectReference {
	gvk := schema.FromAPIVersionAndKind(job.APIVersion, job.Kind)
	if gvk.Empty() {
		gvk = vcjob.SchemeGroupVersion.WithKind(vcjob.JobKind)
	}
	return corev1.ObjectReference{
		Kind:            gvk.Kind,
		APIVersion:      gvk.GroupVersion().String(),
		Namespace:       job.Namespace,
		Name:            job.Name,
		UID:             job.UID,
		ResourceVersion: job.ResourceVersion,
	}
}

// cronJobKey is the cronjob as klog.KObj prints it: namespace/name.
func cronJobKey(cj *vcjob.CronJob) string {
	if cj.Namespace == "" {
		return cj.Name
	}
	return cj.Namespace + "/" + cj.Name
}
