// Package memcluster is an in-memory cluster that applies the state
// machine's plans: jobs, pods and PodGroups in maps, a clock the caller
// sets, and a journal of what each call did. Tests, the conformance runner
// and the simulator (cmd/simulate) drive the real state machine through
// it; a controller applies the same plans with its clients instead.
//
//	c := memcluster.New(now)
//	job = c.PutJob(job) // stored as an API server stores it (namespace, UID)
//	c.PutPod(pod)
//	c.SetPodGroupPhase("ns", podgroup.Name(job), podgroup.PhaseRunning)
//	ji, _ := c.JobInfo("ns", job.Name)
//	_, err := statemachine.Execute(ctx, c, ji, vcjob.RestartJobAction, request.Target{})
//	fmt.Println(c.Journal.Deleted, c.Journal.Events)
//
// Every API call of the cluster honours its context: once ctx is done, the
// call fails with ctx.Err() and changes nothing, as a client's call would
// (tests use it to stop a plan half-way).
//
// # Where things are
//
//	memcluster.go   Cluster, New, PutJob, PutPod, Journal, Change, Drain; the Applier and Cluster methods
//	pods.go         FailPod: the kubelet failing a pod
//	remove.go       RemoveJob: where a cascading delete ends
//	notify.go       Change.Notify: a change handed to the cache's handlers
//	*_test.go       a test beside each file; memcluster.go's: putjob_test.go, conflict_test.go, memcluster_nil_test.go
package memcluster
