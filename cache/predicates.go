package cache

import "github.com/vcjob/vcjob/jobinfo"

// DefaultTaskMaxRetry is what a task maxRetry of 0 means to the task-failed
// predicate.
const DefaultTaskMaxRetry = 3

// TaskCompleted reports whether a task has as many Succeeded pods as
// replicas (a task of zero replicas never completes).
func TaskCompleted(ji *jobinfo.Info, task string) bool {
	if ji == nil || ji.Job == nil {
		return false
	}
	t := ji.Job.Task(task)
	if t == nil || t.Replicas <= 0 {
		return false
	}
	return ji.Task(task).Counts().Succeeded >= t.Replicas
}

// TaskFailed reports whether a task has used up its retries: the restart
// counts of all init and app containers of its Running and Pending pods
// add up to its maxRetry or more. A maxRetry of −1 never fails; 0 means
// DefaultTaskMaxRetry.
func TaskFailed(ji *jobinfo.Info, task string) bool {
	if ji == nil || ji.Job == nil {
		return false
	}
	t := ji.Job.Task(task)
	if t == nil || t.MaxRetry == -1 {
		return false
	}
	max := t.MaxRetry
	if max == 0 {
		max = DefaultTaskMaxRetry
	}
	return ji.Task(task).Counts().Restarts >= max
}
