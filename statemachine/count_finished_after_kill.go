package statemachine

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob/jobinfo"
)

// countFinishedAfterKill lists the pods of ji a kill leaves alone that are
// Succeeded or Failed and not terminating: what a kill's status still
// counts under behavior.CountFinishedAfterKill, where Volcano counts only
// the pods whose delete failed and zeroes the rest (volcano#4616). deleted
// are the pods the kill deletes.
func countFinishedAfterKill(ji *jobinfo.Info, deleted []*corev1.Pod) []*corev1.Pod {
	gone := make(map[string]bool, len(deleted))
	for _, p := range deleted {
		gone[p.Name] = true
	}
	var out []*corev1.Pod
	for _, pod := range ji.Pods() {
		if pod.DeletionTimestamp == nil && RetainSoft.Keeps(pod.Status.Phase) && !gone[pod.Name] {
			out = append(out, pod)
		}
	}
	return out
}
