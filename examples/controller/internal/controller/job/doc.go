// Package job is the Volcano Job controller on client-go: it takes its
// informers from the shared factories, feeds their events to vcjob's
// cache through package intake, shards the requests by job over workers,
// each running vcjob's processing step (worker.Step) with its own delay
// queue, and writes what the steps decide through package applier. A
// job's requests all go to one worker, which handles them in order.
//
// Where things are:
//
//	controller.go     Config, New, Run, the cache GC
//	informers.go      the informers and their handlers (package intake), lookups, routing to workers
//	shard.go          one worker: its queue, its loop, the items it handles
//	step.go           every call into the library's processing step; what a step is counted and logged as
//	fold.go           pod requests queued as Volcano's queue merges them
//	retries.go        failed requests: requeued, given up, ordered retries
//	waiting.go        requests waiting for the pods their job's steps created
//	delayed.go        the worker's delayed actions and their timer
//	statuses.go       held-back status writes (--coalesce-status): why, the store, the flush items
//	statusapplier.go  which status writes wait; the worker's Applier in front of the shared one
//	debug.go          the controller's view of one job (/debug/vcjob/job)
//	events.go         the Kubernetes Events of steps and Commands
//
// Everything runs on Config.Clock (a FakeClock in the tests) and logs
// with the context's logger: New's for the handlers, Run's for the
// workers, named Name, with the worker's number and each item's job.
//
//	c, err := job.New(ctx, job.Config{Kube: set.Kube, Volcano: set.Volcano,
//		PodInformers: pods, KubeInformers: kube, VolcanoInformers: volcano, Workers: 3, MaxRequeue: 15})
//	...
//	pods.Start(ctx.Done()); kube.Start(ctx.Done()); volcano.Start(ctx.Done())
//	err = c.Run(ctx) // until ctx is done
package job
