package plugins

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
)

// mpiJob is Volcano's MPI example: one launcher, two workers, mpi + ssh +
// svc plugins.
func mpiJob() *vcjob.Job {
	master := task("mpimaster", 1, "mpimaster")
	master.Template.Spec.InitContainers = []corev1.Container{{Name: "prepare"}}
	return newJob("mpi-job", map[string][]string{
		"mpi": {"--master=mpimaster", "--worker=mpiworker"},
		"ssh": {},
		"svc": {},
	}, master, task("mpiworker", 2, "mpiworker"))
}

func TestMPIPods(t *testing.T) {
	job := mpiJob()
	p := mustBuild(t, "mpi", job.Spec.Plugins["mpi"]...)
	port := []corev1.ContainerPort{{Name: "mpijob-port", ContainerPort: 22}}

	master := created(t, p, job, "mpimaster", 0)
	hosts := []corev1.EnvVar{{Name: "MPI_HOST", Value: "mpi-job-mpiworker-0.mpi-job,mpi-job-mpiworker-1.mpi-job"}}
	for _, c := range append(master.Spec.InitContainers, master.Spec.Containers...) {
		assert.Equal(t, hosts, c.Env, c.Name)
		assert.Equal(t, port, c.Ports, c.Name)
	}

	for i := 0; i < 2; i++ {
		worker := created(t, p, job, "mpiworker", i)
		c := worker.Spec.Containers[0]
		assert.Empty(t, c.Env)
		assert.Equal(t, port, c.Ports)
	}
}

func TestMPIPortArgumentAndExistingPort(t *testing.T) {
	job := mpiJob()
	job.Spec.Tasks[1].Template.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "sshd", ContainerPort: 5000}}
	p := mustBuild(t, "mpi", "--master=mpimaster", "--worker=mpiworker", "--port=5000")
	worker := created(t, p, job, "mpiworker", 0)
	assert.Equal(t, []corev1.ContainerPort{{Name: "sshd", ContainerPort: 5000}}, worker.Spec.Containers[0].Ports, "port already exposed: not added again")
	master := created(t, p, job, "mpimaster", 0)
	assert.Equal(t, []corev1.ContainerPort{{Name: "mpijob-port", ContainerPort: 5000}}, master.Spec.Containers[0].Ports)
}

func TestMPIWorkerHostnameAndMissingWorker(t *testing.T) {
	job := mpiJob()
	job.Spec.Tasks[1].Template.Spec.Hostname = "w"
	p := mustBuild(t, "mpi", "--master=mpimaster", "--worker=mpiworker")
	master := created(t, p, job, "mpimaster", 0)
	assert.Equal(t, "w.mpi-job", envOf(master.Spec.Containers[0])["MPI_HOST"])

	// Without the worker task Volcano's plugin returns at once: the master
	// pod is created as rendered, without MPI_HOST or the port.
	def := mustBuild(t, "mpi")
	job2 := newJob("j", nil, task("master", 1, "m"))
	pod := podFor(job2, "master", 0)
	before := pod.DeepCopy()
	require.NoError(t, def.OnPodCreate(pod, job2))
	assert.Equal(t, before, pod)
}

func TestMPIJobHooks(t *testing.T) {
	job := mpiJob()
	p := mustBuild(t, "mpi")
	objs, err := p.OnJobAdd(job)
	require.NoError(t, err)
	assert.True(t, objs.Empty())
	assert.Equal(t, map[string]string{"plugin-mpi": "mpi"}, job.Status.ControlledResources)
	objs, err = p.OnJobDelete(job)
	require.NoError(t, err)
	assert.True(t, objs.Empty())
	assert.Empty(t, job.Status.ControlledResources)
}
