package podgroup

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestQuotaUsage(t *testing.T) {
	container := func(req, lim string) corev1.Container {
		return corev1.Container{Name: "c", Resources: corev1.ResourceRequirements{Requests: rl(req), Limits: rl(lim)}}
	}
	always := corev1.ContainerRestartPolicyAlways
	tests := []struct {
		name string
		spec corev1.PodSpec
		want string
	}{
		{"no resources: the pod counts", corev1.PodSpec{Containers: []corev1.Container{container("", "")}},
			"count/pods=1,pods=1"},
		{"cpu and memory: bare, requests.* and limits.*",
			corev1.PodSpec{Containers: []corev1.Container{container("cpu=1,memory=1Gi", "cpu=2,memory=1Gi")}},
			"count/pods=1,pods=1,cpu=1,requests.cpu=1,limits.cpu=2,memory=1Gi,requests.memory=1Gi,limits.memory=1Gi"},
		{"a limit without a request is charged as a limit only",
			corev1.PodSpec{Containers: []corev1.Container{container("", "cpu=600m")}},
			"count/pods=1,pods=1,limits.cpu=600m"},
		{"ephemeral storage",
			corev1.PodSpec{Containers: []corev1.Container{container("ephemeral-storage=1Gi", "ephemeral-storage=2Gi")}},
			"count/pods=1,pods=1,ephemeral-storage=1Gi,requests.ephemeral-storage=1Gi,limits.ephemeral-storage=2Gi"},
		// Facts from a recorded vector (v2-p-00000): hugepages limits are
		// not charged; a GPU is charged as requests.<name> and <name>.
		{"hugepages and an extended resource",
			corev1.PodSpec{Containers: []corev1.Container{
				container("cpu=250m,hugepages-2Mi=64Mi,memory=1536Mi", "hugepages-2Mi=64Mi"),
				container("cpu=250m,nvidia.com/gpu=1", "nvidia.com/gpu=1")}},
			"count/pods=1,pods=1,cpu=500m,requests.cpu=500m,memory=1536Mi,requests.memory=1536Mi,hugepages-2Mi=64Mi,requests.hugepages-2Mi=64Mi,nvidia.com/gpu=1,requests.nvidia.com/gpu=1"},
		{"a kubernetes.io resource is not extended: not charged",
			corev1.PodSpec{Containers: []corev1.Container{container("example.kubernetes.io/x=1", "")}},
			"count/pods=1,pods=1"},
		{"sidecars add up, init containers take the larger moment",
			corev1.PodSpec{
				InitContainers: []corev1.Container{
					{Name: "side", RestartPolicy: &always, Resources: corev1.ResourceRequirements{Requests: rl("cpu=1"), Limits: rl("cpu=1")}},
					container("cpu=4", "cpu=4"),
				},
				Containers: []corev1.Container{container("cpu=1", "cpu=2")}},
			"count/pods=1,pods=1,cpu=5,requests.cpu=5,limits.cpu=5"},
		{"pod-level resources replace the containers' cpu and memory",
			corev1.PodSpec{
				Resources:  &corev1.ResourceRequirements{Requests: rl("cpu=3"), Limits: rl("cpu=4,memory=2Gi")},
				Containers: []corev1.Container{container("cpu=1,memory=1Gi", "cpu=1,memory=1Gi")}},
			"count/pods=1,pods=1,cpu=3,requests.cpu=3,limits.cpu=4,memory=1Gi,requests.memory=1Gi,limits.memory=2Gi"},
		{"overhead adds to requests, and to non-zero limits only",
			corev1.PodSpec{Overhead: rl("cpu=100m,memory=10Mi"), Containers: []corev1.Container{container("cpu=1", "cpu=1")}},
			"count/pods=1,pods=1,cpu=1100m,requests.cpu=1100m,limits.cpu=1100m,memory=10Mi,requests.memory=10Mi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameResources(t, rl(tt.want), QuotaUsage(&tt.spec))
		})
	}
	sameResources(t, rl("count/pods=1,pods=1"), QuotaUsage(nil))
}

// TestMinResourcesChargesQuota: by default a PodGroup is sized as
// Volcano sizes it (a recorded vector's figures: 2 pods at cpu 1, limit 2,
// memory 1Gi); SizeByRequests keeps the requests only.
func TestMinResourcesChargesQuota(t *testing.T) {
	tk := task("worker", 2, nil, "", "cpu=1,memory=1Gi")
	tk.Template.Spec.Containers[0].Resources.Limits = rl("cpu=2,memory=1Gi")
	j := job(2, tk)
	sameResources(t, rl("count/pods=2,cpu=2,limits.cpu=4,limits.memory=2Gi,memory=2Gi,pods=2,requests.cpu=2,requests.memory=2Gi"), MinResources(j, nil))
	sameResources(t, rl("cpu=2,memory=2Gi"), minReq(j, nil))
	// The quantities are written as Volcano's arithmetic writes them.
	got := MinResources(j, nil)
	for name, want := range map[corev1.ResourceName]string{"count/pods": "2", "memory": "2Gi", "limits.cpu": "4"} {
		q := got[name]
		if s := (&q).String(); s != want {
			t.Errorf("%s = %s, want %s", name, s, want)
		}
	}
}
