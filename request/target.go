package request

import (
	"fmt"

	"github.com/vcjob/vcjob"
	corev1 "k8s.io/api/core/v1"
)

// Target is what an action acts on: the whole job, or one task, one
// partition of a task, or one pod.
type Target struct {
	Level       vcjob.Level `json:"level"`
	TaskName    string      `json:"taskName,omitempty"`
	PodName     string      `json:"podName,omitempty"`
	PartitionID string      `json:"partitionID,omitempty"`
}

// TargetOf is the target of action when it was resolved for req: the task
// for RestartTask, the task and pod for RestartPod, the task, pod and
// partition for RestartPartition, the job for every other action.
func TargetOf(action vcjob.Action, req Request) Target {
	switch action {
	case vcjob.RestartTaskAction:
		return Target{Level: vcjob.TaskLevel, TaskName: req.TaskName}
	case vcjob.RestartPodAction:
		return Target{Level: vcjob.PodLevel, TaskName: req.TaskName, PodName: req.PodName}
	case vcjob.RestartPartitionAction:
		return Target{Level: vcjob.PartitionLevel, TaskName: req.TaskName, PodName: req.PodName, PartitionID: req.PartitionID}
	}
	return Target{Level: vcjob.JobLevel}
}

// Takes reports whether a targeted kill of t takes pod, judged as Volcano
// judges it: by the pod's task-spec annotation, then its name (a pod
// target) or its partition-id label (a partition target; an empty id takes
// nothing). A job-level target takes no pod here: a whole-job kill is not
// a targeted one.
func (t Target) Takes(pod *corev1.Pod) bool {
	if pod == nil || pod.Annotations[vcjob.TaskSpecKey] != t.TaskName {
		return false
	}
	switch t.Level {
	case vcjob.TaskLevel:
		return true
	case vcjob.PodLevel:
		return pod.Name == t.PodName
	case vcjob.PartitionLevel:
		id, ok := pod.Labels[vcjob.PartitionIDKey]
		return ok && t.PartitionID != "" && id == t.PartitionID
	}
	return false
}

// String says what the target names: "job", "task worker", "pod
// mnist-worker-1 of task worker", "partition 2 of task worker (from pod
// mnist-worker-5)".
func (t Target) String() string {
	switch t.Level {
	case vcjob.TaskLevel:
		return fmt.Sprintf("task %s", t.TaskName)
	case vcjob.PodLevel:
		return fmt.Sprintf("pod %s of task %s", t.PodName, t.TaskName)
	case vcjob.PartitionLevel:
		s := fmt.Sprintf("partition %q of task %s", t.PartitionID, t.TaskName)
		if t.PodName != "" {
			s += " (from pod " + t.PodName + ")"
		}
		return s
	}
	return "job"
}
