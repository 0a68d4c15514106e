package podgroup

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// PodRequest is the effective resource request of one pod with this spec,
// computed the way Kubernetes computes it for scheduling (the component
// helpers' PodRequests with default options; no pod status is involved):
//
//   - the requests of the containers are added up, together with those of
//     restartable init containers (sidecars: restartPolicy Always);
//   - each init container needs, while it runs, its own request plus the
//     sidecars started before it; the result is raised, per resource, to the
//     largest of those;
//   - pod-level requests (spec.resources.requests) of cpu, memory and
//     hugepages-* replace the container figure for that resource;
//   - spec.overhead is added.
//
// Requests omitted on a container count as nothing (they are not taken
// from its limits). A nil spec requests nothing. The result is a new list.
func PodRequest(spec *corev1.PodSpec) corev1.ResourceList {
	if spec == nil {
		return corev1.ResourceList{}
	}
	reqs := aggregate(spec, func(c *corev1.Container) corev1.ResourceList { return c.Resources.Requests })
	if spec.Resources != nil && podLevelRequestsSet(spec.Resources.Requests) {
		for name, q := range spec.Resources.Requests {
			if podLevelResource(name) {
				reqs[name] = q.DeepCopy()
			}
		}
	}

	addList(reqs, spec.Overhead)
	return reqs
}

// podLevelResource reports whether Kubernetes honours name in a pod-level
// resources stanza (cpu, memory, hugepages-*).
func podLevelResource(name corev1.ResourceName) bool {
	return name == corev1.ResourceCPU || name == corev1.ResourceMemory ||
		strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix)
}

func podLevelRequestsSet(reqs corev1.ResourceList) bool {
	for name := range reqs {
		if podLevelResource(name) {
			return true
		}
	}
	return false
}

// addList adds every quantity of add to list.
func addList(list, add corev1.ResourceList) {
	for name, q := range add {
		if have, ok := list[name]; ok {
			have.Add(q)
			list[name] = have
		} else {
			list[name] = q.DeepCopy()
		}
	}
}

// maxList raises every quantity of list to the one in other, adding the
// resources list lacks.
func maxList(list, other corev1.ResourceList) {
	for name, q := range other {
		if have, ok := list[name]; !ok || q.Cmp(have) > 0 {
			list[name] = q.DeepCopy()
		}
	}
}

// aggregate sums what get gives for the containers, and takes the init
// containers by the sidecar rule: restartable ones (restartPolicy Always)
// run beside the others and add up; each other init container runs with
// the sidecars before it, and the largest such moment counts if larger.
func aggregate(spec *corev1.PodSpec, get func(*corev1.Container) corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := range spec.Containers {
		addList(out, get(&spec.Containers[i]))
	}
	sidecars := corev1.ResourceList{}
	initMax := corev1.ResourceList{}
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		running := corev1.ResourceList{}
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			addList(out, get(c))
			addList(sidecars, get(c))
			addList(running, sidecars)
		} else {
			addList(running, get(c))
			addList(running, sidecars)
		}
		maxList(initMax, running)
	}
	maxList(out, initMax)
	return out
}
