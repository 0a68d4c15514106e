package vcjob

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// JobInfo is a job with the pods the controller knows of, grouped by task
// name (the pod's volcano.sh/task-spec annotation) and then by pod name.
// Job may be nil while only pods are known.
type JobInfo struct {
	Namespace string
	Name      string
	Job       *Job
	Pods      map[string]map[string]*corev1.Pod
}

// NewJobInfo returns a job info for job and pods. Pods without a task-spec
// annotation are refused with an error naming the pod.
func NewJobInfo(job *Job, pods ...*corev1.Pod) (*JobInfo, error) {
	ji := &JobInfo{Job: job, Pods: map[string]map[string]*corev1.Pod{}}
	if job != nil {
		ji.Namespace, ji.Name = job.Namespace, job.Name
	}
	for _, p := range pods {
		if err := ji.AddPod(p); err != nil {
			return nil, err
		}
	}
	return ji, nil
}

// AddPod files pod under its task, replacing a pod of the same name.
func (ji *JobInfo) AddPod(pod *corev1.Pod) error {
	task, ok := pod.Annotations[TaskSpecKey]
	if !ok {
		return fmt.Errorf("pod %s/%s: no %s annotation", pod.Namespace, pod.Name, TaskSpecKey)
	}
	if ji.Pods == nil {
		ji.Pods = map[string]map[string]*corev1.Pod{}
	}
	if ji.Pods[task] == nil {
		ji.Pods[task] = map[string]*corev1.Pod{}
	}
	ji.Pods[task][pod.Name] = pod
	return nil
}

// DeletePod removes pod from its task; a task left empty is removed too.
func (ji *JobInfo) DeletePod(pod *corev1.Pod) {
	task := pod.Annotations[TaskSpecKey]
	if pods, ok := ji.Pods[task]; ok {
		delete(pods, pod.Name)
		if len(pods) == 0 {
			delete(ji.Pods, task)
		}
	}
}

// Pod returns the named pod of task, or nil.
func (ji *JobInfo) Pod(task, name string) *corev1.Pod {
	return ji.Pods[task][name]
}

// PodCount is the number of pods the job info holds.
func (ji *JobInfo) PodCount() int {
	n := 0
	for _, pods := range ji.Pods {
		n += len(pods)
	}
	return n
}

// Clone copies the job and the pod maps; the pods themselves are deep
// copies too, so the clone can be changed freely.
func (ji *JobInfo) Clone() *JobInfo {
	out := &JobInfo{Namespace: ji.Namespace, Name: ji.Name, Pods: make(map[string]map[string]*corev1.Pod, len(ji.Pods))}
	if ji.Job != nil {
		out.Job = ji.Job.DeepCopy()
	}
	for task, pods := range ji.Pods {
		m := make(map[string]*corev1.Pod, len(pods))
		for name, p := range pods {
			m[name] = p.DeepCopy()
		}
		out.Pods[task] = m
	}
	return out
}

// PodName is the name of a task's pod at index: <job>-<task>-<index>.
func PodName(job, task string, index int) string {
	return job + "-" + task + "-" + strconv.Itoa(index)
}

// PodIndex reads a pod's task index from its volcano.sh/task-index label or
// annotation; ok is false when neither holds an integer.
func PodIndex(pod *corev1.Pod) (int, bool) {
	v, ok := pod.Labels[TaskIndexKey]
	if !ok {
		v, ok = pod.Annotations[TaskIndexKey]
	}
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(v)
	if err != nil {
		return 0, false
	}
	return i, true
}

// TotalReplicas is the sum of the tasks' replicas.
func (j *Job) TotalReplicas() int32 {
	var n int32
	for _, t := range j.Spec.Tasks {
		n += t.Replicas
	}
	return n
}

// Task returns the task spec named name, or nil.
func (j *Job) Task(name string) *TaskSpec {
	for i := range j.Spec.Tasks {
		if j.Spec.Tasks[i].Name == name {
			return &j.Spec.Tasks[i]
		}
	}
	return nil
}
