package scenario

import (
	corev1 "k8s.io/api/core/v1"
)

// restartVerb is "restart PODS [N]": the kubelet restarts the pods'
// containers N times in place; a Running pod stays Running, a Pending one
// Pending.
func restartVerb() verb {
	return verb{
		name:    "restart",
		example: "restart worker-0 2",
		help:    []usage{{"restart PODS [N]", "containers restart N times (default 1); the pod stays Running (or Pending)"}},
		parse:   parsePodsNumber,
		play:    playRestart,
		group:   runningPod,
	}
}

func playRestart(s *sim, c Command) error {
	return s.eachPod(c, func(p *corev1.Pod) {
		s.kubelet(p, func(p *corev1.Pod) {
			if p.Status.Phase != corev1.PodPending {
				p.Status.Phase = corev1.PodRunning
			}
			for i := range p.Status.ContainerStatuses {
				p.Status.ContainerStatuses[i].RestartCount += c.n
			}
		})
	})
}
