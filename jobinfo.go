package vcjob

import (
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// JobInfo is a job with the pods the controller knows of, grouped by task
// name (the pod's volcano.sh/task-spec annotation) and then by pod name,
// with the counts the plans read kept up to date as pods come and go (see
// TaskPods).
//
// A JobInfo is built from persistent maps: Clone is O(1) and AddPod,
// DeletePod and SetJob cost O(log pods), changing only the JobInfo they
// are called on. The Job and the pods are shared between clones, as
// objects from an informer are, and must not be changed in place: replace
// them. A JobInfo is not safe for concurrent writes.
//
// +k8s:deepcopy-gen=false
type JobInfo struct {
	Namespace string
	Name      string
	// Job may be nil while only pods are known. Change it with SetJob, so
	// that the counts follow a change of job name or replicas; when it was
	// assigned directly and its shape moved, readers recount from the pods
	// (correct, but O(pods) per read).
	Job *Job

	// tasks is sorted by name and never changed in place: a change makes
	// a new slice, O(tasks), which for the handful of tasks a job has is
	// cheaper than any map.
	tasks []taskEntry
	npods int
	shape shape
	// shaped is the job object shape was taken from: while Job is that
	// object, the shape matches without comparing.
	shaped *Job
}

// NewJobInfo returns a job info for job and pods. Pods without a task-spec
// annotation are refused with an error naming the pod.
func NewJobInfo(job *Job, pods ...*corev1.Pod) (*JobInfo, error) {
	ji := &JobInfo{}
	if job != nil {
		ji.Namespace, ji.Name = job.Namespace, job.Name
	}
	ji.SetJob(job)
	for _, p := range pods {
		if err := ji.AddPod(p); err != nil {
			return nil, err
		}
	}
	return ji, nil
}

// SetJob replaces the job. When its name or its tasks' replicas differ
// from the last job's, every task is recounted (O(pods)); otherwise it
// costs O(tasks).
func (ji *JobInfo) SetJob(job *Job) {
	ji.Job = job
	if ji.shape.matches(job) {
		ji.shaped = job
		return
	}
	ji.shape, ji.shaped = shapeOf(job), job
	tasks := make([]taskEntry, len(ji.tasks))
	for i, t := range ji.tasks {
		tasks[i] = taskEntry{t.name, recount(ji.shape, t.name, t.pods.pods)}
	}
	ji.tasks = tasks
}

// AddPod files pod under its task, replacing a pod of the same name.
func (ji *JobInfo) AddPod(pod *corev1.Pod) error {
	task, ok := pod.Annotations[TaskSpecKey]
	if !ok {
		return fmt.Errorf("pod %s/%s: no %s annotation", pod.Namespace, pod.Name, TaskSpecKey)
	}
	ji.fresh()
	tp, _ := ji.task(task)
	next := tp.with(ji.shape, task, pod)
	if next.pods.Len() > tp.Len() {
		ji.npods++
	}
	ji.setTask(task, &next)
	return nil
}

// DeletePod removes pod (by its task and name) from its task; a task left
// empty is removed too.
func (ji *JobInfo) DeletePod(pod *corev1.Pod) {
	task := pod.Annotations[TaskSpecKey]
	ji.fresh()
	tp, ok := ji.task(task)
	if !ok {
		return
	}
	next, removed := tp.without(pod.Name)
	if !removed {
		return
	}
	ji.npods--
	if next.Len() == 0 {
		ji.setTask(task, nil)
		return
	}
	ji.setTask(task, &next)
}

// fresh recounts when Job was assigned directly and its shape moved, so
// that writes keep the counts exact.
func (ji *JobInfo) fresh() {
	if !ji.shapeMatches() {
		ji.SetJob(ji.Job)
	}
}

func (ji *JobInfo) shapeMatches() bool {
	return ji.Job == ji.shaped && (ji.Job != nil || !ji.shape.hasJob) || ji.shape.matches(ji.Job)
}

// Task returns the pods of task with their counts; a task without pods
// gives an empty TaskPods. The result is read-only and stays as it is when
// the JobInfo moves on.
func (ji *JobInfo) Task(task string) *TaskPods {
	tp, ok := ji.task(task)
	if !ok {
		return &TaskPods{}
	}
	if !ji.shapeMatches() {
		fresh := recount(shapeOf(ji.Job), task, tp.pods)
		return &fresh
	}
	return tp
}

// TaskNames lists the tasks that have pods, sorted.
func (ji *JobInfo) TaskNames() []string {
	out := make([]string, len(ji.tasks))
	for i, t := range ji.tasks {
		out[i] = t.name
	}
	return out
}

// Pods yields every pod with its task, tasks in name order.
func (ji *JobInfo) Pods() iter.Seq2[string, *corev1.Pod] {
	return func(yield func(string, *corev1.Pod) bool) {
		for _, t := range ji.tasks {
			for _, e := range t.pods.pods.All() {
				if !yield(t.name, e.pod) {
					return
				}
			}
		}
	}
}

// Pod returns the named pod of task, or nil.
func (ji *JobInfo) Pod(task, name string) *corev1.Pod {
	tp, _ := ji.task(task)
	return tp.Get(name)
}

// PodCount is the number of pods the job info holds.
func (ji *JobInfo) PodCount() int { return ji.npods }

// Clone returns a job info that shares everything with ji and moves on
// independently: O(1). The job and pods stay shared and read-only.
func (ji *JobInfo) Clone() *JobInfo {
	out := *ji
	return &out
}

// taskEntry holds a task's pods by value: a changed task costs one new
// tasks slice and nothing else.
type taskEntry struct {
	name string
	pods TaskPods
}

func (ji *JobInfo) task(name string) (*TaskPods, bool) {
	for i := range ji.tasks {
		if ji.tasks[i].name == name {
			return &ji.tasks[i].pods, true
		}
	}
	return nil, false
}

// setTask puts tp under name in a new tasks slice; a nil tp removes the
// task.
func (ji *JobInfo) setTask(name string, tp *TaskPods) {
	i, ok := slices.BinarySearchFunc(ji.tasks, name, func(t taskEntry, name string) int { return strings.Compare(t.name, name) })
	var tasks []taskEntry
	switch {
	case ok && tp == nil:
		tasks = slices.Delete(slices.Clone(ji.tasks), i, i+1)
	case ok:
		tasks = slices.Clone(ji.tasks)
		tasks[i].pods = *tp
	case tp != nil:
		tasks = slices.Insert(slices.Clone(ji.tasks), i, taskEntry{name, *tp})
	default:
		return
	}
	ji.tasks = tasks
}

// shape is what a task's counts depend on besides its pods: the job's name
// and each task's replicas (the first task of a name, as Job.Task finds).
type shape struct {
	hasJob bool
	job    string
	tasks  []taskShape
}

type taskShape struct {
	name     string
	replicas int32
}

func shapeOf(job *Job) shape {
	if job == nil {
		return shape{}
	}
	s := shape{hasJob: true, job: job.Name, tasks: make([]taskShape, len(job.Spec.Tasks))}
	for i, t := range job.Spec.Tasks {
		s.tasks[i] = taskShape{t.Name, t.Replicas}
	}
	return s
}

func (s shape) matches(job *Job) bool {
	if job == nil {
		return !s.hasJob
	}
	if !s.hasJob || s.job != job.Name || len(s.tasks) != len(job.Spec.Tasks) {
		return false
	}
	for i, t := range job.Spec.Tasks {
		if s.tasks[i] != (taskShape{t.Name, t.Replicas}) {
			return false
		}
	}
	return true
}

// replicas is the replica count the task's pods are ranged against, and
// false for a task the job does not have (or no job).
func (s shape) replicas(task string) (int32, bool) {
	for _, t := range s.tasks {
		if t.name == task {
			return t.replicas, true
		}
	}
	return 0, false
}

// PodName is the name of a task's pod at index: <job>-<task>-<index>.
func PodName(job, task string, index int) string {
	return job + "-" + task + "-" + strconv.Itoa(index)
}

// PodNameIndex is PodName read backwards: the index i for which name is
// PodName(job, task, i), and false when there is none.
func PodNameIndex(name, job, task string) (int, bool) {
	p := len(job) + 1 + len(task) + 1
	if len(name) <= p || name[:len(job)] != job || name[len(job)] != '-' ||
		name[len(job)+1:p-1] != task || name[p-1] != '-' {
		return 0, false
	}
	digits := name[p:]
	if len(digits) > 10 || (len(digits) > 1 && digits[0] == '0') {
		return 0, false
	}
	i := 0
	for j := 0; j < len(digits); j++ {
		c := digits[j]
		if c < '0' || c > '9' {
			return 0, false
		}
		i = i*10 + int(c-'0')
	}
	return i, true
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
