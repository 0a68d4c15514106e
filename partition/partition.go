package partition

import (
	"iter"
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
)

// ID is the partition of the pod at index in a task whose partitions hold
// size pods each. A size of zero or less puts every pod in partition "0",
// as Volcano does rather than divide by zero.
func ID(index int, size int32) string {
	if size <= 0 {
		return "0"
	}
	return strconv.Itoa(index / int(size))
}

// OfPod reads the partition id a pod carries in its label.
func OfPod(pod *corev1.Pod) (string, bool) {
	id, ok := pod.Labels[vcjob.PartitionIDKey]
	return id, ok
}

// Members returns the pods of a task that carry partition id, sorted by
// name, by walking them all. An empty id has no members. A JobInfo keeps
// the members of each partition: jobinfo.TaskPods.Partition reads them
// without a walk.
func Members(pods iter.Seq2[string, *corev1.Pod], id string) []*corev1.Pod {
	if id == "" {
		return nil
	}
	var out []*corev1.Pod
	for _, p := range pods {
		if got, ok := OfPod(p); ok && got == id {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Group splits a task's pods by partition id; pods without the label, or
// with an empty one, are left out, as Members finds no member for an
// empty id.
func Group(pods iter.Seq2[string, *corev1.Pod]) map[string][]*corev1.Pod {
	out := map[string][]*corev1.Pod{}
	for _, p := range pods {
		if id, ok := OfPod(p); ok && id != "" {
			out[id] = append(out[id], p)
		}
	}
	for _, ps := range out {
		sort.Slice(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
	}
	return out
}

// Of returns the partition of the pod at index in task, and false when the
// task has no partition policy.
func Of(task *vcjob.TaskSpec, index int) (string, bool) {
	if task == nil || task.PartitionPolicy == nil {
		return "", false
	}
	return ID(index, task.PartitionPolicy.PartitionSize), true
}
