package cache

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// firstFailedContainerExitCode is the exit code a PodFailed request
// carries under behavior.ExitCodeFirstFailedContainer: that of the first
// container, in the pod spec's order, that terminated with a non-zero code
// (statuses the spec does not name come after, in their order), and 0 when
// none did. Init containers are left out, as Volcano leaves them out.
func firstFailedContainerExitCode(pod *corev1.Pod) int32 {
	cs := pod.Status.ContainerStatuses
	failed := func(s *corev1.ContainerStatus) bool {
		return s.State.Terminated != nil && s.State.Terminated.ExitCode != 0
	}
	// The kubelet keeps statuses in the spec's order, but the API does not
	// promise it: the spec's order is the one the user wrote.
	for _, c := range pod.Spec.Containers {
		for i := range cs {
			if cs[i].Name == c.Name && failed(&cs[i]) {
				return cs[i].State.Terminated.ExitCode
			}
		}
	}
	for i := range cs {
		if failed(&cs[i]) && !slices.ContainsFunc(pod.Spec.Containers, func(c corev1.Container) bool { return c.Name == cs[i].Name }) {
			return cs[i].State.Terminated.ExitCode
		}
	}
	return 0
}
