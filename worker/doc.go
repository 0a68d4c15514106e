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
//	rec := s.Process(ctx, req, now)
//	for _, e := range rec.Events {
//		recorder.Event(job, e.Type, e.Reason, e.Message) // what kubectl describe shows
//	}
//	if rec.Err != nil {
//		if worker.Requeue(requeues, maxRequeues) {
//			// requeue req, rate-limited
//		} else {
//			s.GiveUp(ctx, rec, now) // "retry limit reached": TerminateJob
//		}
//	}
//	for _, e := range s.Delays.Due(now) {
//		s.Fire(ctx, e, now)
//	}
//
// The step sits above cache, delay, policy and statemachine and is the only
// package that knows all four, so that none of them needs another: the
// dependency arrows keep pointing one way, towards the root package. It
// holds no clock (time is a parameter) and starts no goroutine; a Step is
// not safe for concurrent use, which matches Volcano's one worker per job
// shard. The context each method takes reaches every cluster call the
// step makes.
//
// A Record carries the Kubernetes Events Volcano's worker records in the
// step (record.Event values, not vcjob.Event pod events), in Volcano's
// order: processNextReq's ExecuteAction Event, then the call's
// (statemachine.Effects.Events):
//
//	Normal  ExecuteAction  Execute action AbortJob after 10m0s       (a delayed action registered)
//	Normal  ExecuteAction  Start to execute action RestartJob        (any action but SyncJob, run at once; a trailing space)
//	Normal  ExecuteAction  Job failed on action SyncJob for retry limit reached   (GiveUp)
//
// A delayed action that fires records only its call's Events. Volcano's
// command handler records CommandIssued before the request is queued:
// cache.Cache.OnCommand.
//
// The step follows Cluster.Behavior (and each job's behavior.Annotation,
// vcjob.dev/semantics) and each job's policy extensions: it keeps a deadline
// registered as a delayed action, registers a SyncJob for the end of a
// restart backoff that held pods back, and keeps a policy.History per job
// for the retry budget and the escalation.
//
// # Where things are
//
//	step.go                         Step, Process, Fire, GiveUp, Record, Requeue, DeleteBackoff
//	events.go                       DecisionEvents and the ExecuteAction Events
//	extensions.go                   the delayed actions of the policy extensions: DeadlineEvent, BackoffEvent
//	failure_policy_before_sync.go   behavior.FailurePolicyBeforeSync
//	*_test.go                       step_test.go and events_test.go beside their files; lease_test.go: Leaser
//	differences_test.go             each correction the step follows, against Volcano's behaviour
//	extensions_property_test.go     rapid properties: disruptions spend no retry, a deadline ends the job
package worker
