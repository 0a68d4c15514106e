package memcluster

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestFailPod(t *testing.T) {
	twoContainers := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main"}, {Name: "sidecar"}}},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning},
	}
	sidecarDone := twoContainers.DeepCopy()
	sidecarDone.Status.ContainerStatuses = []corev1.ContainerStatus{
		{Name: "main", Ready: true},
		{Name: "sidecar", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0}}},
	}
	noContainers := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
	cases := []struct {
		name  string
		pod   *corev1.Pod
		code  int32
		codes []int32 // each container's exit code afterwards
	}{
		{"statuses made from the spec", twoContainers, 137, []int32{137, 1}},
		{"a terminated sidecar keeps its code", sidecarDone, 42, []int32{42, 0}},
		{"a pod without containers gets one status", noContainers, 3, []int32{3}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := New(metav1.Now())
			c.Watch = true
			before := tc.pod.DeepCopy()
			c.PutPod(tc.pod)
			c.Drain()
			got, err := c.FailPod("ns", "p", tc.code)
			require.NoError(t, err)
			assert.Equal(t, corev1.PodFailed, got.Status.Phase)
			require.Len(t, got.Status.ContainerStatuses, len(tc.codes))
			for i, want := range tc.codes {
				cs := got.Status.ContainerStatuses[i]
				require.NotNil(t, cs.State.Terminated, "container %d", i)
				assert.Equal(t, want, cs.State.Terminated.ExitCode, "container %d", i)
				assert.False(t, cs.Ready)
			}
			assert.Equal(t, got, c.Pod("ns", "p"), "the stored pod is the failed one")
			ch := c.Drain()
			require.Len(t, ch, 1)
			assert.Equal(t, Modified, ch[0].Type)
			assert.Equal(t, before, tc.pod, "the caller's pod is not changed")
		})
	}
}

func TestFailPodMissing(t *testing.T) {
	_, err := New(metav1.Now()).FailPod("ns", "nope", 1)
	assert.ErrorContains(t, err, "ns/nope")
}
