// Package applier writes what vcjob's processing steps decide, on
// client-go: Applier implements the library's statemachine.Applier with
// the typed clientset (pods, claims and the plugins' objects) and the
// typed Volcano clients (Jobs and PodGroups), reading PodGroups from an
// informer's store. It owns the writes' details: server-side apply of
// plugin objects, JSON patches of PodGroups guarded by their
// resourceVersion, status writes skipped when nothing changed, pods marked
// out-of-sync before they are deleted (with their UID as precondition),
// failed pod deletes retried with backoff (DeleteRetrier), and the ssh
// plugin's key source (RSAKeys). Each API call runs on CallContext: the
// step's values (its logger) without its cancellation, 30 s at most.
//
// An Applier needs the two clients (package clients: clients.NewSet), a
// PodGroupGetter on the PodGroup informer's store, the counters
// (metrics.New) and Expectations (package expectations), which it shares
// with the informers' event handlers (package intake): they observe what
// the Applier expects. StatusWritten, DeleteFailed and Satisfied are
// optional hooks. Its only state is in the Expectations, so one Applier
// serves every worker.
//
//	exp := expectations.New(clock.RealClock{})
//	a := &applier.Applier{Kube: set.Kube, Volcano: set.Volcano, Metrics: metrics.New(), Expectations: exp,
//		PodGroups: func(ns, name string) (*podgroup.PodGroup, bool, error) { ... the informer's store ... },
//		StatusWritten: func(ctx context.Context, job *vcjob.Job) { _ = jobs.Update(job) }}
//	retrier := applier.NewDeleteRetrier(podLister, a, clock.RealClock{})
//	a.DeleteFailed = retrier.Failed
//	go retrier.Run(ctx)
//	step := &worker.Step{Jobs: jobs, Delays: delay.New(), Cluster: &statemachine.Applied{Applier: a, Plugins: reg}}
//
// Example (example_test.go) runs it on fake clients; the job controller
// of this module (internal/controller/job) runs it so.
package applier
