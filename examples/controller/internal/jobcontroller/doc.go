// Package jobcontroller is the Volcano Job controller on client-go: event
// handlers on shared informers feed vcjob's cache, which turns cluster
// changes into requests; the requests are sharded by job over workers,
// each running vcjob's processing step (worker.Step) with its own delay
// queue; an Applier writes what the steps decide through the typed
// clients.
//
// Where things are:
//
//	controller.go   Config, New, Run, cache GC
//	informers.go    the informers taken from the shared factories, lookups
//	handlers.go     event handlers (jobs, pods, PodGroups)
//	commands.go     Commands: taken (deleted) first, then queued
//	shard.go        one worker: its queue and the items it handles
//	fold.go         pod requests queued as Volcano's queue merges them
//	step.go         every call into the library's processing step
//	retries.go      failed requests: requeue, give up, ordered retries
//	delayed.go      the worker's delayed actions and their timer
//	expectations.go the controller's own writes not yet observed
//	applier.go      statemachine.Applier: pods.go, podgroups.go,
//	                objects.go (plugin objects, claims), status.go
//	coalesce.go     held-back status writes (--coalesce-status)
//	deleteretry.go  failed pod deletes retried with backoff
//	debug.go        the controller's view of one job (/debug/vcjob/job)
//	queues.go       Volcano's queue rules for validation (--queue-checks)
//	sshkeys.go      the ssh plugin's key source
//
//	c, err := jobcontroller.New(jobcontroller.Config{Kube: set.Kube, Volcano: set.Volcano,
//		PodInformers: pods, KubeInformers: kube, VolcanoInformers: volcano, Workers: 3, MaxRequeue: 15})
//	...
//	pods.Start(ctx.Done()); kube.Start(ctx.Done()); volcano.Start(ctx.Done())
//	err = c.Run(ctx) // until ctx is done
package jobcontroller
