// Package worker is the processing step: what one of Volcano's job
// workers does with one request, assembled from the pure parts of vcjob.
//
// For each request, Process cancels the pod's delayed actions the event
// makes moot, snapshots the job from the cache (a lease, given back when
// the step ends, when the cache is a Leaser), resolves the policy, and
// then either registers a delayed action or runs the action through the
// state machine and cancels the delayed actions of the same level. Fire
// does the same for a delayed action that came due. Both return a Record
// of everything they decided, for logs, explanations and tests.
//
//	s := &worker.Step{Jobs: jobCache, Delays: delay.New(), Cluster: &statemachine.Applied{Applier: myApplier}}
//	rec := s.Process(req, now)
//	if rec.Err != nil && worker.Requeue(requeues, maxRequeues) { ... }
//	for _, e := range s.Delays.Due(now) {
//		s.Fire(e, now)
//	}
//
// The step sits above cache, delay, policy and statemachine and is the only
// package that knows all four, so that none of them needs another: the
// dependency arrows keep pointing one way, towards the root package. It
// holds no clock (time is a parameter) and starts no goroutine; a Step is
// not safe for concurrent use, which matches Volcano's one worker per job
// shard.
//
// The step follows Cluster.Semantics (and each job's vcjob.dev/semantics
// annotation) and each job's policy extensions: it keeps a deadline
// registered as a delayed action, registers a SyncJob for the end of a
// restart backoff that held pods back, and keeps a policy.History per job
// for the retry budget and the escalation.
package worker
