package jobinfo

import (
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/internal/hamt"
)

// +k8s:deepcopy-gen=false

// Info is a job with the pods the controller knows of, grouped by task
// name (the pod's volcano.sh/task-spec annotation) and then by pod name,
// with the counts the plans read kept up to date as pods come and go (see
// TaskPods).
//
// A Info is built from persistent maps. Clone and Lease are O(1) and
// give a copy that stays as it is while the original moves on; AddPod and
// DeletePod cost O(log pods) and change only the Info they are called
// on. The first pod of a task costs O(replicas), to list the task's
// missing indices, and so does SetJob when it changes replicas or the job
// name (plus O(pods), to recount).
//
// A Info that has leased copies out changes in place whatever no copy
// can see: once its leases are released, all it made since its last
// Clone. That is the cache's steady state, one lease per event released
// when the event is handled, and there an update that replaces a pod
// allocates nothing (but for a pod in a phase beyond the five Kubernetes
// defines, whose PhaseCounts.Other is copied).
//
// The Job and the pods are shared between copies, as objects from an
// informer are, and must not be changed in place: replace them. Copy a
// Info with Clone or Lease, never by value (go vet reports by-value
// copies). A Info is not safe for concurrent writes, and Clone and
// Lease count as writes of the Info copied; Release may be called from
// any goroutine.
type Info struct {
	_ noCopy

	Namespace string
	Name      string
	// Job may be nil while only pods are known. Change it with SetJob, so
	// that the counts follow a change of job name or replicas; when it was
	// assigned directly and its shape moved, readers recount from the pods
	// (correct, but O(pods + replicas) per read).
	Job *vcjob.Job

	// tasks is sorted by name. It is changed in place only when the
	// Info owns it (tasksGen at or above its edit floor); otherwise a
	// change makes a new slice, O(tasks), which for the handful of tasks a
	// job has is cheaper than any map.
	tasks    []taskEntry
	tasksGen uint64
	npods    int
	shape    shape
	// shaped is the job object shape was taken from: while Job is that
	// object, the shape matches without comparing.
	shaped *vcjob.Job

	// own is set once the Info has leased a copy out: what it may change
	// in place. lessor is set on a leased copy: whom Release tells. gen0 is
	// the last generation this Info may share with the one it was copied
	// from: if it comes to own, it starts above it.
	own    *ownership
	lessor *ownership
	gen0   uint64
}

// noCopy makes go vet's copylocks check report copies of a Info by
// value, which would share what the original changes in place.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// ownership tracks which generations of a Info's maps only the Info
// can see. Nodes are stamped with the generation they were made in; those
// below floor may be seen by a copy and are copied before a change. Every
// Lease or Clone starts a generation and raises the floor past all that
// exists; once no lease is out, the floor drops back to pinned, the floor
// of the last Clone (a clone is never given back).
type ownership struct {
	gen, floor, pinned uint64
	leases             atomic.Int64
}

// edit is what the next write may change in place.
func (ji *Info) edit() hamt.Edit {
	o := ji.own
	if o == nil {
		return hamt.Persistent()
	}
	if o.floor > o.pinned && o.leases.Load() == 0 {
		o.floor = o.pinned
	}
	return hamt.Edit{Gen: o.gen, Floor: o.floor}
}

// freeze starts a generation above everything that exists, so that all of
// it is copied before a change.
func (o *ownership) freeze() {
	o.gen++
	o.floor = o.gen
}

// copyOut is the field-by-field copy Clone and Lease hand out. A copy of a
// leased copy may outlive its Release, so it keeps the lease for good: the
// lessor then never changes in place what they share.
func (ji *Info) copyOut() *Info {
	gen0 := ji.gen0
	if ji.own != nil {
		gen0 = ji.own.gen
	}
	if ji.lessor != nil {
		ji.lessor.leases.Add(1)
	}
	return &Info{Namespace: ji.Namespace, Name: ji.Name, Job: ji.Job,
		tasks: ji.tasks, tasksGen: ji.tasksGen, npods: ji.npods, shape: ji.shape, shaped: ji.shaped, gen0: gen0}
}

// Clone returns a copy that shares everything with ji and moves on
// independently: O(1). The job and pods stay shared and read-only. What
// the copy shares, ji copies before changing, for good.
func (ji *Info) Clone() *Info {
	if o := ji.own; o != nil {
		o.freeze()
		o.pinned = o.floor
	}
	return ji.copyOut()
}

// Lease is Clone for a copy that is given back: until its Release, ji
// copies what it changes; after the last Release, ji changes its maps in
// place again. The copy must not be used after its Release (copies of it
// made with Clone or Lease may: they keep ji from changing what they share,
// for good).
func (ji *Info) Lease() *Info {
	if ji.own == nil {
		// What was made before ji owned anything may be shared with the
		// Info it was copied from or with earlier clones: it stays
		// frozen for good.
		ji.own = &ownership{gen: ji.gen0}
		ji.own.freeze()
		ji.own.pinned = ji.own.floor
	}
	ji.own.leases.Add(1)
	ji.own.freeze()
	out := ji.copyOut()
	out.lessor = ji.own
	return out
}

// Release gives a leased copy back; on any other Info, or nil, it does
// nothing.
// It may be called from any goroutine, once the copy is no longer read.
func (ji *Info) Release() {
	if ji != nil && ji.lessor != nil {
		ji.lessor.leases.Add(-1)
		ji.lessor = nil
	}
}

// New returns a job info for job and pods. Pods without a task-spec
// annotation are refused with an error naming the pod.
func New(job *vcjob.Job, pods ...*corev1.Pod) (*Info, error) {
	ji := &Info{}
	if job != nil {
		ji.Namespace, ji.Name = job.Namespace, job.Name
	}
	ji.SetJob(job)
	for i, p := range pods {
		if err := ji.AddPod(p); err != nil {
			return nil, fmt.Errorf("pods[%d]: %w", i, err)
		}
	}
	return ji, nil
}

// SetJob replaces the job. When its name or its tasks' replicas differ
// from the last job's, every task is recounted (O(pods)); otherwise it
// costs O(tasks).
func (ji *Info) SetJob(job *vcjob.Job) {
	ji.Job = job
	if ji.shape.matches(job) {
		ji.shaped = job
		return
	}
	ji.shape, ji.shaped = shapeOf(job), job
	e := ji.edit()
	tasks := make([]taskEntry, len(ji.tasks))
	for i, t := range ji.tasks {
		tasks[i] = taskEntry{t.name, recount(ji.shape, t.name, t.pods.pods, e)}
	}
	ji.tasks, ji.tasksGen = tasks, e.Gen
}

// AddPod files pod under its task, replacing a pod of the same name.
func (ji *Info) AddPod(pod *corev1.Pod) error {
	if pod == nil {
		return errors.New("nil pod")
	}
	task := pod.Annotations[vcjob.TaskSpecKey]
	if task == "" {
		return fmt.Errorf("pod %s/%s: no %s annotation naming its task", pod.Namespace, pod.Name, vcjob.TaskSpecKey)
	}
	ji.fresh()
	e := ji.edit()
	tp := ji.writable(task, e, true)
	if tp.put(ji.shape, task, pod, e) {
		ji.npods++
	}
	return nil
}

// DeletePod removes pod (by its task and name) from its task; a task left
// empty is removed too.
func (ji *Info) DeletePod(pod *corev1.Pod) {
	if pod == nil {
		return
	}
	task := pod.Annotations[vcjob.TaskSpecKey]
	ji.fresh()
	if tp, _ := ji.task(task); tp.Get(pod.Name) == nil {
		return
	}
	e := ji.edit()
	tp := ji.writable(task, e, false)
	tp.remove(pod.Name, e)
	ji.npods--
	if tp.Len() == 0 {
		i := ji.index(task)
		ji.tasks = slices.Delete(ji.tasks, i, i+1)
	}
}

// writable returns task's entry to change under e, making the tasks slice
// ji's own first when a copy may see it; create adds a missing task.
func (ji *Info) writable(task string, e hamt.Edit, create bool) *TaskPods {
	if ji.tasksGen < e.Floor {
		ji.tasks, ji.tasksGen = slices.Clone(ji.tasks), e.Gen
	}
	i := ji.index(task)
	if i == len(ji.tasks) || ji.tasks[i].name != task {
		if !create {
			return nil
		}
		ji.tasks = slices.Insert(ji.tasks, i, taskEntry{name: task})
		ji.tasks[i].pods.initMissing(ji.shape, task, e)
	}
	return &ji.tasks[i].pods
}

// index is where task is, or would go, in the sorted tasks.
func (ji *Info) index(task string) int {
	i, _ := slices.BinarySearchFunc(ji.tasks, task, func(t taskEntry, name string) int { return strings.Compare(t.name, name) })
	return i
}

// fresh recounts when Job was assigned directly and its shape moved, so
// that writes keep the counts exact.
func (ji *Info) fresh() {
	if !ji.shapeMatches() {
		ji.SetJob(ji.Job)
	}
}

func (ji *Info) shapeMatches() bool {
	return ji.Job == ji.shaped && (ji.Job != nil || !ji.shape.hasJob) || ji.shape.matches(ji.Job)
}

// Task returns the pods of task with their counts; a task without pods
// gives an empty TaskPods. The result is read-only; it stays as it is when
// the Info moves on, except from a Info that changes in place (one
// that leases): read it before the next change.
func (ji *Info) Task(task string) *TaskPods {
	tp, ok := ji.task(task)
	if !ok {
		return &TaskPods{}
	}
	if !ji.shapeMatches() {
		fresh := recount(shapeOf(ji.Job), task, tp.pods, hamt.Persistent())
		return &fresh
	}
	return tp
}

// TaskNames lists the tasks that have pods, sorted.
func (ji *Info) TaskNames() []string {
	out := make([]string, len(ji.tasks))
	for i, t := range ji.tasks {
		out[i] = t.name
	}
	return out
}

// Pods yields every pod with its task, tasks in name order. Do not change
// ji while ranging over it.
func (ji *Info) Pods() iter.Seq2[string, *corev1.Pod] {
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
func (ji *Info) Pod(task, name string) *corev1.Pod {
	tp, _ := ji.task(task)
	return tp.Get(name)
}

// PodCount is the number of pods the job info holds.
func (ji *Info) PodCount() int { return ji.npods }

// taskEntry holds a task's pods by value.
type taskEntry struct {
	name string
	pods TaskPods
}

func (ji *Info) task(name string) (*TaskPods, bool) {
	for i := range ji.tasks {
		if ji.tasks[i].name == name {
			return &ji.tasks[i].pods, true
		}
	}
	return nil, false
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

func shapeOf(job *vcjob.Job) shape {
	if job == nil {
		return shape{}
	}
	s := shape{hasJob: true, job: job.Name, tasks: make([]taskShape, len(job.Spec.Tasks))}
	for i, t := range job.Spec.Tasks {
		s.tasks[i] = taskShape{t.Name, t.Replicas}
	}
	return s
}

func (s shape) matches(job *vcjob.Job) bool {
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
