package podgroup

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestPodRequest(t *testing.T) {
	always := ptr(corev1.ContainerRestartPolicyAlways)
	sidecar := func(req string) corev1.Container {
		c := container(req)
		c.RestartPolicy = always
		return c
	}
	limitsOnly := corev1.Container{Name: "l", Resources: corev1.ResourceRequirements{Limits: rl("cpu=4")}}

	tests := []struct {
		name string
		spec *corev1.PodSpec
		want string
	}{
		{"nil spec", nil, ""},
		{"no containers", &corev1.PodSpec{}, ""},
		{"containers add up", &corev1.PodSpec{Containers: []corev1.Container{
			container("cpu=250m,memory=1Gi"), container("cpu=750m,nvidia.com/gpu=1"),
		}}, "cpu=1,memory=1Gi,nvidia.com/gpu=1"},
		{"init container larger than the container sum raises it", &corev1.PodSpec{
			InitContainers: []corev1.Container{container("cpu=3,memory=512Mi")},
			Containers:     []corev1.Container{container("cpu=1,memory=1Gi"), container("cpu=1")},
		}, "cpu=3,memory=1Gi"},
		{"init container smaller than the container sum changes nothing", &corev1.PodSpec{
			InitContainers: []corev1.Container{container("cpu=1500m")},
			Containers:     []corev1.Container{container("cpu=1"), container("cpu=1")},
		}, "cpu=2"},
		{"the largest of several init containers counts, not their sum", &corev1.PodSpec{
			InitContainers: []corev1.Container{container("cpu=2"), container("cpu=3"), container("cpu=1")},
			Containers:     []corev1.Container{container("cpu=1")},
		}, "cpu=3"},
		{"an init-only resource is added", &corev1.PodSpec{
			InitContainers: []corev1.Container{container("ephemeral-storage=1Gi")},
			Containers:     []corev1.Container{container("cpu=1")},
		}, "cpu=1,ephemeral-storage=1Gi"},
		{"a sidecar adds to the containers and to later init containers", &corev1.PodSpec{
			InitContainers: []corev1.Container{container("cpu=2"), sidecar("cpu=1"), container("cpu=2500m")},
			Containers:     []corev1.Container{container("cpu=1")},
		}, "cpu=3500m"}, // max(1+1, 2, 1+2.5)
		{"a sidecar counts in the containers' sum", &corev1.PodSpec{
			InitContainers: []corev1.Container{container("cpu=2"), sidecar("cpu=1")},
			Containers:     []corev1.Container{container("cpu=3")},
		}, "cpu=4"}, // max(3+1, 2, 1)
		{"overhead is added", &corev1.PodSpec{
			InitContainers: []corev1.Container{container("cpu=3")},
			Containers:     []corev1.Container{container("cpu=1,memory=1Gi")},
			Overhead:       rl("cpu=250m,memory=100Mi"),
		}, "cpu=3250m,memory=1124Mi"},
		{"pod-level requests replace cpu and memory only", &corev1.PodSpec{
			Containers: []corev1.Container{container("cpu=1,memory=1Gi,nvidia.com/gpu=2")},
			Resources:  &corev1.ResourceRequirements{Requests: rl("cpu=4,nvidia.com/gpu=8")},
			Overhead:   rl("cpu=100m"),
		}, "cpu=4100m,memory=1Gi,nvidia.com/gpu=2"},
		{"pod-level limits alone change nothing", &corev1.PodSpec{
			Containers: []corev1.Container{container("cpu=1")},
			Resources:  &corev1.ResourceRequirements{Limits: rl("cpu=4")},
		}, "cpu=1"},
		{"limits are not taken for missing requests", &corev1.PodSpec{
			Containers: []corev1.Container{container("memory=1Gi"), limitsOnly},
		}, "memory=1Gi"},
		{"an explicit zero request keeps its name", &corev1.PodSpec{
			Containers: []corev1.Container{container("cpu=0")},
		}, "cpu=0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before *corev1.PodSpec
			if tt.spec != nil {
				before = tt.spec.DeepCopy()
			}
			got := PodRequest(tt.spec)
			if got == nil {
				t.Fatal("nil result")
			}
			sameResources(t, rl(tt.want), got)
			if tt.spec != nil && !equality.Semantic.DeepEqual(before, tt.spec) {
				t.Fatal("PodRequest modified its input")
			}
		})
	}
}

// The result must own its quantities: growing it must not grow the spec.
func TestPodRequestDoesNotAlias(t *testing.T) {
	spec := &corev1.PodSpec{Containers: []corev1.Container{container("cpu=1")}}
	got := PodRequest(spec)
	q := got[corev1.ResourceCPU]
	q.Add(resource.MustParse("5"))
	got[corev1.ResourceCPU] = q
	if c := spec.Containers[0].Resources.Requests[corev1.ResourceCPU]; c.Cmp(resource.MustParse("1")) != 0 {
		t.Fatalf("spec changed to %s", c.String())
	}
}
