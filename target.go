package vcjob

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// Target is what an action acts on: the whole job, or one task, one
// partition of a task, or one pod.
type Target struct {
	Level       Level  `json:"level"`
	TaskName    string `json:"taskName,omitempty"`
	PodName     string `json:"podName,omitempty"`
	PartitionID string `json:"partitionID,omitempty"`
}

// TargetOf is the target of action when it was resolved for req: the task
// for RestartTask, the task and pod for RestartPod, the task, pod and
// partition for RestartPartition, the job for every other action.
func TargetOf(action Action, req Request) Target {
	switch action {
	case RestartTaskAction:
		return Target{Level: TaskLevel, TaskName: req.TaskName}
	case RestartPodAction:
		return Target{Level: PodLevel, TaskName: req.TaskName, PodName: req.PodName}
	case RestartPartitionAction:
		return Target{Level: PartitionLevel, TaskName: req.TaskName, PodName: req.PodName, PartitionID: req.PartitionID}
	}
	return Target{Level: JobLevel}
}

// Takes reports whether a targeted kill of t takes pod, judged as Volcano
// judges it: by the pod's task-spec annotation, then its name (a pod
// target) or its partition-id label (a partition target; an empty id takes
// nothing). A job-level target takes no pod here: a whole-job kill is not
// a targeted one.
func (t Target) Takes(pod *corev1.Pod) bool {
	if pod == nil || pod.Annotations[TaskSpecKey] != t.TaskName {
		return false
	}
	switch t.Level {
	case TaskLevel:
		return true
	case PodLevel:
		return pod.Name == t.PodName
	case PartitionLevel:
		id, ok := pod.Labels[PartitionIDKey]
		return ok && t.PartitionID != "" && id == t.PartitionID
	}
	return false
}

// String says what the target names: "job", "task worker", "pod
// mnist-worker-1 of task worker", "partition 2 of task worker (from pod
// mnist-worker-5)".
func (t Target) String() string {
	switch t.Level {
	case TaskLevel:
		return fmt.Sprintf("task %s", t.TaskName)
	case PodLevel:
		return fmt.Sprintf("pod %s of task %s", t.PodName, t.TaskName)
	case PartitionLevel:
		s := fmt.Sprintf("partition %q of task %s", t.PartitionID, t.TaskName)
		if t.PodName != "" {
			s += " (from pod " + t.PodName + ")"
		}
		return s
	}
	return "job"
}
