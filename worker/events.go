package worker

import (
	"time"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/record"
)

// ReasonExecuteAction is the reason of the Normal Events Volcano's worker
// records about the actions it takes (Record.Events).
const ReasonExecuteAction = "ExecuteAction"

// DecisionEvents are the Events Volcano's processNextReq records for a
// request resolved to action after delay, before anything else it does:
// a delayed action is registered (DelayedActionEvent), an action other
// than SyncJob runs at once (ExecuteActionEvent); a SyncJob run at once
// records none (nil).
func DecisionEvents(action vcjob.Action, delay time.Duration) []record.Event {
	switch {
	case delay != 0:
		return []record.Event{DelayedActionEvent(action, delay)}
	case action != vcjob.SyncJobAction:
		return []record.Event{ExecuteActionEvent(action)}
	}
	return nil
}

// DelayedActionEvent is the Event of a delayed action registered:
// "Execute action <action> after <delay>", the delay as Go prints a
// time.Duration (10m0s).
func DelayedActionEvent(action vcjob.Action, delay time.Duration) record.Event {
	return record.Normalf(ReasonExecuteAction, "Execute action %s after %s", action, delay.String())
}

// ExecuteActionEvent is the Event of an action other than SyncJob about
// to run at once: "Start to execute action <action> ", with the trailing
// space Volcano writes.
func ExecuteActionEvent(action vcjob.Action) record.Event {
	return record.Normalf(ReasonExecuteAction, "Start to execute action %s ", action)
}

// RetryLimitEvent is the Event of a request given up (Step.GiveUp): "Job
// failed on action <action> for retry limit reached", the action being
// the failed request's.
func RetryLimitEvent(action vcjob.Action) record.Event {
	return record.Normalf(ReasonExecuteAction, "Job failed on action %s for retry limit reached", action)
}
