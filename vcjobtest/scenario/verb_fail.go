package scenario

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// failVerb is "fail PODS [CODE]": the pods fail, their first container
// exiting with CODE, the others with 1.
func failVerb() verb {
	return verb{
		name:    "fail",
		example: "fail worker-1 137",
		help:    []usage{{"fail PODS [CODE]", "pods fail, the first container exiting with CODE (default 1)"}},
		parse:   parsePodsNumber,
		play:    playFail,
		group:   runningPod,
	}
}

func playFail(s *sim, c Command) error {
	return s.eachPod(c, func(p *corev1.Pod) {
		s.noteInPlaceRestart(c, p)
		s.kubelet(p, func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodFailed
			for i := range p.Status.ContainerStatuses {
				cs := &p.Status.ContainerStatuses[i]
				cs.Ready = false
				code := int32(1)
				if i == 0 {
					code = c.n
				}
				cs.State = terminated(code)
			}
		})
	})
}

// noteInPlaceRestart says when a "fail" fails a pod a kubelet would not
// fail: under restartPolicy OnFailure or Always it restarts the failed
// container in place, and the pod stays Running.
func (s *sim) noteInPlaceRestart(c Command, p *corev1.Pod) {
	if p.Spec.RestartPolicy == corev1.RestartPolicyNever || p.Spec.RestartPolicy == "" {
		return
	}
	s.note("%s has restartPolicy %s: a kubelet restarts a container that exits %d in place and the pod stays Running "+
		"(write \"restart %s\"); the pod fails only when the kubelet gives up on it (eviction, a deadline), as played here",
		p.Name, p.Spec.RestartPolicy, c.n, strings.TrimPrefix(p.Name, s.job+"-"))
}
