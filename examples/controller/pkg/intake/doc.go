// Package intake turns what a job controller's informers show into its
// requests: the event handlers of Jobs, Pods and PodGroups hand each
// change to vcjob's cache (which returns the requests) and tell the
// expectations what was observed; a job Volcano's webhook would refuse
// is left alone (logged and counted) until an update makes it valid.
// Commands (bus.volcano.sh) are taken on a goroutine of their own
// (RunCommands): deleted with their UID as precondition, then their
// request queued. The handlers never call the API server, and nothing
// here knows the workers: the requests go to Config.Enqueue.
//
// Handlers need the cache the steps read (cache.New), the Expectations
// the Applier writes into (package expectations), the counters
// (metrics.New), the Volcano client and the Command informer's store (to
// take Commands) and Enqueue; Wake (a job's created pods have all been
// shown), Forget (a job was deleted) and RecordEvents (a Command's
// Events) are optional. The handlers log with the logger of New's
// context.
//
//	h := intake.New(ctx, intake.Config{Jobs: jobs, Expectations: exp, Metrics: m,
//		Volcano: set.Volcano, CommandStore: volcano.Commands().Informer().GetIndexer(),
//		Enqueue: func(r request.Request) { queue.Add(r) }})
//	_, err := pods.Informer().AddEventHandler(h.Pods()) // and h.Jobs(), h.PodGroups(), h.Commands()
//	go h.RunCommands(ctx)
//	defer h.ShutDown()
//
// Example (example_test.go) runs it on fake clients; the job controller
// of this module (internal/controller/job) runs it so.
package intake
