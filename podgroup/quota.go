package podgroup

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
)

// deviceClassPrefix names the extended resources that dynamic resource
// allocation backs with a device class; quota charges them as extended
// resources.
const deviceClassPrefix = "deviceclass.resource.kubernetes.io/"

// QuotaUsage is what Kubernetes' resource quota charges one live pod of
// spec, the way Volcano's job controller sizes a PodGroup
// (GetPodQuotaUsage): count/pods and pods; cpu, memory and
// ephemeral-storage requests, each also as requests.<name>, and their
// limits as limits.<name>; hugepages requests as hugepages-<size> and
// requests.hugepages-<size>; extended resources as requests.<name> and,
// for those outside the kubernetes.io domain, as <name> too. Requests and
// limits are the pod's effective ones (PodRequest, PodLimits).
func QuotaUsage(spec *corev1.PodSpec) corev1.ResourceList {
	out := corev1.ResourceList{
		"count/pods":        *resource.NewQuantity(1, resource.DecimalSI),
		corev1.ResourcePods: resource.MustParse("1"),
	}
	if spec == nil {
		return out
	}
	requests, limits := PodRequest(spec), PodLimits(spec)
	for _, r := range []struct{ name, req, lim corev1.ResourceName }{
		{corev1.ResourceCPU, corev1.ResourceRequestsCPU, corev1.ResourceLimitsCPU},
		{corev1.ResourceMemory, corev1.ResourceRequestsMemory, corev1.ResourceLimitsMemory},
		{corev1.ResourceEphemeralStorage, corev1.ResourceRequestsEphemeralStorage, corev1.ResourceLimitsEphemeralStorage},
	} {
		if q, ok := requests[r.name]; ok {
			out[r.name] = q
			out[r.req] = q
		}
		if q, ok := limits[r.name]; ok {
			out[r.lim] = q
		}
	}
	for name, q := range requests {
		if strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) {
			out[name] = q
			out[corev1.DefaultResourceRequestsPrefix+name] = q
		}
		if extendedResource(name) || strings.HasPrefix(string(name), deviceClassPrefix) {
			out[corev1.DefaultResourceRequestsPrefix+name] = q
		}
	}
	// Volcano's own step: an extended resource is also charged under its
	// bare name, so that the scheduler's resource names find it.
	for name, q := range out {
		if !nativeResource(name) && strings.HasPrefix(string(name), corev1.DefaultResourceRequestsPrefix) {
			out[name[len(corev1.DefaultResourceRequestsPrefix):]] = q
		}
	}
	return out
}

// nativeResource: a name without a domain, or in the kubernetes.io one.
func nativeResource(name corev1.ResourceName) bool {
	return !strings.Contains(string(name), "/") || strings.Contains(string(name), "kubernetes.io/")
}

// extendedResource: a domain-qualified name outside kubernetes.io that is
// a valid quota name once prefixed with "requests.".
func extendedResource(name corev1.ResourceName) bool {
	if nativeResource(name) || strings.HasPrefix(string(name), corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(corev1.DefaultResourceRequestsPrefix+string(name))) == 0
}

// PodLimits is the pod's effective limits, as Kubernetes computes them:
// the containers' limits summed, init containers by the sidecar rule,
// pod-level limits of cpu, memory and hugepages in their place when the
// pod sets pod-level resources, and the overhead added to every non-zero
// limit.
func PodLimits(spec *corev1.PodSpec) corev1.ResourceList {
	if spec == nil {
		return corev1.ResourceList{}
	}
	lims := aggregate(spec, func(c *corev1.Container) corev1.ResourceList { return c.Resources.Limits })
	if r := spec.Resources; r != nil && (podLevelRequestsSet(r.Requests) || podLevelRequestsSet(r.Limits)) {
		for name, q := range r.Limits {
			if podLevelResource(name) {
				lims[name] = q.DeepCopy()
			}
		}
	}
	for name, q := range spec.Overhead {
		if have, ok := lims[name]; ok && !have.IsZero() {
			have.Add(q)
			lims[name] = have
		}
	}
	return lims
}
