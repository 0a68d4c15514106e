package vcjob

import (
	"math"
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

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
	var i int64
	for j := 0; j < len(digits); j++ {
		c := digits[j]
		if c < '0' || c > '9' {
			return 0, false
		}
		i = i*10 + int64(c-'0')
	}
	// Replicas are int32: a larger index is never in range, and would not
	// fit an int on a 32-bit machine.
	if i > math.MaxInt32 {
		return 0, false
	}
	return int(i), true
}

// PodIndex reads a pod's task index from its volcano.sh/task-index label or
// annotation; ok is false when neither holds an integer.
func PodIndex(pod *corev1.Pod) (int, bool) {
	if pod == nil {
		return 0, false
	}
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
