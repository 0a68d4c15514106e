package plugins

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/vcjob/vcjob"
)

// Names and defaults of the ray plugin.
const (
	RayGCSPortName          = "gcs"
	RayDashboardPortName    = "dashboard"
	RayClientServerPortName = "client-server"
	RayDefaultPort          = 6379
	RayDefaultDashboardPort = 8265
	RayDefaultClientPort    = 10001
)

type rayPlugin struct {
	*mode
	head, headContainer     string
	worker, workerContainer string
	port, dashboard, client int
}

// NewRay builds the ray plugin. Arguments (note the camel case, as in
// Volcano):
//
//	--head             name of the head task, default head
//	--headContainer    name of the head task's ray container, default head
//	--worker           name of the worker task, default worker
//	--workerContainer  name of the worker task's ray container, default worker
//	--port             GCS port, default 6379
//	--dashboardPort    dashboard port, default 8265
//	--clientPort       client server port, default 10001
func NewRay(args []string) (Plugin, error) {
	return newRay(args, strictMode())
}

func newRay(args []string, m *mode) (Plugin, error) {
	name := vcjob.PluginRay
	p := &rayPlugin{mode: m}
	fs := newFlagSet(name)
	fs.StringVar(&p.head, "head", "head", "name of the head task")
	fs.StringVar(&p.headContainer, "headContainer", "head", "name of the head container")
	fs.StringVar(&p.worker, "worker", "worker", "name of the worker task")
	fs.StringVar(&p.workerContainer, "workerContainer", "worker", "name of the worker container")
	fs.IntVar(&p.port, "port", RayDefaultPort, "GCS port")
	fs.IntVar(&p.dashboard, "dashboardPort", RayDefaultDashboardPort, "dashboard port")
	fs.IntVar(&p.client, "clientPort", RayDefaultClientPort, "client server port")
	if err := m.parse(name, fs, args); err != nil {
		return nil, err
	}
	for _, f := range []struct{ flag, v string }{{"head", p.head}, {"headContainer", p.headContainer}, {"worker", p.worker}, {"workerContainer", p.workerContainer}} {
		if err := m.tolerate(checkNonEmpty(name, fs, args, f.flag, f.v)); err != nil {
			return nil, err
		}
	}
	for _, f := range []struct {
		flag string
		v    int
	}{{"port", p.port}, {"dashboardPort", p.dashboard}, {"clientPort", p.client}} {
		if err := m.tolerate(checkPort(name, fs, args, f.flag, f.v)); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (p *rayPlugin) Name() string { return vcjob.PluginRay }

// RayHeadServiceName is the name of the Service in front of the head pod:
// "<job>-head-svc".
func RayHeadServiceName(job *vcjob.Job) string { return job.Name + "-head-svc" }

// OnPodCreate is an error when the job has no head task. In a head pod the
// head container gets the three ports (unless exposed) and the command
// `sh -c "ray start --head --block --dashboard-host=0.0.0.0 --port=P
// --dashboard-port=D --ray-client-server-port=C"`; in a worker pod the
// worker container gets `sh -c "ray start --block --address=<head pod 0
// host name>:P"`. Other containers are left alone.
func (p *rayPlugin) OnPodCreate(pod *corev1.Pod, job *vcjob.Job) error {
	if err := checkPod(p.Name(), pod, job); err != nil {
		return err
	}
	head, ok := findTask(job, p.head)
	if !ok {
		return fmt.Errorf("plugin %q: job %s/%s has no head task %q", p.Name(), job.Namespace, job.Name, p.head)
	}
	task := taskOf(pod)
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		if task == p.head && c.Name == p.headContainer {
			openPort(c, RayGCSPortName, int32(p.port))
			openPort(c, RayDashboardPortName, int32(p.dashboard))
			openPort(c, RayClientServerPortName, int32(p.client))
			c.Command = []string{"sh", "-c", fmt.Sprintf(
				"ray start --head --block --dashboard-host=0.0.0.0 --port=%d --dashboard-port=%d --ray-client-server-port=%d",
				p.port, p.dashboard, p.client)}
		}
		if task == p.worker && c.Name == p.workerContainer {
			c.Command = []string{"sh", "-c", fmt.Sprintf("ray start --block --address=%s:%d", hostName(job, head, 0), p.port)}
		}
	}
	return nil
}

func (p *rayPlugin) service(job *vcjob.Job) *corev1.Service {
	sel := jobSelector(job)
	sel[vcjob.TaskSpecKey] = p.head
	port := func(name string, n int) corev1.ServicePort {
		return corev1.ServicePort{Name: name, Port: int32(n), TargetPort: intstr.FromString(name), Protocol: corev1.ProtocolTCP}
	}
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: p.meta(job, RayHeadServiceName(job)),
		Spec: corev1.ServiceSpec{
			Selector: sel,
			Ports: []corev1.ServicePort{
				port(RayGCSPortName, p.port),
				port(RayDashboardPortName, p.dashboard),
				port(RayClientServerPortName, p.client),
			},
		},
	}
}

// OnJobAdd, unless already recorded, returns the head Service: it selects
// the job's head-task pods and maps the three ports to the named container
// ports.
func (p *rayPlugin) OnJobAdd(job *vcjob.Job) (Objects, error) {
	if err := checkJob(p.Name(), job); err != nil {
		return Objects{}, err
	}
	if recorded(job, p.Name()) {
		return Objects{}, nil
	}
	record(job, p.Name())
	return Objects{Apply: []runtime.Object{p.service(job)}}, nil
}

func (p *rayPlugin) OnJobUpdate(job *vcjob.Job) (Objects, error) {
	return Objects{}, checkJob(p.Name(), job)
}

// OnJobDelete, when recorded, deletes the head Service.
func (p *rayPlugin) OnJobDelete(job *vcjob.Job) (Objects, error) {
	if err := checkJob(p.Name(), job); err != nil {
		return Objects{}, err
	}
	if !recorded(job, p.Name()) {
		return Objects{}, nil
	}
	unrecord(job, p.Name())
	return Objects{Delete: []ObjectRef{{APIVersion: "v1", Kind: "Service", Namespace: job.Namespace, Name: RayHeadServiceName(job)}}}, nil
}
