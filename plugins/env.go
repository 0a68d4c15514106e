package plugins

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
)

// Environment variables the env plugin sets.
const (
	// EnvVKTaskIndex is the older name of the pod's index in its task.
	EnvVKTaskIndex = "VK_TASK_INDEX"
	// EnvVCTaskIndex is the pod's index in its task.
	EnvVCTaskIndex = "VC_TASK_INDEX"
)

type envPlugin struct{ *mode }

// NewEnv builds the env plugin. It takes no arguments.
func NewEnv(args []string) (Plugin, error) {
	return newEnv(args, strictMode())
}

func newEnv(args []string, m *mode) (Plugin, error) {
	if err := m.parse(vcjob.PluginEnv, newFlagSet(vcjob.PluginEnv), args); err != nil {
		return nil, err
	}
	return envPlugin{m}, nil
}

func (envPlugin) Name() string { return vcjob.PluginEnv }

// OnPodCreate sets VK_TASK_INDEX and VC_TASK_INDEX in every container and
// init container to what follows the last "-" of the pod name ("" when
// the name has fewer than three parts), as Volcano does.
func (p envPlugin) OnPodCreate(pod *corev1.Pod, job *vcjob.Job) error {
	if err := checkPod(p.Name(), pod, job); err != nil {
		return err
	}
	index := podIndexFromName(pod)
	eachContainer(pod, true, func(c *corev1.Container) {
		p.setEnv(c, corev1.EnvVar{Name: EnvVKTaskIndex, Value: index})
		p.setEnv(c, corev1.EnvVar{Name: EnvVCTaskIndex, Value: index})
	})
	return nil
}

func (p envPlugin) OnJobAdd(job *vcjob.Job) (Objects, error) {
	return recordOnly(p.Name(), job)
}

func (p envPlugin) OnJobUpdate(job *vcjob.Job) (Objects, error) {
	return Objects{}, checkJob(p.Name(), job)
}

func (p envPlugin) OnJobDelete(job *vcjob.Job) (Objects, error) {
	return unrecordOnly(p.Name(), job)
}

// recordOnly is OnJobAdd for plugins that own no objects.
func recordOnly(name string, job *vcjob.Job) (Objects, error) {
	if err := checkJob(name, job); err != nil {
		return Objects{}, err
	}
	if !recorded(job, name) {
		record(job, name)
	}
	return Objects{}, nil
}

// unrecordOnly is OnJobDelete for plugins that own no objects.
func unrecordOnly(name string, job *vcjob.Job) (Objects, error) {
	if err := checkJob(name, job); err != nil {
		return Objects{}, err
	}
	if recorded(job, name) {
		unrecord(job, name)
	}
	return Objects{}, nil
}
