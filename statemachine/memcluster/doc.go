// Package memcluster is an in-memory cluster that applies the state
// machine's plans: jobs, pods and PodGroups in maps, a clock the caller
// sets, and a journal of what each call did. Tests, the conformance runner
// and the simulator drive the real state machine through it; a controller
// applies the same plans with its clients instead.
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
package memcluster
