package plugins

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
)

// Names and defaults of the mpi plugin.
const (
	EnvMPIHost = "MPI_HOST"
	// MPIPortName names the (ssh) container port the plugin opens.
	MPIPortName    = "mpijob-port"
	MPIDefaultPort = 22
)

type mpiPlugin struct {
	*mode
	masterWorker
}

// NewMPI builds the mpi plugin. Arguments:
//
//	--master  name of the launcher task, default master
//	--worker  name of the worker task, default worker
//	--port    the sshd port opened in every container, default 22
func NewMPI(args []string) (Plugin, error) {
	return newMPI(args, strictMode())
}

func newMPI(args []string, m *mode) (Plugin, error) {
	name := vcjob.PluginMPI
	p := &mpiPlugin{mode: m}
	fs := newFlagSet(name)
	p.flags(fs, MPIDefaultPort, "port opened for ssh")
	if err := m.parse(name, fs, args); err != nil {
		return nil, err
	}
	if err := m.tolerate(p.check(name, fs, args)); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *mpiPlugin) Name() string { return vcjob.PluginMPI }

// MPIHostList is the MPI_HOST value: the worker task's host names joined
// by commas (one name when its template sets a hostname).
func MPIHostList(job *vcjob.Job, worker *vcjob.TaskSpec) string {
	return strings.Join(taskHosts(job, worker), ",")
}

// OnPodCreate opens the port in every container and init container that
// does not expose it yet, and gives the master pod MPI_HOST in every
// container and init container. A master pod in a job without the worker
// task is left as it is, as Volcano leaves it.
func (p *mpiPlugin) OnPodCreate(pod *corev1.Pod, job *vcjob.Job) error {
	if err := checkPod(p.Name(), pod, job); err != nil {
		return err
	}
	isMaster := taskOf(pod) == p.master
	hosts := ""
	if isMaster {
		worker, ok := findTask(job, p.worker)
		if !ok {
			return nil
		}
		hosts = MPIHostList(job, worker)
	}
	eachContainer(pod, true, func(c *corev1.Container) {
		openPort(c, MPIPortName, int32(p.port))
		if isMaster {
			p.setEnv(c, corev1.EnvVar{Name: EnvMPIHost, Value: hosts})
		}
	})
	return nil
}

func (p *mpiPlugin) OnJobAdd(job *vcjob.Job) (Objects, error) { return recordOnly(p.Name(), job) }

func (p *mpiPlugin) OnJobUpdate(job *vcjob.Job) (Objects, error) {
	return Objects{}, checkJob(p.Name(), job)
}

func (p *mpiPlugin) OnJobDelete(job *vcjob.Job) (Objects, error) {
	return unrecordOnly(p.Name(), job)
}
