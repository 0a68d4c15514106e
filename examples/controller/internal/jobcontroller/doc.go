// Package jobcontroller is the Volcano Job controller on client-go: it
// takes its informers from the shared factories, feeds their events to
// vcjob's cache through package intake, shards the requests by job over
// workers, each running vcjob's processing step (worker.Step) with its own
// delay queue, and writes what the steps decide through package applier.
//
// Where things are:
//
//	controller.go   Config, New, Run, cache GC
//	informers.go    the informers, their handlers (intake), lookups, routing to workers
//	shard.go        one worker: its queue and the items it handles
//	fold.go         pod requests queued under Volcano's identity (package fold)
//	step.go         every call into the library's processing step
//	retries.go      failed requests: requeue, give up, ordered retries; waiting for created pods
//	delayed.go      the worker's delayed actions and their timer
//	statuses.go     the flush items of held-back status writes (package coalesce)
//	debug.go        the controller's view of one job (/debug/vcjob/job)
//	events.go       the Kubernetes Events of steps and Commands
//
//	c, err := jobcontroller.New(jobcontroller.Config{Kube: set.Kube, Volcano: set.Volcano,
//		PodInformers: pods, KubeInformers: kube, VolcanoInformers: volcano, Workers: 3, MaxRequeue: 15})
//	...
//	pods.Start(ctx.Done()); kube.Start(ctx.Done()); volcano.Start(ctx.Done())
//	err = c.Run(ctx) // until ctx is done
package jobcontroller
