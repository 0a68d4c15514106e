package plugins

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"
)

// task is a task of n replicas whose template has the named containers.
func task(name string, n int32, containers ...string) vcjob.TaskSpec {
	ts := vcjob.TaskSpec{Name: name, Replicas: n}
	for _, c := range containers {
		ts.Template.Spec.Containers = append(ts.Template.Spec.Containers, corev1.Container{Name: c, Image: "img"})
	}
	return ts
}

// newJob is job name in namespace ns with the tasks and plugins.
func newJob(name string, plugins map[string][]string, tasks ...vcjob.TaskSpec) *vcjob.Job {
	return &vcjob.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name)},
		Spec:       vcjob.JobSpec{Tasks: tasks, Plugins: plugins},
	}
}

// podFor is the pod the controller makes for task at index (before any
// plugin ran), with the name, labels and annotations plugins read.
func podFor(job *vcjob.Job, taskName string, index int) *corev1.Pod {
	ts := job.Task(taskName)
	if ts == nil {
		panic("no task " + taskName)
	}
	tmpl := ts.Template.DeepCopy()
	idx := strconv.Itoa(index)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:      vcjob.PodName(job.Name, taskName, index),
			Namespace: job.Namespace,
			Labels: map[string]string{
				vcjob.TaskIndexKey: idx, vcjob.JobNameKey: job.Name,
				vcjob.TaskSpecKey: taskName, vcjob.JobNamespaceKey: job.Namespace,
			},
			Annotations: map[string]string{vcjob.TaskIndexKey: idx, vcjob.TaskSpecKey: taskName, vcjob.JobNameKey: job.Name},
		},
		Spec: tmpl.Spec,
	}
	return pod
}

// mustBuild builds the plugin name with args from a registry using the
// test key source.
func mustBuild(t *testing.T, name string, args ...string) Plugin {
	t.Helper()
	b, ok := NewRegistry(append([]Option{WithSSHKeys(TestKeySource())}, vcjobChoices...)...).Builder(name)
	require.True(t, ok, name)
	p, err := b(args)
	require.NoError(t, err)
	require.Equal(t, name, p.Name())
	return p
}

// created runs OnPodCreate on a fresh pod for task at index and returns it.
func created(t *testing.T, p Plugin, job *vcjob.Job, taskName string, index int) *corev1.Pod {
	t.Helper()
	pod := podFor(job, taskName, index)
	require.NoError(t, p.OnPodCreate(pod, job))
	return pod
}

// envOf maps a container's variables to their values.
func envOf(c corev1.Container) map[string]string {
	m := map[string]string{}
	for _, e := range c.Env {
		m[e.Name] = e.Value
	}
	return m
}

func envNames(c corev1.Container) []string {
	var out []string
	for _, e := range c.Env {
		out = append(out, e.Name)
	}
	return out
}

func ownerRef(job *vcjob.Job) []metav1.OwnerReference {
	yes := true
	return []metav1.OwnerReference{{
		APIVersion: "batch.volcano.sh/v1alpha1", Kind: "Job", Name: job.Name, UID: job.UID,
		Controller: &yes, BlockOwnerDeletion: &yes,
	}}
}

func jobLabels(job *vcjob.Job) map[string]string {
	return map[string]string{"volcano.sh/job-name": job.Name, "volcano.sh/job-namespace": job.Namespace}
}
