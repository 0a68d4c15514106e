package plugins

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

func envJob() *vcjob.Job {
	worker := task("worker", 2, "main", "sidecar")
	worker.Template.Spec.InitContainers = []corev1.Container{{Name: "init"}}
	worker.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "USER_VAR", Value: "u"}}
	return newJob("train", map[string][]string{"env": nil}, task("ps", 1, "main"), worker)
}

func TestEnvPodCreate(t *testing.T) {
	job := envJob()
	p := mustBuild(t, "env")
	idx := func(v string) []corev1.EnvVar {
		return []corev1.EnvVar{{Name: "VK_TASK_INDEX", Value: v}, {Name: "VC_TASK_INDEX", Value: v}}
	}
	cases := []struct {
		task      string
		index     int
		want      string
		userFirst bool
	}{
		{"ps", 0, "0", false},
		{"worker", 0, "0", true},
		{"worker", 1, "1", true},
	}
	for _, tc := range cases {
		t.Run(tc.task, func(t *testing.T) {
			pod := created(t, p, job, tc.task, tc.index)
			for i, c := range pod.Spec.Containers {
				want := idx(tc.want)
				if tc.userFirst && i == 0 {
					want = append([]corev1.EnvVar{{Name: "USER_VAR", Value: "u"}}, want...)
				}
				assert.Equal(t, want, c.Env, "container %s", c.Name)
			}
			for _, c := range pod.Spec.InitContainers {
				assert.Equal(t, idx(tc.want), c.Env, "init container %s", c.Name)
			}
		})
	}
}

func TestEnvIndexComesFromPodName(t *testing.T) {
	p := mustBuild(t, "env")
	job := envJob()
	cases := map[string]string{
		"train-worker-7":    "7",
		"my-job-my-task-12": "12",
		"short-name":        "",
		"x":                 "",
	}
	for name, want := range cases {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}
		require.NoError(t, p.OnPodCreate(pod, job))
		assert.Equal(t, map[string]string{"VK_TASK_INDEX": want, "VC_TASK_INDEX": want}, envOf(pod.Spec.Containers[0]), name)
	}
}

func TestEnvReplacesStaleIndex(t *testing.T) {
	p := mustBuild(t, "env")
	job := envJob()
	pod := podFor(job, "ps", 0)
	pod.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "VC_TASK_INDEX", Value: "9"}}
	require.NoError(t, p.OnPodCreate(pod, job))
	assert.Equal(t, []corev1.EnvVar{{Name: "VC_TASK_INDEX", Value: "0"}, {Name: "VK_TASK_INDEX", Value: "0"}}, pod.Spec.Containers[0].Env)
}

func TestEnvJobHooks(t *testing.T) {
	p := mustBuild(t, "env")
	job := envJob()

	objs, err := p.OnJobAdd(job)
	require.NoError(t, err)
	assert.True(t, objs.Empty())
	assert.Equal(t, map[string]string{"plugin-env": "env"}, job.Status.ControlledResources)

	objs, err = p.OnJobUpdate(job)
	require.NoError(t, err)
	assert.True(t, objs.Empty())

	objs, err = p.OnJobDelete(job)
	require.NoError(t, err)
	assert.True(t, objs.Empty())
	assert.Empty(t, job.Status.ControlledResources)

	_, err = p.OnJobAdd(nil)
	assert.Error(t, err)
	assert.Error(t, p.OnPodCreate(nil, job))
}

func TestEnvRejectsArguments(t *testing.T) {
	_, err := NewEnv([]string{"--foo=1"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"--foo=1"`)
	_, err = NewEnv([]string{"stray"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"stray"`)
}
