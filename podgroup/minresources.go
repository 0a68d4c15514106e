package podgroup

import (
	"cmp"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/vcjob/vcjob"
)

// PriorityLookup resolves a PriorityClass name to its value. found is false
// when no such class exists. A nil PriorityLookup finds nothing.
type PriorityLookup func(priorityClassName string) (value int32, found bool)

// value is the priority of a class name; missing classes, the empty name
// and a nil lookup all give 0.
func (l PriorityLookup) value(name string) int32 {
	if l == nil || name == "" {
		return 0
	}
	if v, ok := l(name); ok {
		return v
	}
	return 0
}

// MinResources is the resource floor of a job's PodGroup: what the
// scheduler must find free before it admits the gang, the requests of the
// job's first spec.minAvailable pods as Volcano picks them.
//
// Tasks are ordered by the priority of their pod template's
// priorityClassName (looked up through priorities; a class that is not
// found counts 0), highest first, keeping the job's order among equals. A
// pod is charged as Volcano charges it, QuotaUsage of its template
// (count/pods, pods, requests.*, limits.* beside the bare names). Each
// task contributes its pod's charge times its pod count, so the cost
// depends on the number of tasks and resources, never on replica counts.
// A task contributing no pod adds no resource name; the result is never
// nil.
func MinResources(job *vcjob.Job, priorities PriorityLookup) corev1.ResourceList {
	return MinResourcesWith(job, Options{Priorities: priorities})
}

// Sizing is how MinResources charges one pod.
type Sizing int

const (
	// SizeByQuota charges what Kubernetes' quota evaluator charges,
	// QuotaUsage: Volcano's sizing, the default.
	SizeByQuota Sizing = iota
	// SizeByRequests charges the pod's effective requests only
	// (PodRequest), the names a scheduler reads: vcjob's own choice, on
	// request. A PodGroup Volcano wrote is then rewritten once.
	SizeByRequests
)

// Options say how to build a PodGroup beyond the job itself.
type Options struct {
	// Priorities looks up the tasks' priority classes; nil counts every
	// task as priority 0.
	Priorities PriorityLookup
	// Sizing is how minResources charges a pod.
	Sizing Sizing
}

// MinResourcesWith is MinResources with the given options.
func MinResourcesWith(job *vcjob.Job, opts Options) corev1.ResourceList {
	charge := QuotaUsage
	if opts.Sizing == SizeByRequests {
		charge = PodRequest
	}
	out := corev1.ResourceList{}
	if job == nil {
		return out
	}
	tasks := byPriority(job.Spec.Tasks, opts.Priorities)
	// Counts are int64 where Volcano uses int32, so absurd replica counts
	// cannot overflow; every valid job gives the same result.
	want := int64(job.Spec.MinAvailable)
	if want < minAvailableTotal(tasks) {
		addFirstPods(out, charge, tasks, want)
		return out
	}
	if have := addTaskMinimums(out, charge, tasks, want); have < want {
		addSpareReplicas(out, charge, tasks, want-have)
	}
	return out
}

// minAvailableTotal is the sum over tasks of minAvailable (replicas when
// nil).
func minAvailableTotal(tasks []*vcjob.TaskSpec) int64 {
	var total int64
	for _, t := range tasks {
		if t.MinAvailable != nil {
			total += int64(*t.MinAvailable)
		} else {
			total += int64(t.Replicas)
		}
	}
	return total
}

// addFirstPods adds the first n pods in the tasks' order, taking each
// task's replicas in turn: the floor when the job asks for fewer pods
// than its tasks' minimums add up to.
func addFirstPods(out corev1.ResourceList, charge func(*corev1.PodSpec) corev1.ResourceList, tasks []*vcjob.TaskSpec, n int64) {
	left := n
	for _, t := range tasks {
		if left <= int64(t.Replicas) {
			addPods(out, charge, t, left)
			return
		}
		addPods(out, charge, t, int64(t.Replicas))
		left -= int64(t.Replicas)
	}
}

// addTaskMinimums adds, for each task with minAvailable set, min(minAvailable,
// pods still missing of want) pods, and returns how many it added.
func addTaskMinimums(out corev1.ResourceList, charge func(*corev1.PodSpec) corev1.ResourceList, tasks []*vcjob.TaskSpec, want int64) int64 {
	var have int64
	for _, t := range tasks {
		if t.MinAvailable == nil {
			continue
		}
		n := int64(*t.MinAvailable)
		if left := want - have; left < n {
			n = left
		}
		addPods(out, charge, t, n)
		have += n
		if have >= want {
			break
		}
	}
	return have
}

// addSpareReplicas adds the left pods still missing from each task's
// remaining replicas in the tasks' order (replicas − minAvailable, or all
// replicas for a task whose minAvailable is nil).
func addSpareReplicas(out corev1.ResourceList, charge func(*corev1.PodSpec) corev1.ResourceList, tasks []*vcjob.TaskSpec, left int64) {
	for _, t := range tasks {
		spare := int64(t.Replicas)
		if t.MinAvailable != nil {
			if *t.MinAvailable == t.Replicas {
				continue
			}
			spare = int64(t.Replicas) - int64(*t.MinAvailable)
		}
		// Volcano's arithmetic, kept as is: a negative spare (minAvailable
		// above replicas, which validation rejects) adds nothing and
		// raises the count still missing.
		if left >= spare {
			addPods(out, charge, t, spare)
			left -= spare
		} else {
			addPods(out, charge, t, left)
			left = 0
		}
		if left <= 0 {
			break
		}
	}
}

// byPriority returns the tasks in a stable order, highest priority first.
func byPriority(tasks []vcjob.TaskSpec, priorities PriorityLookup) []*vcjob.TaskSpec {
	type ranked struct {
		task *vcjob.TaskSpec
		prio int32
	}
	rs := make([]ranked, len(tasks))
	for i := range tasks {
		rs[i] = ranked{&tasks[i], priorities.value(tasks[i].Template.Spec.PriorityClassName)}
	}
	slices.SortStableFunc(rs, func(a, b ranked) int { return cmp.Compare(b.prio, a.prio) })
	out := make([]*vcjob.TaskSpec, len(rs))
	for i, r := range rs {
		out[i] = r.task
	}
	return out
}

// addPods adds n pods of task t to out; n ≤ 0 adds nothing, not even a
// resource name.
func addPods(out corev1.ResourceList, charge func(*corev1.PodSpec) corev1.ResourceList, t *vcjob.TaskSpec, n int64) {
	if n <= 0 {
		return
	}
	for name, q := range charge(&t.Template.Spec) {
		p := times(q, n)
		if have, ok := out[name]; ok {
			have.Add(p)
			out[name] = have
		} else {
			out[name] = p
		}
	}
}

// times is q·n (n ≥ 1) as a new quantity in q's format. Whole and milli
// quantities whose product fits in an int64 stay in int64 form; anything
// else is multiplied exactly as a decimal.
func times(q resource.Quantity, n int64) resource.Quantity {
	if n == 1 {
		return q.DeepCopy()
	}
	if v, ok := q.AsInt64(); ok && fits(v, n) {
		return *resource.NewQuantity(v*n, q.Format)
	}
	if m := q.MilliValue(); fits(m, n) && resource.NewMilliQuantity(m, q.Format).Cmp(q) == 0 {
		return *resource.NewMilliQuantity(m*n, q.Format)
	}
	c := q.DeepCopy()
	d := c.AsDec() // c's own decimal, multiplied in place
	d.Mul(d, resource.NewQuantity(n, resource.DecimalSI).AsDec())
	return *resource.NewDecimalQuantity(*d, q.Format)
}

// fits reports whether v·n (n ≥ 1) fits in an int64.
func fits(v, n int64) bool {
	return v <= math.MaxInt64/n && v >= math.MinInt64/n
}
