// Package ttl decides what Volcano's garbage collector does with a
// batch.volcano.sh/v1alpha1 Job's spec.ttlSecondsAfterFinished: whether a
// change of the job queues it, whether it has finished and needs cleanup,
// how long it has left, whether it has expired, when to look at it again,
// and the delete to send. It follows Volcano's garbage collector
// (pkg/controllers/garbagecollector), itself a port of Kubernetes'
// ttlafterfinished controller for Jobs.
//
// Every function but Process is pure: it takes the job and the time,
// reads no clock, keeps no state and touches no cluster. Process is the
// one place that reaches the API server, through the API interface: a
// controller and a test drive the same code.
//
// The rules, each where its code is:
//   - Finished (finished.go): the phase is Completed, Failed or Terminated.
//     Aborted is not finished here, so an Aborted job is never cleaned up.
//   - NeedsCleanup (finished.go): ttlSecondsAfterFinished is set and the
//     job is Finished. A ttl of 0 deletes the job as soon as it finishes;
//     a negative ttl (refused by the CRD's schema) is counted as written,
//     so the job is already expired when it finishes.
//   - Enqueues (finished.go): an add or update of a job without a
//     deletion timestamp that needs cleanup queues it.
//   - ExpiryOf and TimeLeft (expiry.go): the job expires at
//     status.state.lastTransitionTime + ttl; the time left is that minus
//     now. A job that does not need cleanup is a *NoCleanupError, a zero
//     lastTransitionTime a *NoFinishTimeError, both with Volcano's texts. A
//     job that finished in the future (clock skew) just waits longer.
//   - Check (check.go): a job being deleted, or not needing cleanup, is
//     left alone; one with time left zero or less has expired; any other
//     is looked at again when its time is up.
//   - DeleteOptions (delete.go): Foreground propagation and a precondition
//     on the UID of the copy read from the API server.
//   - Process (process.go): the processing of one queued job: Check on the
//     cached copy; if it expired, read the job again from the API server
//     and Check that copy; if it expired too, delete it. The result says
//     what to do with the key: done, requeue after a time, or retry with
//     backoff after an error.
//
// Against Kubernetes' controller for batch/v1 Jobs: the rules and the
// delete are the same, and so are the error texts of the time left, but
// Kubernetes counts from the time of the Job's Complete or Failed
// condition, where Volcano counts from status.state.lastTransitionTime (the
// time of the job's last phase change); Volcano's Terminated counts as
// finished, and Aborted, which Kubernetes has no counterpart for, does not.
//
// A controller's worker, for one key of its queue:
//
//	job, _ := lister.Get(key) // nil when the informer holds none
//	r := ttl.Process(ctx, api, job, time.Now)
//	switch r.Next {
//	case ttl.Done:
//		queue.Forget(key)
//	case ttl.RequeueAfter:
//		queue.Forget(key)
//		queue.AddAfter(key, r.After)
//	case ttl.Retry:
//		queue.AddRateLimited(key) // r.Err says why
//	}
//
// and its informer's add and update handlers queue a job when
// ttl.Enqueues(job).
//
// # Where things are
//
//	finished.go        Finished, NeedsCleanup, Enqueues
//	expiry.go          ExpiryOf, Expiry, TimeLeft, NoCleanupError, NoFinishTimeError
//	check.go           Check, Verdict: leave alone, expired, look again
//	delete.go          DeleteOptions: Foreground, UID precondition
//	process.go         Process, API, Result, Next: the one function that reaches the API server
//	*_test.go          a table test beside each file
//	property_test.go   rapid properties: only finished jobs expire, a deletion stops, Process
package ttl
