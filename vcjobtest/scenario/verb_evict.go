package scenario

import (
	corev1 "k8s.io/api/core/v1"
)

// evictVerb is "evict PODS": someone else deletes the pods (the job
// controller sees PodEvicted). A group takes every pod not being deleted.
func evictVerb() verb {
	return verb{
		name:    "evict",
		example: "evict worker-0",
		help:    []usage{{"evict PODS", "pods are deleted by someone else (PodEvicted)"}},
		parse:   parsePods,
		play:    playEvict,
		group:   anyPod,
	}
}

func playEvict(s *sim, c Command) error {
	return s.eachPod(c, func(p *corev1.Pod) {
		s.cluster.RemovePod(p.Namespace, p.Name)
	})
}
