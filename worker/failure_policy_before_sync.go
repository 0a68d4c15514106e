package worker

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/jobinfo"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/request"
)

// unhandledFailure finds, for behavior.FailurePolicyBeforeSync, the
// first Failed pod (by name) of ji's Running job that no step has acted on
// and whose failure the job's policies act on at once: its PodFailed
// request, as the cache raises it, and the decision for it. A pod counts
// when it is not terminating, not out of sync, of the job (its UID) and of
// its current version: a failure some step acted on has taken the job out
// of Running (every action but SyncJob does), been deleted by it, or been
// left behind by a version bump. A failure whose policy waits (a timeout)
// is left to its own request.
func unhandledFailure(ji *jobinfo.Info, ext *policy.Extensions, sem behavior.Set) (request.Request, policy.Decision, bool) {
	job := ji.Job
	if job.Status.State.Phase != vcjob.Running || job.DeletionTimestamp != nil {
		return request.Request{}, policy.Decision{}, false
	}
	var failed []*corev1.Pod
	for _, p := range ji.Pods() {
		if p.Status.Phase == corev1.PodFailed && p.DeletionTimestamp == nil && !cache.OutOfSync(p) {
			failed = append(failed, p)
		}
	}
	slices.SortFunc(failed, func(a, b *corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	for _, p := range failed {
		f, ok := cache.PodRequest(p)
		if !ok || f.JobVersion != job.Status.Version || (f.JobUID != "" && job.UID != "" && f.JobUID != job.UID) {
			continue
		}
		f.Event, f.ExitCode, f.Disrupted = vcjob.PodFailedEvent, cache.ExitCode(p, sem), policy.Disrupted(p)
		if d := policy.ResolveWith(job, f, ext); d.Action != vcjob.SyncJobAction && d.Delay == 0 {
			return f, d, true
		}
	}
	return request.Request{}, policy.Decision{}, false
}
