package jobinfo

import (
	"iter"
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/internal/hamt"
)

// +k8s:deepcopy-gen=false

// TaskPods is one task's pods and what the plans count of them, kept up to
// date pod by pod (O(1) counting per pod change) so that a plan reads
// counts instead of walking every pod. It is read-only: from a snapshot
// it never changes; from a Info that changes in place (one that
// leases), read it before the Info's next change. The zero TaskPods is
// an empty task; its methods also work on a nil pointer.
//
// A pod is in range when it is named <job>-<task>-<i> for an i below the
// task's replicas: the pods SyncJob keeps. Every other pod of the task is
// excess, and SyncJob deletes it.
type TaskPods struct {
	pods   hamt.Map[podEntry]
	counts TaskCounts
	// outOfSync: in range, not terminating, marked out of sync.
	outOfSync hamt.Map[*corev1.Pod]
	excess    hamt.Map[*corev1.Pod]
	// partitions maps a partition id to its members, by name.
	partitions hamt.Map[hamt.Map[*corev1.Pod]]
	// missing maps the name of each pod in range that the task lacks to
	// its index.
	missing hamt.Map[int]
}

// TaskCounts are a task's pods counted the way SyncJob, dependsOn and the
// task predicates read them.
type TaskCounts struct {
	// InRange counts the in-range pods, whatever their state: replicas
	// minus InRange pods are missing.
	InRange int32
	// Terminating counts in-range pods with a deletionTimestamp.
	Terminating int32
	// Phases counts in-range pods without a deletionTimestamp by phase,
	// out-of-sync ones included: what SyncJob writes into the status.
	Phases PhaseCounts
	// Ready counts in-range pods that are Succeeded, or Running with every
	// container ready (terminating or not): dependsOn reads it.
	Ready int32
	// Succeeded counts every Succeeded pod of the task, in range or not:
	// the task-completed predicate reads it.
	Succeeded int32
	// Restarts adds up the restart counts of the init and app containers of
	// every Running or Pending pod of the task, in int32 as Volcano does:
	// the task-failed predicate reads it.
	Restarts int32
}

// PhaseCounts counts pods by phase. Other holds phases beyond the five
// Kubernetes defines (an empty phase, say); it is nil when there are none
// and is replaced, never changed, when the counts move.
type PhaseCounts struct {
	Pending, Running, Succeeded, Failed, Unknown int32
	Other                                        map[corev1.PodPhase]int32
}

// Of is the count of phase.
func (c *PhaseCounts) Of(phase corev1.PodPhase) int32 {
	switch phase {
	case corev1.PodPending:
		return c.Pending
	case corev1.PodRunning:
		return c.Running
	case corev1.PodSucceeded:
		return c.Succeeded
	case corev1.PodFailed:
		return c.Failed
	case corev1.PodUnknown:
		return c.Unknown
	}
	return c.Other[phase]
}

// Total is the number of pods counted.
func (c *PhaseCounts) Total() int32 {
	n := c.Pending + c.Running + c.Succeeded + c.Failed + c.Unknown
	for _, v := range c.Other {
		n += v
	}
	return n
}

// Add counts n more pods (n may be negative) in phase.
func (c *PhaseCounts) Add(phase corev1.PodPhase, n int32) {
	switch phase {
	case corev1.PodPending:
		c.Pending += n
	case corev1.PodRunning:
		c.Running += n
	case corev1.PodSucceeded:
		c.Succeeded += n
	case corev1.PodFailed:
		c.Failed += n
	case corev1.PodUnknown:
		c.Unknown += n
	default:
		other := make(map[corev1.PodPhase]int32, len(c.Other)+1)
		for k, v := range c.Other {
			other[k] = v
		}
		if other[phase] += n; other[phase] == 0 {
			delete(other, phase)
		}
		c.Other = other
		if len(other) == 0 {
			c.Other = nil
		}
	}
}

// ByPhase lists the phases with a non-zero count and their counts, the
// five defined phases first.
func (c *PhaseCounts) ByPhase() iter.Seq2[corev1.PodPhase, int32] {
	return func(yield func(corev1.PodPhase, int32) bool) {
		for _, p := range [...]corev1.PodPhase{corev1.PodPending, corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed, corev1.PodUnknown} {
			if n := c.Of(p); n != 0 && !yield(p, n) {
				return
			}
		}
		others := make([]corev1.PodPhase, 0, len(c.Other))
		for p := range c.Other {
			others = append(others, p)
		}
		sort.Slice(others, func(i, j int) bool { return others[i] < others[j] })
		for _, p := range others {
			if !yield(p, c.Other[p]) {
				return
			}
		}
	}
}

// podEntry is a pod with its part in the counts, worked out when it was
// filed: replacing or removing it then takes its part away without reading
// the old object again.
type podEntry struct {
	pod  *corev1.Pod
	part podPart
}

// podPart is what one pod adds to its task's counts and sets.
type podPart struct {
	phase     corev1.PodPhase
	restarts  int32
	partition string
	// index is the pod's index, when it is in range.
	index int
	// hasPartition: the pod carries a partition-id label (maybe empty).
	hasPartition, inRange, terminating, outOfSync, ready bool
}

func partOf(s shape, task string, pod *corev1.Pod) podPart {
	pt := podPart{phase: pod.Status.Phase}
	if pt.phase == corev1.PodRunning || pt.phase == corev1.PodPending {
		pt.restarts = restarts(pod)
	}
	pt.partition, pt.hasPartition = pod.Labels[vcjob.PartitionIDKey]
	pt.index, pt.inRange = inRange(s, task, pod.Name)
	if !pt.inRange {
		return pt
	}
	pt.ready = pt.phase == corev1.PodSucceeded || (pt.phase == corev1.PodRunning && containersReady(pod))
	pt.terminating = pod.DeletionTimestamp != nil
	pt.outOfSync = !pt.terminating && pod.Annotations[vcjob.PodOutOfSyncKey] == "true"
	return pt
}

// Len is the number of pods of the task.
func (tp *TaskPods) Len() int {
	if tp == nil {
		return 0
	}
	return tp.pods.Len()
}

// Get returns the named pod, or nil.
func (tp *TaskPods) Get(name string) *corev1.Pod {
	if tp == nil {
		return nil
	}
	e, _ := tp.pods.Get(name)
	return e.pod
}

// All yields the task's pods by name, in no particular order.
func (tp *TaskPods) All() iter.Seq2[string, *corev1.Pod] {
	return func(yield func(string, *corev1.Pod) bool) {
		if tp == nil {
			return
		}
		for name, e := range tp.pods.All() {
			if !yield(name, e.pod) {
				return
			}
		}
	}
}

// Sorted returns the task's pods sorted by name.
func (tp *TaskPods) Sorted() []*corev1.Pod {
	if tp == nil || tp.pods.Len() == 0 {
		return nil
	}
	out := make([]*corev1.Pod, 0, tp.pods.Len())
	for _, e := range tp.pods.All() {
		out = append(out, e.pod)
	}
	sortByName(out)
	return out
}

// Counts returns the task's counts.
func (tp *TaskPods) Counts() TaskCounts {
	if tp == nil {
		return TaskCounts{}
	}
	return tp.counts
}

// OutOfSync returns the in-range pods without a deletionTimestamp that
// carry the out-of-sync mark, sorted by name.
func (tp *TaskPods) OutOfSync() []*corev1.Pod {
	if tp == nil {
		return nil
	}
	return sorted(tp.outOfSync)
}

// Excess returns the pods that are not in range, sorted by name.
func (tp *TaskPods) Excess() []*corev1.Pod {
	if tp == nil {
		return nil
	}
	return sorted(tp.excess)
}

// Missing returns the indices below the task's replicas that have no pod,
// in order, for a task that has pods: O(missing). A task without pods
// has all its indices missing, which the Info cannot list here.
func (tp *TaskPods) Missing() []int {
	if tp == nil || tp.missing.Len() == 0 {
		return nil
	}
	out := make([]int, 0, tp.missing.Len())
	for _, i := range tp.missing.All() {
		out = append(out, i)
	}
	slices.Sort(out)
	return out
}

// Partition returns the pods whose volcano.sh/partition-id label is id,
// sorted by name. An empty id has no members.
func (tp *TaskPods) Partition(id string) []*corev1.Pod {
	if tp == nil || id == "" {
		return nil
	}
	members, _ := tp.partitions.Get(id)
	return sorted(members)
}

func sorted(m hamt.Map[*corev1.Pod]) []*corev1.Pod {
	if m.Len() == 0 {
		return nil
	}
	out := make([]*corev1.Pod, 0, m.Len())
	for _, p := range m.All() {
		out = append(out, p)
	}
	sortByName(out)
	return out
}

func sortByName(pods []*corev1.Pod) {
	sort.Slice(pods, func(i, j int) bool { return pods[i].Name < pods[j].Name })
}

// put files pod under edit e, replacing the pod of its name, and reports
// whether the task gained a pod.
func (tp *TaskPods) put(s shape, task string, pod *corev1.Pod, e hamt.Edit) bool {
	entry := podEntry{pod, partOf(s, task, pod)}
	var old podEntry
	var had bool
	tp.pods, old, had = tp.pods.SetIn(e, pod.Name, entry)
	if had {
		// A pod replaced by one of its name: whether it is in range, and
		// so missing, stays as it was.
		tp.count(&old.part, -1)
		tp.count(&entry.part, +1)
		tp.move(&old, &entry, e)
		return false
	}
	tp.count(&entry.part, +1)
	tp.move(nil, &entry, e)
	return true
}

// remove takes the named pod out under edit e.
func (tp *TaskPods) remove(name string, e hamt.Edit) {
	old, ok := tp.pods.Get(name)
	if !ok {
		return
	}
	tp.count(&old.part, -1)
	tp.move(&old, nil, e)
	tp.pods, _ = tp.pods.DeleteIn(e, name)
}

// recount builds a task's counts afresh from its pods. Every map it builds
// is new, so it fills them in place (edit floor 0) rather than copy a path
// per pod.
func recount(s shape, task string, pods hamt.Map[podEntry], e hamt.Edit) TaskPods {
	fresh := hamt.Edit{Gen: e.Gen}
	var tp TaskPods
	tp.initMissing(s, task, fresh)
	for _, entry := range pods.All() {
		entry.part = partOf(s, task, entry.pod)
		tp.pods, _, _ = tp.pods.SetIn(fresh, entry.pod.Name, entry)
		tp.count(&entry.part, +1)
		tp.move(nil, &entry, fresh)
	}
	return tp
}

// initMissing starts a task with no pods: every pod in range is missing.
// It costs O(replicas), once per task (and per change of replicas or job
// name); tp.missing must be empty, so it is filled in place.
func (tp *TaskPods) initMissing(s shape, task string, e hamt.Edit) {
	fresh := hamt.Edit{Gen: e.Gen}
	replicas, _ := s.replicas(task)
	for i := 0; i < int(replicas); i++ {
		tp.missing, _, _ = tp.missing.SetIn(fresh, vcjob.PodName(s.job, task, i), i)
	}
}

// count adds (sign +1) or takes away (sign −1) a pod's part in the
// counts.
func (tp *TaskPods) count(pt *podPart, sign int32) {
	c := &tp.counts
	if pt.phase == corev1.PodSucceeded {
		c.Succeeded += sign
	}
	c.Restarts += sign * pt.restarts
	if !pt.inRange {
		return
	}
	c.InRange += sign
	if pt.ready {
		c.Ready += sign
	}
	if pt.terminating {
		c.Terminating += sign
	} else {
		c.Phases.Add(pt.phase, sign)
	}
}

// move updates the sets a pod is in as it goes from old to new under edit
// e; old is nil for a pod arriving, new for one leaving. A pod that stays
// in a set has its entry replaced where it is, not taken out and put back,
// so a steady pod update allocates nothing.
func (tp *TaskPods) move(old, new *podEntry, e hamt.Edit) {
	var name string
	var pod *corev1.Pod
	var was, is podPart
	if old != nil {
		name, was = old.pod.Name, old.part
	}
	if new != nil {
		name, pod, is = new.pod.Name, new.pod, new.part
	}
	switch {
	case old == nil && is.inRange:
		tp.missing, _ = tp.missing.DeleteIn(e, name)
	case new == nil && was.inRange:
		tp.missing, _, _ = tp.missing.SetIn(e, name, was.index)
	}
	tp.excess = within(tp.excess, old != nil && !was.inRange, new != nil && !is.inRange, name, pod, e)
	tp.outOfSync = within(tp.outOfSync, was.outOfSync, is.outOfSync, name, pod, e)
	if was.hasPartition && (!is.hasPartition || was.partition != is.partition) {
		tp.setPartition(was.partition, within(tp.partition(was.partition), true, false, name, nil, e), e)
	}
	if is.hasPartition {
		tp.setPartition(is.partition, within(tp.partition(is.partition), false, true, name, pod, e), e)
	}
}

func (tp *TaskPods) partition(id string) hamt.Map[*corev1.Pod] {
	members, _ := tp.partitions.Get(id)
	return members
}

func (tp *TaskPods) setPartition(id string, members hamt.Map[*corev1.Pod], e hamt.Edit) {
	if members.Len() == 0 {
		tp.partitions, _ = tp.partitions.DeleteIn(e, id)
	} else {
		tp.partitions, _, _ = tp.partitions.SetIn(e, id, members)
	}
}

// within keeps set m in step with a pod that was in it (or not) and is in
// it now (or not): put in (or its entry replaced), or taken out.
func within(m hamt.Map[*corev1.Pod], was, is bool, name string, pod *corev1.Pod, e hamt.Edit) hamt.Map[*corev1.Pod] {
	switch {
	case is:
		m, _, _ = m.SetIn(e, name, pod)
	case was:
		m, _ = m.DeleteIn(e, name)
	}
	return m
}

// inRange reports whether name is the name of the task's pod at an index
// below its replicas, and which.
func inRange(s shape, task, name string) (int, bool) {
	replicas, ok := s.replicas(task)
	if !ok {
		return 0, false
	}
	i, ok := vcjob.PodNameIndex(name, s.job, task)
	return i, ok && i < int(replicas)
}

func restarts(pod *corev1.Pod) int32 {
	var n int32
	for _, cs := range pod.Status.InitContainerStatuses {
		n += cs.RestartCount
	}
	for _, cs := range pod.Status.ContainerStatuses {
		n += cs.RestartCount
	}
	return n
}

// containersReady reports whether every app container of pod is ready (a
// pod without container statuses counts as ready).
func containersReady(pod *corev1.Pod) bool {
	for _, cs := range pod.Status.ContainerStatuses {
		if !cs.Ready {
			return false
		}
	}
	return true
}
