package plugins

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
)

// Names and defaults of the tensorflow plugin.
const (
	EnvTFConfig           = "TF_CONFIG"
	TensorflowDefaultPort = 2222
)

type tensorflowPlugin struct {
	*mode
	ps, worker, chief, evaluator string
	port                         int
}

// NewTensorflow builds the tensorflow plugin. Arguments:
//
//	--ps         name of the parameter-server task, default ps
//	--worker     name of the worker task, default worker
//	--chief      name of the chief task, default chief
//	--evaluator  name of the evaluator task, default evaluator
//	--port       the port in every cluster address, default 2222
func NewTensorflow(args []string) (Plugin, error) {
	return newTensorflow(args, strictMode())
}

func newTensorflow(args []string, m *mode) (Plugin, error) {
	name := vcjob.PluginTensorflow
	p := &tensorflowPlugin{mode: m}
	fs := newFlagSet(name)
	fs.StringVar(&p.ps, "ps", "ps", "name of the ps task")
	fs.StringVar(&p.worker, "worker", "worker", "name of the worker task")
	fs.StringVar(&p.chief, "chief", "chief", "name of the chief task")
	fs.StringVar(&p.evaluator, "evaluator", "evaluator", "name of the evaluator task")
	fs.IntVar(&p.port, "port", TensorflowDefaultPort, "port of every task")
	if err := m.parse(name, fs, args); err != nil {
		return nil, err
	}
	for _, f := range []struct{ flag, v string }{{"ps", p.ps}, {"worker", p.worker}, {"chief", p.chief}, {"evaluator", p.evaluator}} {
		if err := m.tolerate(checkNonEmpty(name, fs, args, f.flag, f.v)); err != nil {
			return nil, err
		}
	}
	if err := m.tolerate(checkPort(name, fs, args, "port", p.port)); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *tensorflowPlugin) Name() string { return vcjob.PluginTensorflow }

// tfConfig is TF_CONFIG: {"cluster":{"ps":[...],"worker":[...],
// "chief":[...],"evaluator":[...]},"task":{"type":...,"index":...}},
// roles without a task left out.
type tfConfig struct {
	Cluster tfCluster `json:"cluster"`
	Task    tfTask    `json:"task"`
}

type tfCluster struct {
	PS        []string `json:"ps,omitempty"`
	Worker    []string `json:"worker,omitempty"`
	Chief     []string `json:"chief,omitempty"`
	Evaluator []string `json:"evaluator,omitempty"`
}

type tfTask struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
}

// OnPodCreate sets TF_CONFIG in every container, unless the job is a
// single task of one replica. Each role lists "<host>:<port>" for every
// replica of its task; the pod's own type is its role (or, for a task in
// no role, the task's name) and its index comes from its name.
func (p *tensorflowPlugin) OnPodCreate(pod *corev1.Pod, job *vcjob.Job) error {
	if err := checkPod(p.Name(), pod, job); err != nil {
		return err
	}
	if len(job.Spec.Tasks) == 1 && job.Spec.Tasks[0].Replicas == 1 {
		return nil
	}
	index, err := podIndexNumber(p.Name(), pod)
	if err != nil {
		return err
	}
	cfg := tfConfig{Task: tfTask{Type: p.roleOf(taskOf(pod)), Index: index}}
	for i := range job.Spec.Tasks {
		ts := &job.Spec.Tasks[i]
		hosts := []string{}
		for j := 0; j < int(ts.Replicas); j++ {
			hosts = append(hosts, fmt.Sprintf("%s:%d", hostName(job, ts, j), p.port))
		}
		switch ts.Name {
		case p.ps:
			cfg.Cluster.PS = hosts
		case p.worker:
			cfg.Cluster.Worker = hosts
		case p.chief:
			cfg.Cluster.Chief = hosts
		case p.evaluator:
			cfg.Cluster.Evaluator = hosts
		}
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("plugin %q: %w", p.Name(), err)
	}
	for i := range pod.Spec.Containers {
		p.setEnv(&pod.Spec.Containers[i], corev1.EnvVar{Name: EnvTFConfig, Value: string(raw)})
	}
	return nil
}

func (p *tensorflowPlugin) roleOf(task string) string {
	switch task {
	case p.chief:
		return "chief"
	case p.worker:
		return "worker"
	case p.ps:
		return "ps"
	case p.evaluator:
		return "evaluator"
	}
	return task
}

func (p *tensorflowPlugin) OnJobAdd(job *vcjob.Job) (Objects, error) {
	return recordOnly(p.Name(), job)
}

func (p *tensorflowPlugin) OnJobUpdate(job *vcjob.Job) (Objects, error) {
	return Objects{}, checkJob(p.Name(), job)
}

func (p *tensorflowPlugin) OnJobDelete(job *vcjob.Job) (Objects, error) {
	return unrecordOnly(p.Name(), job)
}
