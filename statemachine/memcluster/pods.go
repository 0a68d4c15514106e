package memcluster

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// FailPod plays the kubelet failing a pod: its phase becomes Failed and
// its first container terminates with exitCode (the container Volcano
// reads a PodFailed request's exit code from); other containers that have
// not terminated terminate with exit code 1. A pod without container
// statuses gets one per container of its spec. The stored pod is replaced
// by the failed copy, which FailPod returns; with Watch set the change is
// fed like any other update. A pod that does not exist is an error.
func (c *Cluster) FailPod(namespace, name string, exitCode int32) (*corev1.Pod, error) {
	old := c.pods[key(namespace, name)]
	if old == nil {
		return nil, fmt.Errorf("memcluster: no pod %s/%s", namespace, name)
	}
	p := old.DeepCopy()
	p.Status.Phase = corev1.PodFailed
	if len(p.Status.ContainerStatuses) == 0 {
		for _, ct := range p.Spec.Containers {
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: ct.Name, Image: ct.Image})
		}
		if len(p.Status.ContainerStatuses) == 0 {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main"}}
		}
	}
	for i := range p.Status.ContainerStatuses {
		cs := &p.Status.ContainerStatuses[i]
		cs.Ready = false
		if i == 0 {
			cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: exitCode}}
			continue
		}
		if cs.State.Terminated == nil {
			cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1}}
		}
	}
	c.putPod(p)
	return p.DeepCopy(), nil
}
