// Package intake turns what the job controller's informers show into its
// requests: the event handlers of jobs, pods and PodGroups hand each
// change to vcjob's cache (which returns the requests) and tell the
// expectations what was observed; a job Volcano's webhook would refuse is
// left alone until an update makes it valid. Commands (bus.volcano.sh)
// are taken on a goroutine of their own: deleted, then their request
// queued. Nothing here knows the workers: the requests go to Config's
// Enqueue, Wake and Forget.
//
//	h := intake.New(intake.Config{Jobs: jobs, Expectations: e, Metrics: m,
//		CommandStore: cmds.Informer().GetIndexer(), Enqueue: enqueue, Wake: wake, Forget: forget, ...})
//	pods.AddEventHandler(h.Pods())
//	go h.RunCommands(ctx)
package intake
