package scenario

import (
	corev1 "k8s.io/api/core/v1"
)

// NodeFor is the node the simulated scheduler binds a pod to: the one
// its required node affinity names by metadata.name or by the
// kubernetes.io/hostname label (the first value of the first term that
// names one), else node-0.
func NodeFor(p *corev1.Pod) string {
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, f := range term.MatchFields {
				if f.Key == "metadata.name" && f.Operator == corev1.NodeSelectorOpIn && len(f.Values) > 0 {
					return f.Values[0]
				}
			}
			for _, e := range term.MatchExpressions {
				if e.Key == corev1.LabelHostname && e.Operator == corev1.NodeSelectorOpIn && len(e.Values) > 0 {
					return e.Values[0]
				}
			}
		}
	}
	return "node-0"
}
