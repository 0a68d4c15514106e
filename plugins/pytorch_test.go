package plugins

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

// pytorchJob is a master and three workers.
func pytorchJob(args ...string) *vcjob.Job {
	return newJob("pytorch-job", map[string][]string{"pytorch": args},
		task("master", 1, "master"), task("worker", 3, "worker"))
}

func TestPytorchMasterAndWorkers(t *testing.T) {
	job := pytorchJob()
	p := mustBuild(t, "pytorch")
	port := []corev1.ContainerPort{{Name: "pytorchjob-port", ContainerPort: 23456}}
	env := func(rank string) []corev1.EnvVar {
		return []corev1.EnvVar{
			{Name: "MASTER_ADDR", Value: "pytorch-job-master-0.pytorch-job"},
			{Name: "MASTER_PORT", Value: "23456"},
			{Name: "WORLD_SIZE", Value: "4"},
			{Name: "RANK", Value: rank},
		}
	}

	master := created(t, p, job, "master", 0)
	assert.Equal(t, port, master.Spec.Containers[0].Ports)
	assert.Equal(t, env("0"), master.Spec.Containers[0].Env)
	assert.Empty(t, master.Spec.InitContainers, "the master waits for nobody")

	for i, rank := range []string{"1", "2", "3"} {
		w := created(t, p, job, "worker", i)
		assert.Equal(t, port, w.Spec.Containers[0].Ports)
		assert.Equal(t, env(rank), w.Spec.Containers[0].Env)
		assert.Empty(t, w.Spec.InitContainers, "waiting for the master is opt-in")
	}

	waiting := mustBuild(t, "pytorch", "--wait-master-enabled=true")
	for i := range 3 {
		w := created(t, waiting, job, "worker", i)
		require.Len(t, w.Spec.InitContainers, 1)
		ic := w.Spec.InitContainers[0]
		assert.Equal(t, "wait-for-master", ic.Name)
		assert.Equal(t, "busybox:1.36.1", ic.Image)
		require.Len(t, ic.Command, 3)
		assert.Equal(t, []string{"sh", "-c"}, ic.Command[:2])
		assert.Contains(t, ic.Command[2], "/dev/tcp/pytorch-job-master-0.pytorch-job/23456")
		assert.Contains(t, ic.Command[2], "nc -z pytorch-job-master-0.pytorch-job 23456")
		assert.Contains(t, ic.Command[2], "TIMEOUT=300\n")
		assert.Empty(t, ic.Env, "the wait container gets no training env")
	}
}

func TestPytorchArguments(t *testing.T) {
	job := newJob("ddp", nil, task("chief", 1, "main"), task("replica", 2, "main"), task("extras", 4, "side"))
	p := mustBuild(t, "pytorch", "--master=chief", "--worker=replica", "--port=29500")

	chief := created(t, p, job, "chief", 0)
	assert.Equal(t, map[string]string{
		"MASTER_ADDR": "ddp-chief-0.ddp", "MASTER_PORT": "29500", "WORLD_SIZE": "3", "RANK": "0",
	}, envOf(chief.Spec.Containers[0]))
	assert.Equal(t, []corev1.ContainerPort{{Name: "pytorchjob-port", ContainerPort: 29500}}, chief.Spec.Containers[0].Ports)

	replica := created(t, p, job, "replica", 1)
	assert.Equal(t, "2", envOf(replica.Spec.Containers[0])["RANK"])
	assert.Empty(t, replica.Spec.InitContainers, "no init container unless --wait-master-enabled")

	// A task in neither role counts not in WORLD_SIZE and gets no RANK.
	extra := created(t, p, job, "extras", 3)
	assert.Equal(t, []string{"MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE"}, envNames(extra.Spec.Containers[0]))
	assert.Equal(t, "3", envOf(extra.Spec.Containers[0])["WORLD_SIZE"])
}

func TestPytorchTimeoutAndMasterHostname(t *testing.T) {
	job := pytorchJob()
	job.Spec.Tasks[0].Template.Spec.Hostname = "rdzv"
	p := mustBuild(t, "pytorch", "--wait-master-enabled=true", "--wait-master-timeout=600", "--wait-master-image=alpine:3.20")
	w := created(t, p, job, "worker", 0)
	assert.Equal(t, "rdzv.pytorch-job", envOf(w.Spec.Containers[0])["MASTER_ADDR"])
	assert.True(t, strings.Contains(w.Spec.InitContainers[0].Command[2], "TIMEOUT=600\n"))
	assert.Equal(t, "alpine:3.20", w.Spec.InitContainers[0].Image)
}

func TestPytorchKeepsExistingPortAndInitContainers(t *testing.T) {
	job := pytorchJob()
	job.Spec.Tasks[1].Template.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "dist", ContainerPort: 23456}}
	job.Spec.Tasks[1].Template.Spec.InitContainers = []corev1.Container{{Name: "fetch-data"}}
	p := mustBuild(t, "pytorch", "--wait-master-enabled=true")
	w := created(t, p, job, "worker", 2)
	assert.Equal(t, []corev1.ContainerPort{{Name: "dist", ContainerPort: 23456}}, w.Spec.Containers[0].Ports)
	require.Len(t, w.Spec.InitContainers, 2)
	assert.Equal(t, "fetch-data", w.Spec.InitContainers[0].Name)
	assert.Equal(t, "wait-for-master", w.Spec.InitContainers[1].Name)
}

func TestPytorchWithoutMasterLeavesPodAlone(t *testing.T) {
	job := newJob("solo", nil, task("worker", 2, "w"))
	p := mustBuild(t, "pytorch")
	pod := podFor(job, "worker", 1)
	before := pod.DeepCopy()
	require.NoError(t, p.OnPodCreate(pod, job))
	assert.Equal(t, before, pod)
}

func TestPytorchWorkerWithoutIndexInName(t *testing.T) {
	job := pytorchJob()
	p := mustBuild(t, "pytorch")
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "worker-x-y", Annotations: map[string]string{vcjob.TaskSpecKey: "worker"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}
	err := p.OnPodCreate(pod, job)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `pod "worker-x-y"`)
	assert.Empty(t, pod.Spec.Containers[0].Env, "an error leaves the pod unchanged")
}

func TestPytorchJobHooks(t *testing.T) {
	job := pytorchJob()
	p := mustBuild(t, "pytorch")
	objs, err := p.OnJobAdd(job)
	require.NoError(t, err)
	assert.True(t, objs.Empty())
	assert.Equal(t, map[string]string{"plugin-pytorch": "pytorch"}, job.Status.ControlledResources)
	objs, err = p.OnJobDelete(job)
	require.NoError(t, err)
	assert.True(t, objs.Empty())
	assert.Empty(t, job.Status.ControlledResources)
}

func TestPytorchArgumentErrors(t *testing.T) {
	cases := map[string]struct {
		args []string
		want string
	}{
		"not a number":  {[]string{"--port=abc"}, `argument "--port=abc"`},
		"port zero":     {[]string{"--port=0"}, `argument "--port=0": port 0 is not in 1..65535`},
		"port too big":  {[]string{"--port", "70000"}, `argument "--port": port 70000`},
		"negative wait": {[]string{"--wait-master-timeout=-1"}, `argument "--wait-master-timeout=-1"`},
		"zero wait":     {[]string{"--wait-master-timeout=0"}, `argument "--wait-master-timeout=0"`},
		"empty image":   {[]string{"--wait-master-image="}, `wait-master-image`},
		"empty master":  {[]string{"--master="}, `argument "--master=": must not be empty`},
		"unknown flag":  {[]string{"--master=m", "--ranks=4"}, `argument "--ranks=4"`},
		"positional":    {[]string{"--port=1", "extra"}, `argument "extra"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := NewPytorch(tc.args)
			require.Error(t, err)
			assert.Contains(t, err.Error(), `plugin "pytorch"`)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestPytorchRerunKeepsWhatOthersAddedToItsInitContainer(t *testing.T) {
	job := pytorchJob()
	p := mustBuild(t, "pytorch", "--wait-master-enabled=true")
	w := created(t, p, job, "worker", 0)
	require.NoError(t, mustBuild(t, "env").OnPodCreate(w, job))
	require.NoError(t, p.OnPodCreate(w, job))
	require.Len(t, w.Spec.InitContainers, 1)
	assert.Equal(t, map[string]string{"VK_TASK_INDEX": "0", "VC_TASK_INDEX": "0"}, envOf(w.Spec.InitContainers[0]))
	assert.Equal(t, "busybox:1.36.1", w.Spec.InitContainers[0].Image)
}

func TestPodWithoutTaskAnnotationIsTaskDefault(t *testing.T) {
	job := newJob("j", nil, task("default", 2, "c"), task("worker", 1, "c"))
	p := mustBuild(t, "pytorch", "--master=default")
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "j-default-1"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}
	require.NoError(t, p.OnPodCreate(pod, job))
	assert.Equal(t, "0", envOf(pod.Spec.Containers[0])["RANK"], "read as a pod of the master task \"default\"")
}
