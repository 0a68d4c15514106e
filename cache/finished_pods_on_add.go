package cache

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/jobinfo"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/request"
)

// FinishedPodAddEvent is the event of a pod that appears already finished,
// under behavior.FinishedPodsOnAdd, judged on ji, the job info that
// already holds it: PodFailed with the first container's exit code for a
// Failed pod, TaskCompleted for a Succeeded pod whose task is completed,
// as PodUpdateEvent judges the pod's move there; PodPending otherwise.
func FinishedPodAddEvent(ji *jobinfo.Info, pod *corev1.Pod) (vcjob.Event, int32) {
	return finishedPodAddEvent(ji, pod, behavior.Set{})
}

// finishedPodAddEvent is FinishedPodAddEvent under set, which chooses the
// exit code a PodFailed carries. Volcano raises PodPending for every pod
// it first sees, finished or not.
func finishedPodAddEvent(ji *jobinfo.Info, pod *corev1.Pod, set behavior.Set) (vcjob.Event, int32) {
	if pod.Status.Phase != corev1.PodFailed && pod.Status.Phase != corev1.PodSucceeded {
		return PodAddEvent(pod), 0
	}
	before := corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodPending}}
	if ev, code := podUpdateEvent(ji, &before, pod, set); ev != vcjob.OutOfSyncEvent {
		return ev, code
	}
	return PodAddEvent(pod), 0
}

// earlyFinishedPodRequests are, under behavior.FinishedPodsOnAdd, the
// requests of the finished pods that arrived before their job, judged once
// the job is in info: their own add raised PodPending, with no job to judge
// them by (a controller starting up lists pods and jobs at the same time).
// Pods that are not finished raise nothing more.
func earlyFinishedPodRequests(info *jobinfo.Info, set behavior.Set) []request.Request {
	var out []request.Request
	for _, pod := range info.Pods() {
		req, ok := PodRequest(pod)
		if !ok || OutOfSync(pod) {
			continue
		}
		if req.Event, req.ExitCode = finishedPodAddEvent(info, pod, set); req.Event == vcjob.PodPendingEvent {
			continue
		}
		if req.Event == vcjob.PodFailedEvent {
			req.Disrupted = policy.Disrupted(pod)
		}
		out = append(out, req)
	}
	return out
}
