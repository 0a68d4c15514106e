package plugins

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/vcjob/vcjob"
)

// Plugin is one job plugin. A plugin never talks to a cluster: the pod hook
// edits the pod it is handed, and the job hooks say which objects should
// exist or be removed. Every hook is idempotent: running it twice has the
// effect of running it once.
type Plugin interface {
	// Name is the key of job.spec.plugins the plugin answers to.
	Name() string
	// OnPodCreate changes only the pod it is given (env, volumes, ports,
	// hostname, annotations, init containers, commands) before the pod is
	// created.
	OnPodCreate(pod *corev1.Pod, job *vcjob.Job) error
	// OnJobAdd runs when the job is initialised. It may change only
	// job.Status.ControlledResources.
	OnJobAdd(job *vcjob.Job) (Objects, error)
	// OnJobUpdate runs when the job's spec changed. It may change only
	// job.Status.ControlledResources.
	OnJobUpdate(job *vcjob.Job) (Objects, error)
	// OnJobDelete runs when the job's pods are killed. It may change only
	// job.Status.ControlledResources.
	OnJobDelete(job *vcjob.Job) (Objects, error)
}

// Objects is what a job hook wants done in the cluster.
type Objects struct {
	// Apply holds typed objects (*corev1.Service, *corev1.ConfigMap,
	// *corev1.Secret, *networkingv1.NetworkPolicy) that should exist with
	// this content. Each has its TypeMeta, namespace, name, labels and a
	// controller owner reference to the job.
	Apply []runtime.Object
	// Delete names objects that should no longer exist; a missing one is
	// not an error.
	Delete []ObjectRef
}

// Empty reports whether there is nothing to apply and nothing to delete.
func (o Objects) Empty() bool { return len(o.Apply) == 0 && len(o.Delete) == 0 }

// ObjectRef names an object to delete.
type ObjectRef struct {
	APIVersion string
	Kind       string
	Namespace  string
	Name       string
}

func (r ObjectRef) String() string {
	return r.APIVersion + "/" + r.Kind + " " + r.Namespace + "/" + r.Name
}

// ControlledResourceKey is the job.status.controlledResources key a plugin
// records itself under: "plugin-<name>" (its value is the name).
func ControlledResourceKey(name string) string { return "plugin-" + name }

func recorded(job *vcjob.Job, name string) bool {
	return job.Status.ControlledResources[ControlledResourceKey(name)] == name
}

func record(job *vcjob.Job, name string) {
	if job.Status.ControlledResources == nil {
		job.Status.ControlledResources = map[string]string{}
	}
	job.Status.ControlledResources[ControlledResourceKey(name)] = name
}

func unrecord(job *vcjob.Job, name string) {
	delete(job.Status.ControlledResources, ControlledResourceKey(name))
}

func checkJob(name string, job *vcjob.Job) error {
	if job == nil {
		return fmt.Errorf("plugin %q: nil job", name)
	}
	return nil
}

func checkPod(name string, pod *corev1.Pod, job *vcjob.Job) error {
	if pod == nil {
		return fmt.Errorf("plugin %q: nil pod", name)
	}
	return checkJob(name, job)
}

// jobSelector selects the job's pods by the labels every pod carries.
func jobSelector(job *vcjob.Job) map[string]string {
	return map[string]string{
		vcjob.JobNameKey:      job.Name,
		vcjob.JobNamespaceKey: job.Namespace,
	}
}

// taskOf is the pod's task: its volcano.sh/task-spec annotation, or
// "default" when that is missing or empty (as Volcano reads it).
func taskOf(pod *corev1.Pod) string {
	if t := pod.Annotations[vcjob.TaskSpecKey]; t != "" {
		return t
	}
	return "default"
}

// podIndexFromName is what follows the last "-" of a pod name that has at
// least three dash-separated parts, or "" otherwise (as Volcano reads it).
func podIndexFromName(pod *corev1.Pod) string {
	parts := strings.Split(pod.Name, "-")
	if len(parts) >= 3 {
		return parts[len(parts)-1]
	}
	return ""
}

// podIndexNumber parses podIndexFromName.
func podIndexNumber(plugin string, pod *corev1.Pod) (int, error) {
	s := podIndexFromName(pod)
	i, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("plugin %q: pod %q: no task index in its name", plugin, pod.Name)
	}
	return i, nil
}

func findTask(job *vcjob.Job, name string) (*vcjob.TaskSpec, bool) {
	for i := range job.Spec.Tasks {
		if job.Spec.Tasks[i].Name == name {
			return &job.Spec.Tasks[i], true
		}
	}
	return nil, false
}

// hostName is the DNS name of a task's pod at index as the svc plugin makes
// it resolvable: <hostname>.<subdomain>, where a template hostname or
// subdomain wins over <job>-<task>-<index> and <job>.
func hostName(job *vcjob.Job, task *vcjob.TaskSpec, index int) string {
	host := task.Template.Spec.Hostname
	if host == "" {
		host = vcjob.PodName(job.Name, task.Name, index)
	}
	sub := task.Template.Spec.Subdomain
	if sub == "" {
		sub = job.Name
	}
	return host + "." + sub
}

// taskHosts lists the host names of a task's pods. A task whose template
// sets a hostname has one host only, as every pod shares that name.
func taskHosts(job *vcjob.Job, task *vcjob.TaskSpec) []string {
	hosts := make([]string, 0, max(task.Replicas, 0))
	for i := 0; i < int(task.Replicas); i++ {
		hosts = append(hosts, hostName(job, task, i))
		if task.Template.Spec.Hostname != "" {
			break
		}
	}
	return hosts
}

// setEnv sets name=value in c: an existing variable of that name is
// replaced in place (so the plugin's value wins, as it does in Volcano
// where it is appended last), otherwise it is appended.
func setEnv(c *corev1.Container, v corev1.EnvVar) {
	for i := range c.Env {
		if c.Env[i].Name == v.Name {
			c.Env[i] = v
			return
		}
	}
	c.Env = append(c.Env, v)
}

// setVolume adds v to the pod, replacing a volume of the same name.
func setVolume(pod *corev1.Pod, v corev1.Volume) {
	for i := range pod.Spec.Volumes {
		if pod.Spec.Volumes[i].Name == v.Name {
			pod.Spec.Volumes[i] = v
			return
		}
	}
	pod.Spec.Volumes = append(pod.Spec.Volumes, v)
}

// setMount adds m to c, replacing a mount of the same volume at the same
// path.
func setMount(c *corev1.Container, m corev1.VolumeMount) {
	for i := range c.VolumeMounts {
		if c.VolumeMounts[i].Name == m.Name && c.VolumeMounts[i].MountPath == m.MountPath {
			c.VolumeMounts[i] = m
			return
		}
	}
	c.VolumeMounts = append(c.VolumeMounts, m)
}

// openPort adds a named container port unless the container already
// exposes that port number (whatever its name), as Volcano does.
func openPort(c *corev1.Container, name string, port int32) {
	for _, p := range c.Ports {
		if p.ContainerPort == port {
			return
		}
	}
	c.Ports = append(c.Ports, corev1.ContainerPort{Name: name, ContainerPort: port})
}

// eachContainer calls f on every container and, when withInit is set,
// every init container; init containers come first.
func eachContainer(pod *corev1.Pod, withInit bool, f func(c *corev1.Container)) {
	if withInit {
		for i := range pod.Spec.InitContainers {
			f(&pod.Spec.InitContainers[i])
		}
	}
	for i := range pod.Spec.Containers {
		f(&pod.Spec.Containers[i])
	}
}
