// Package applier writes what the job controller's steps decide: Applier
// implements vcjob's statemachine.Applier on client-go's typed clients
// (pods, claims and the plugins' objects through the clientset; Jobs and
// PodGroups through the typed Volcano clients), reading PodGroups from
// the informer's store. It owns the writes' details: server-side apply
// of plugin objects, JSON patches of PodGroups guarded by their
// resourceVersion, status writes skipped when nothing changed, pods
// marked out-of-sync before they are deleted, failed deletes retried with
// backoff (DeleteRetrier), and the ssh plugin's key source (RSAKeys).
//
//	a := &applier.Applier{Kube: kube, Volcano: vc, PodGroups: lookup,
//		Metrics: m, Expectations: expectations.New(time.Now)}
//	step := &worker.Step{..., Cluster: &statemachine.Applied{Applier: a, ...}}
package applier
