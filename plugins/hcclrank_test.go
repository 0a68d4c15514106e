package plugins

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

func hcclJob() *vcjob.Job {
	return newJob("ascend", map[string][]string{"hcclrank": nil},
		task("master", 2, "npu"), task("worker", 3, "npu"), task("monitor", 1, "mon"))
}

func TestHCCLRankFromTaskIndex(t *testing.T) {
	job := hcclJob()
	p := mustBuild(t, "hcclrank")
	cases := []struct {
		task  string
		index int
		want  string
	}{
		{"master", 0, "0"},
		{"master", 1, "1"},
		{"worker", 0, "2"}, // master replicas (2) + index
		{"worker", 2, "4"},
	}
	for _, tc := range cases {
		pod := created(t, p, job, tc.task, tc.index)
		assert.Equal(t, tc.want, pod.Annotations["hccl/rankIndex"], "%s-%d", tc.task, tc.index)
	}
	monitor := created(t, p, job, "monitor", 0)
	assert.NotContains(t, monitor.Annotations, "hccl/rankIndex", "tasks in neither role get no rank")
}

func TestHCCLRankCustomNames(t *testing.T) {
	job := newJob("j", nil, task("lead", 4, "c"), task("follow", 3, "c"))
	p := mustBuild(t, "hcclrank", "--master=lead", "--worker=follow")
	assert.Equal(t, "3", created(t, p, job, "lead", 3).Annotations["hccl/rankIndex"])
	assert.Equal(t, "6", created(t, p, job, "follow", 2).Annotations["hccl/rankIndex"])
}

func TestHCCLRankPrefersRankEnvAndExistingAnnotation(t *testing.T) {
	job := hcclJob()
	p := mustBuild(t, "hcclrank")

	pod := podFor(job, "worker", 1)
	pod.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "RANK", Value: "7"}}
	require.NoError(t, p.OnPodCreate(pod, job))
	assert.Equal(t, "7", pod.Annotations["hccl/rankIndex"])

	// Runs after the pytorch plugin: its RANK is used.
	pj := pytorchJob()
	pt := mustBuild(t, "pytorch")
	wpod := created(t, pt, pj, "worker", 2)
	require.NoError(t, p.OnPodCreate(wpod, pj))
	assert.Equal(t, "3", wpod.Annotations["hccl/rankIndex"])

	pod = podFor(job, "master", 0)
	pod.Annotations["hccl/rankIndex"] = "42"
	require.NoError(t, p.OnPodCreate(pod, job))
	assert.Equal(t, "42", pod.Annotations["hccl/rankIndex"])

	pod = podFor(job, "master", 1)
	require.NoError(t, p.OnPodCreate(pod, nil), "a nil job is allowed, as in Volcano")
	assert.NotContains(t, pod.Annotations, "hccl/rankIndex")
}

func TestHCCLRankNeedsTaskIndexLabel(t *testing.T) {
	job := hcclJob()
	p := mustBuild(t, "hcclrank")
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "ascend-worker-0", Annotations: map[string]string{vcjob.TaskSpecKey: "worker"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "npu"}}}}
	err := p.OnPodCreate(pod, job)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "volcano.sh/task-index")

	pod.Labels = map[string]string{vcjob.TaskIndexKey: "one"}
	require.Error(t, p.OnPodCreate(pod, job))
}

func TestHCCLRankJobHooksRecordNothing(t *testing.T) {
	job := hcclJob()
	p := mustBuild(t, "hcclrank")
	for _, hook := range []func(*vcjob.Job) (Objects, error){p.OnJobAdd, p.OnJobUpdate, p.OnJobDelete} {
		objs, err := hook(job)
		require.NoError(t, err)
		assert.True(t, objs.Empty())
		assert.Empty(t, job.Status.ControlledResources)
	}
	_, err := NewHCCLRank([]string{"--port=1"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `plugin "hcclrank": argument "--port=1"`)
}
