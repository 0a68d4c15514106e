package plugins

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
)

// HCCLRankKey is the pod annotation holding the pod's HCCL rank.
const HCCLRankKey = "hccl/rankIndex"

type hcclrankPlugin struct {
	*mode
	master string
	worker string
}

// NewHCCLRank builds the hcclrank plugin. Arguments:
//
//	--master  name of the master task, default master
//	--worker  name of the worker task, default worker
func NewHCCLRank(args []string) (Plugin, error) {
	return newHCCLRank(args, strictMode())
}

func newHCCLRank(args []string, m *mode) (Plugin, error) {
	name := vcjob.PluginHCCLRank
	p := &hcclrankPlugin{mode: m}
	fs := newFlagSet(name)
	fs.StringVar(&p.master, "master", "master", "name of the master task")
	fs.StringVar(&p.worker, "worker", "worker", "name of the worker task")
	if err := m.parse(name, fs, args); err != nil {
		return nil, err
	}
	if err := m.tolerate(checkNonEmpty(name, fs, args, "master", p.master)); err != nil {
		return nil, err
	}
	if err := m.tolerate(checkNonEmpty(name, fs, args, "worker", p.worker)); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *hcclrankPlugin) Name() string { return vcjob.PluginHCCLRank }

// OnPodCreate sets the hccl/rankIndex annotation unless it is set already
// (or the job is nil, as Volcano allows). The rank is the value of the
// first RANK variable among the containers when that is not empty;
// otherwise, for master and worker pods only, the pod's
// volcano.sh/task-index label for a master, and the master replicas plus
// that label for a worker. A master or worker pod without a numeric
// task-index label is an error.
func (p *hcclrankPlugin) OnPodCreate(pod *corev1.Pod, job *vcjob.Job) error {
	if pod == nil {
		return fmt.Errorf("plugin %q: nil pod", p.Name())
	}
	if job == nil || pod.Annotations[HCCLRankKey] != "" {
		return nil
	}
	if rank := firstEnvValue(pod, EnvRank); rank != "" {
		setAnnotation(pod, HCCLRankKey, rank)
		return nil
	}
	task := taskOf(pod)
	if task != p.master && task != p.worker {
		return nil
	}
	s, ok := pod.Labels[vcjob.TaskIndexKey]
	if !ok {
		return fmt.Errorf("plugin %q: pod %q has no %s label", p.Name(), pod.Name, vcjob.TaskIndexKey)
	}
	index, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("plugin %q: pod %q: %s label %q is not a number", p.Name(), pod.Name, vcjob.TaskIndexKey, s)
	}
	rank := index
	if task != p.master {
		if m, ok := findTask(job, p.master); ok {
			rank += int(m.Replicas)
		}
	}
	setAnnotation(pod, HCCLRankKey, strconv.Itoa(rank))
	return nil
}

// firstEnvValue is the value of the first variable called name in the
// pod's containers (not init containers), or "".
func firstEnvValue(pod *corev1.Pod, name string) string {
	for _, c := range pod.Spec.Containers {
		for _, e := range c.Env {
			if e.Name == name {
				return e.Value
			}
		}
	}
	return ""
}

func setAnnotation(pod *corev1.Pod, k, v string) {
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[k] = v
}

// OnJobAdd does nothing: unlike the other plugins, Volcano's hcclrank
// records nothing in controlledResources.
func (p *hcclrankPlugin) OnJobAdd(job *vcjob.Job) (Objects, error) {
	return Objects{}, checkJob(p.Name(), job)
}

func (p *hcclrankPlugin) OnJobUpdate(job *vcjob.Job) (Objects, error) {
	return Objects{}, checkJob(p.Name(), job)
}

func (p *hcclrankPlugin) OnJobDelete(job *vcjob.Job) (Objects, error) {
	return Objects{}, checkJob(p.Name(), job)
}
