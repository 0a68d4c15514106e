package statemachine

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob/jobinfo"
)

// outOfSyncCountedOnce takes the out-of-sync pods a sync deletes out of a
// task's phase counts, under behavior.OutOfSyncCountedOnce: they are
// counted once, as terminating when deleted. Volcano counts them by phase
// as well. phases is the plan's own copy of the counts. (A walked plan
// skips such a pod where it meets it: walkTask's once.)
func outOfSyncCountedOnce(phases *jobinfo.PhaseCounts, outOfSync []*corev1.Pod) {
	for _, pod := range outOfSync {
		phases.Add(pod.Status.Phase, -1)
	}
}
