package vcjob

import "fmt"

// Event is what happened to a job, a task or a pod (Volcano's bus event).
type Event string

// Events a lifecycle policy may name.
const (
	AnyEvent           Event = "*"
	PodFailedEvent     Event = "PodFailed"
	PodEvictedEvent    Event = "PodEvicted"
	PodPendingEvent    Event = "PodPending"
	JobUnknownEvent    Event = "Unknown"
	TaskCompletedEvent Event = "TaskCompleted"
	TaskFailedEvent    Event = "TaskFailed"
	JobUpdatedEvent    Event = "JobUpdated"
)

// Events the controller raises for itself; a policy may not name them.
const (
	PodRunningEvent    Event = "PodRunning"
	OutOfSyncEvent     Event = "OutOfSync"
	CommandIssuedEvent Event = "CommandIssued"
)

// IsInternal reports whether e is raised by the controller for itself
// (OutOfSync, CommandIssued, PodRunning): such events always sync.
func (e Event) IsInternal() bool {
	return e == OutOfSyncEvent || e == CommandIssuedEvent || e == PodRunningEvent
}

// PolicyEvents lists the events a lifecycle policy may name.
func PolicyEvents() []Event {
	return []Event{AnyEvent, PodFailedEvent, PodEvictedEvent, PodPendingEvent, JobUnknownEvent, TaskCompletedEvent, TaskFailedEvent, JobUpdatedEvent}
}

// Action is what the controller does to a job (Volcano's bus action).
type Action string

// Actions a lifecycle policy or a command may name.
const (
	AbortJobAction         Action = "AbortJob"
	RestartJobAction       Action = "RestartJob"
	RestartTaskAction      Action = "RestartTask"
	RestartPodAction       Action = "RestartPod"
	RestartPartitionAction Action = "RestartPartition"
	TerminateJobAction     Action = "TerminateJob"
	CompleteJobAction      Action = "CompleteJob"
	ResumeJobAction        Action = "ResumeJob"
)

// Actions the controller uses internally.
const (
	SyncJobAction    Action = "SyncJob"
	EnqueueAction    Action = "EnqueueJob"
	SyncQueueAction  Action = "SyncQueue"
	OpenQueueAction  Action = "OpenQueue"
	CloseQueueAction Action = "CloseQueue"
)

// PolicyActions lists the actions a lifecycle policy may name.
func PolicyActions() []Action {
	return []Action{AbortJobAction, RestartJobAction, RestartTaskAction, RestartPodAction, RestartPartitionAction, TerminateJobAction, CompleteJobAction, ResumeJobAction}
}

// IsInternal reports whether a is one of the controller's own actions
// (SyncJob and the queue actions); running one never cancels delayed actions.
func (a Action) IsInternal() bool {
	switch a {
	case SyncJobAction, EnqueueAction, SyncQueueAction, OpenQueueAction, CloseQueueAction:
		return true
	}
	return false
}

// Level is how much of a job an action touches.
type Level int

// The levels, from the whole job down to one pod.
const (
	JobLevel Level = iota
	TaskLevel
	PartitionLevel
	PodLevel
)

func (l Level) String() string {
	switch l {
	case JobLevel:
		return "job"
	case TaskLevel:
		return "task"
	case PartitionLevel:
		return "partition"
	case PodLevel:
		return "pod"
	}
	return "unknown"
}

// MarshalText writes the level's name ("job", "task", "partition", "pod"),
// so that JSON says what a target is instead of a number.
func (l Level) MarshalText() ([]byte, error) {
	if l < JobLevel || l > PodLevel {
		return nil, fmt.Errorf("vcjob: unknown target level %d", int(l))
	}
	return []byte(l.String()), nil
}

// UnmarshalText reads a level's name, as MarshalText writes it.
func (l *Level) UnmarshalText(text []byte) error {
	for _, c := range [...]Level{JobLevel, TaskLevel, PartitionLevel, PodLevel} {
		if string(text) == c.String() {
			*l = c
			return nil
		}
	}
	return fmt.Errorf("vcjob: unknown target level %q (job, task, partition, pod)", text)
}

// Level says what an action targets: RestartTask a task, RestartPod a pod,
// RestartPartition a partition, every other action the whole job.
func (a Action) Level() Level {
	switch a {
	case RestartTaskAction:
		return TaskLevel
	case RestartPodAction:
		return PodLevel
	case RestartPartitionAction:
		return PartitionLevel
	}
	return JobLevel
}
