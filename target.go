package vcjob

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
