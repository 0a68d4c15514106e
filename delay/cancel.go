package delay

import (
	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/request"
)

// CancelForPodEvent applies the pod-event cancellation for req, and
// must be called before anything else is done with req. It looks only at
// the entry req's pod holds in the pod index, and cancels it when
//   - it was registered for PodPending and req.PodUID equals the registered
//     request's PodUID (two empty UIDs are equal, as in Volcano), or
//   - it was registered for PodFailed or PodEvicted and req.Event is
//     PodRunning.
//
// Only pod events take part, as in Volcano (its isPodEvent: PodPending,
// PodRunning, PodFailed, PodEvicted), and PodPending itself never cancels:
// for any other event (TaskCompleted, TaskFailed, OutOfSync, ...) and for
// PodPending this returns nil, so a caller may pass every request.
//
// Orphaned entries are not in the pod index and are never cancelled here:
// this reproduces Volcano, which only looks at the map entry for the pod.
//
// It returns what it cancelled (nothing or one entry).
func (q *Queue) CancelForPodEvent(req request.Request) []Entry {
	switch req.Event {
	case vcjob.PodRunningEvent, vcjob.PodFailedEvent, vcjob.PodEvictedEvent:
	default:
		return nil
	}
	je := q.jobs[req.Key()]
	if je == nil {
		return nil
	}
	var out []Entry
	if it := je.pods[req.PodName]; it != nil && q.cancelFor(it, req) {
		out = append(out, it.Entry)
	}
	if je.byUID > 0 {
		// An entry held by pod UID: only its own pod's events reach it.
		if it := je.pods[uidKey(req.PodName, string(req.PodUID))]; it != nil && q.cancelFor(it, req) {
			out = append(out, it.Entry)
		}
	}
	return out
}

// cancelFor cancels it when req's event makes it moot, and reports whether
// it did.
func (q *Queue) cancelFor(it *item, req request.Request) bool {
	cancel := false
	switch it.Request.Event {
	case vcjob.PodPendingEvent:
		// The same pod has moved on from Pending. A pod recreated under the
		// same name has another UID, and its events leave the old pod's
		// entry alone.
		cancel = req.PodUID == it.Request.PodUID
	case vcjob.PodFailedEvent, vcjob.PodEvictedEvent:
		// The pod came back; Volcano does not compare UIDs here.
		cancel = req.Event == vcjob.PodRunningEvent
	}
	if cancel {
		q.remove(it)
	}
	return cancel
}

// CleanupAfter cancels the job's pending entries of the same level as
// action, which has just run on target: after a job-level action
// every job-level entry of the job; after RestartTask the task-level
// entries of target.TaskName; after RestartPod the pod-level entries of
// target.PodName; after RestartPartition the partition-level entries of
// target.PartitionID. An entry's level is its action's Level, and it is
// compared through its own Target. Internal actions (SyncJob and the queue
// actions) cancel nothing. Call it after an action ran at once and after an
// entry returned by Due ran. It returns what it cancelled, in (Due, ID)
// order.
//
// Two behaviours reproduce Volcano (cleanupDelayActions):
//   - Only the pod index is walked, so an Orphaned entry is never cancelled
//     here; it still fires.
//   - RestartPod compares pod names only and RestartPartition compares
//     partition ids only, not task names. Partition ids restart at "0" in
//     every task, so a RestartPartition of task a's partition "0" also
//     cancels a pending RestartPartition of task b's partition "0". It looks
//     like a bug; it is Volcano's behaviour.
func (q *Queue) CleanupAfter(namespace, job string, action vcjob.Action, target request.Target) []Entry {
	if action.IsInternal() {
		return nil
	}
	je := q.jobs[request.JobKey(namespace, job)]
	if je == nil {
		return nil
	}
	level := action.Level()
	var victims []*item
	for _, it := range je.pods {
		if it.Action.Level() != level {
			continue
		}
		switch level {
		case vcjob.TaskLevel:
			if it.Target.TaskName != target.TaskName {
				continue
			}
		case vcjob.PodLevel:
			if it.Target.PodName != target.PodName {
				continue
			}
		case vcjob.PartitionLevel:
			if it.Target.PartitionID != target.PartitionID {
				continue
			}
		}
		victims = append(victims, it)
	}
	out := make([]Entry, 0, len(victims))
	for _, it := range victims {
		q.remove(it)
		out = append(out, it.Entry)
	}
	if len(out) == 0 {
		return nil
	}
	sortEntries(out)
	return out
}
