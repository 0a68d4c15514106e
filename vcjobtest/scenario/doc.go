// Package scenario runs a Volcano job through a script of what happens in
// the cluster (pods start, fail, are evicted; the scheduler admits the
// PodGroup; commands; time passes) with the real pipeline: memcluster's
// change feed into the cache's handlers, the worker step, delayed actions
// on a fake clock, the state machine and the plugins, and Volcano's
// garbage collector for spec.ttlSecondsAfterFinished (package ttl). It is
// the engine of cmd/simulate, for programs that want the records
// themselves:
//
//	job, err := scenario.Load(manifest, "") // decode, default, validate
//	script, err := scenario.Parse(strings.NewReader("podgroup Inqueue\nstart all\nfail worker-1 137\n"))
//	err = scenario.Run(job, script, scenario.NewText(os.Stdout))
//
// An Observer receives every command, step record, cluster change and
// PodGroup phase, the Kubernetes Events recorded outside a step, and each
// requeue of a failed step; cmd/internal/timeline is one that draws them. One
// that is also a GCObserver receives each look of the garbage collector
// and the delete it sends.
//
// Perturb plays a scenario with the controller under a perturbation of
// package perturb (a crash after an Applier call, a lagging cache, a
// lost state of a pod or PodGroup) and drains the job after the script;
// TestPerturbation plays every scenario file that way against the table
// of Volcano's behaviours in testdata/perturbation.md.
//
// The simulated controller requeues a failed step as Volcano's work queue
// does (MaxRequeue times, RequeueBase doubling) and gives up on the next
// failure (worker.Step.GiveUp: the retry-limit Event, then TerminateJob).
package scenario
