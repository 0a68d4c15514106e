package scenario

import (
	corev1 "k8s.io/api/core/v1"
)

// preemptVerb is "preempt PODS": the scheduler disrupts the pods, as a
// preemption does: a true DisruptionTarget condition, then the pod fails
// with its containers exiting 143 (SIGTERM).
func preemptVerb() verb {
	return verb{
		name:    "preempt",
		example: "preempt worker-1",
		help:    []usage{{"preempt PODS", "pods are disrupted: a DisruptionTarget condition, then Failed (exit 143)"}},
		parse:   parsePods,
		play:    playPreempt,
		group:   runningPod,
	}
}

func playPreempt(s *sim, c Command) error {
	return s.eachPod(c, func(p *corev1.Pod) {
		s.kubelet(p, func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodFailed
			for i := range p.Status.ContainerStatuses {
				cs := &p.Status.ContainerStatuses[i]
				cs.Ready = false
				cs.State = terminated(143)
			}
			p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.DisruptionTarget,
				Status: corev1.ConditionTrue, Reason: "PreemptionByScheduler"})
		})
	})
}
