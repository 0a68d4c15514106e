package plugins

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
)

// tfJob is Volcano's dist-mnist example: one ps and two workers.
func tfJob() *vcjob.Job {
	ps := task("ps", 1, "tensorflow")
	ps.Template.Spec.InitContainers = []corev1.Container{{Name: "init"}}
	return newJob("tensorflow-dist-mnist", map[string][]string{"tensorflow": nil}, ps, task("worker", 2, "tensorflow"))
}

func TestTensorflowConfig(t *testing.T) {
	job := tfJob()
	p := mustBuild(t, "tensorflow")
	cluster := `{"cluster":{"ps":["tensorflow-dist-mnist-ps-0.tensorflow-dist-mnist:2222"],` +
		`"worker":["tensorflow-dist-mnist-worker-0.tensorflow-dist-mnist:2222","tensorflow-dist-mnist-worker-1.tensorflow-dist-mnist:2222"]},`
	cases := []struct {
		task  string
		index int
		want  string
	}{
		{"ps", 0, cluster + `"task":{"type":"ps","index":0}}`},
		{"worker", 0, cluster + `"task":{"type":"worker","index":0}}`},
		{"worker", 1, cluster + `"task":{"type":"worker","index":1}}`},
	}
	for _, tc := range cases {
		pod := created(t, p, job, tc.task, tc.index)
		assert.Equal(t, []corev1.EnvVar{{Name: "TF_CONFIG", Value: tc.want}}, pod.Spec.Containers[0].Env, "%s-%d", tc.task, tc.index)
		for _, ic := range pod.Spec.InitContainers {
			assert.Empty(t, ic.Env, "init containers get no TF_CONFIG")
		}
	}
}

func TestTensorflowRolesAndPort(t *testing.T) {
	job := newJob("tf", nil, task("boss", 1, "c"), task("w", 1, "c"), task("eval", 1, "c"), task("params", 1, "c"), task("logger", 1, "c"))
	job.Spec.Tasks[1].Template.Spec.Hostname = "wh"
	job.Spec.Tasks[1].Replicas = 2
	p := mustBuild(t, "tensorflow", "--chief=boss", "--worker=w", "--evaluator=eval", "--ps=params", "--port=3333")

	want := `{"cluster":{"ps":["tf-params-0.tf:3333"],"worker":["wh.tf:3333","wh.tf:3333"],` +
		`"chief":["tf-boss-0.tf:3333"],"evaluator":["tf-eval-0.tf:3333"]},"task":{"type":"chief","index":0}}`
	assert.Equal(t, want, envOf(created(t, p, job, "boss", 0).Spec.Containers[0])["TF_CONFIG"])

	// A task in no role is typed by its own name and listed nowhere.
	logger := envOf(created(t, p, job, "logger", 0).Spec.Containers[0])["TF_CONFIG"]
	assert.Contains(t, logger, `"task":{"type":"logger","index":0}`)
	assert.NotContains(t, logger, "tf-logger-0")
}

func TestTensorflowStandalone(t *testing.T) {
	job := newJob("single", nil, task("worker", 1, "c"))
	p := mustBuild(t, "tensorflow")
	pod := created(t, p, job, "worker", 0)
	assert.Empty(t, pod.Spec.Containers[0].Env, "a single pod needs no TF_CONFIG")

	job.Spec.Tasks[0].Replicas = 2
	pod = created(t, p, job, "worker", 1)
	assert.Equal(t, `{"cluster":{"worker":["single-worker-0.single:2222","single-worker-1.single:2222"]},"task":{"type":"worker","index":1}}`,
		envOf(pod.Spec.Containers[0])["TF_CONFIG"])
}

func TestTensorflowErrors(t *testing.T) {
	p := mustBuild(t, "tensorflow")
	job := tfJob()
	pod := podFor(job, "worker", 0)
	pod.Name = "worker"
	err := p.OnPodCreate(pod, job)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `plugin "tensorflow"`)

	_, err = NewTensorflow([]string{"--port=-1"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `argument "--port=-1"`)
	_, err = NewTensorflow([]string{"--master=x"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `argument "--master=x"`)

	objs, err := p.OnJobAdd(job)
	require.NoError(t, err)
	assert.True(t, objs.Empty())
	assert.Equal(t, map[string]string{"plugin-tensorflow": "tensorflow"}, job.Status.ControlledResources)
	_, err = p.OnJobDelete(job)
	require.NoError(t, err)
	assert.Empty(t, job.Status.ControlledResources)
}
