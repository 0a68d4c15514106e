package scenario

import (
	corev1 "k8s.io/api/core/v1"
)

// podPhase is one of the pod phase verbs (start, run, pending, ready,
// unready, succeed, unknown): the kubelet reports the pods it names in a
// phase, their containers ready or not. start and run take a group's
// Pending pods, the others its Running ones.
func podPhase(name string) verb {
	v := verb{name: name, parse: parsePods, group: runningPod}
	var phase corev1.PodPhase
	ready, exited := false, false
	switch name {
	case "start":
		v.example = "start all"
		v.help = []usage{{"start PODS", "Pending pods are bound and run, containers ready (PodRunning)"}}
		phase, ready, v.group = corev1.PodRunning, true, pendingPod
	case "run":
		v.example = "run worker-*"
		v.help = []usage{{"run PODS", "pods are bound and run, containers not ready yet"}}
		phase, v.group = corev1.PodRunning, pendingPod
	case "pending":
		v.example = "pending worker-0"
		v.help = []usage{{"pending PODS", "pods go back to Pending"}}
		phase = corev1.PodPending
	case "ready":
		v.example = "ready all"
		v.help = []usage{{"ready PODS", "containers become ready"}}
		phase, ready = corev1.PodRunning, true
	case "unready":
		v.example = "unready worker-0"
		v.help = []usage{{"unready PODS", "containers stop being ready"}}
		phase = corev1.PodRunning
	case "succeed":
		v.example = "succeed all"
		v.help = []usage{{"succeed PODS", "pods succeed"}}
		phase, exited = corev1.PodSucceeded, true
	case "unknown":
		v.example = "unknown worker-0"
		v.help = []usage{{"unknown PODS", "pods' phase becomes Unknown"}}
		phase = corev1.PodUnknown
	default:
		// Not a pod phase verb: no play, which TestVerbTable reports.
		return verb{name: name}
	}
	v.play = func(s *sim, c Command) error {
		return s.eachPod(c, func(p *corev1.Pod) {
			s.kubelet(p, func(p *corev1.Pod) {
				p.Status.Phase = phase
				for i := range p.Status.ContainerStatuses {
					cs := &p.Status.ContainerStatuses[i]
					cs.Ready = ready
					if exited {
						cs.State = terminated(0)
					}
				}
			})
		})
	}
	return v
}
