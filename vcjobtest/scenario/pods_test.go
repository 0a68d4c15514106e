package scenario

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestNodeFor(t *testing.T) {
	pod := func(a *corev1.Affinity) *corev1.Pod { return &corev1.Pod{Spec: corev1.PodSpec{Affinity: a}} }
	req := func(term corev1.NodeSelectorTerm) *corev1.Affinity {
		return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{term}}}}
	}
	for want, p := range map[string]*corev1.Pod{
		"node-0": pod(nil),
		"node-3": pod(req(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-3"}}}})),
		"node-4": pod(req(corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{"node-4"}}}})),
	} {
		if got := NodeFor(p); got != want {
			t.Errorf("NodeFor = %s, want %s", got, want)
		}
	}
}
