// Package delay owns delayed actions: the actions a policy with a
// timeout only schedules, registered under the job and the request's pod
// name, the rules that cancel them before they run, and the order in which
// they fall due.
//
// A Queue is pure and deterministic: it starts no goroutine, reads no clock
// and logs nothing; every call that depends on time takes the time from the
// caller. It is not safe for concurrent use, so the caller serialises
// access (the timerdriver sub-package wraps a Queue with a lock and a real
// timer).
//
// A worker handling one request does, in this order:
//
//	q.CancelForPodEvent(req) // before anything else; a no-op for non-pod events and PodPending
//	d := policy.Resolve(job, req)
//	if d.Delay > 0 {
//		q.Register(req, d.Action, d.Target, d.Delay, now) // false: the pod already waits for that action
//		return
//	}
//	run(d.Action, d.Target)
//	q.CleanupAfter(req.Namespace, req.JobName, d.Action, d.Target)
//
// and, whenever the clock reaches q.Next():
//
//	for _, e := range q.Due(now) {
//		run(e.Action, e.Target) // on the job's state at that time
//		q.CleanupAfter(e.Request.Namespace, e.Request.JobName, e.Action, e.Target)
//	}
//
// Volcano's quirks are kept: a second registration for a pod with another
// action replaces the first in the pod index without cancelling it, so the
// first becomes Orphaned and still fires, and no pod event or cleanup can
// cancel it any more.
//
// Under behavior.DelaysByPodUID an entry belongs to its pod's UID
// (RegisterByPodUID): a pod re-created under the same name neither cancels
// it nor has its own registration dropped as its duplicate.
//
// # Where things are
//
//	queue.go           Queue, Entry, New, Register, RegisterByPodUID, Due, Next, Pending, ForgetJob
//	cancel.go          CancelForPodEvent, CleanupAfter: the rules that cancel an entry before it runs
//	*_test.go          a test beside each file; byuid_test.go: behavior.DelaysByPodUID
//	property_test.go   TestQueueMatchesModel: rapid, the queue against a naive model
package delay
