package cache

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/jobinfo"
)

// Under behavior.CacheByJobUID the cache files a pod under its job by the
// job's UID (volcano#5973): Volcano keys its cache by namespace/name, so a
// job deleted and created again under its name takes over the old job's
// entry with the old pods still being deleted. addPod refuses another
// job's pod (ErrOtherJob), deletePod ignores it, and dropOtherJobs clears
// an entry when its job arrives.

// otherJob reports whether pod's controller is a job other than job: both
// UIDs known, and different.
func otherJob(job *vcjob.Job, pod *corev1.Pod) bool {
	if job == nil || job.UID == "" {
		return false
	}
	owner := metav1.GetControllerOfNoCopy(pod)
	return owner != nil && owner.UID != "" && owner.UID != job.UID
}

// byJobUID reports whether the cache keeps e's pods by its job's UID
// (behavior.CacheByJobUID, with the job's annotation): only for
// a job that is cached and not deleted.
func (c *Cache) byJobUID(e *entry) bool {
	return e != nil && e.info.Job != nil && !e.deleted && c.Behavior.For(e.info.Job).Has(behavior.CacheByJobUID)
}

// dropOtherJobs takes out of ji, which has just been given its job, the
// pods of other jobs of that name, under CacheByJobUID: those an earlier
// job, deleted, left there, and those that came before the job's own
// add. c.mu must be held.
func (c *Cache) dropOtherJobs(ji *jobinfo.Info) {
	if ji.Job == nil || !c.Behavior.For(ji.Job).Has(behavior.CacheByJobUID) {
		return
	}
	var others []*corev1.Pod
	for _, pod := range ji.Pods() {
		if otherJob(ji.Job, pod) {
			others = append(others, pod)
		}
	}
	for _, pod := range others {
		ji.DeletePod(pod)
	}
}
