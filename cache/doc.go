// Package cache owns what a controller knows of its jobs between events:
// a thread-safe job cache, the task-completed and task-failed
// predicates, and the derivation of requests from cluster changes.
//
// Feed it what the informers see; each handler updates the cache and
// returns the request Volcano's controller would queue, if any:
//
//	c := cache.New()
//	if req, ok, err := c.OnJobAdd(job); err == nil && ok {
//		queue(req)
//	}
//	if req, ok := c.OnPodUpdate(oldPod, newPod); ok {
//		queue(req) // e.g. PodFailed with the first container's exit code
//	}
//	if ji, err := c.Lease(req.Namespace, req.JobName); err == nil { // an O(1) snapshot
//		decide(ji)
//		ji.Release() // then updates go in place again
//	}
//
// The cache keeps the objects it is given (an informer never changes its
// objects in place) and keeps each job's counts up to date as its pods
// change, so a pod event costs the same whatever the job's size: with no
// lease of the job out, an update changes the job's maps in place and
// allocates nothing. Get is the snapshot to keep: it stays valid for good.
//
// Requests of one job always go to one worker: Shard picks it.
//
// A deleted job's info stays until its last pod is gone, so late pod
// events still find it; there is no background goroutine: the caller asks
// Droppable for what may go and calls Drop.
//
// Cache.Behavior (behavior.Set, with each job's behavior.Annotation on top)
// gives PodGroup-driven requests the job's version under
// PodGroupRequestsCurrentVersion, takes a failed pod's exit code from its
// first failed container under ExitCodeFirstFailedContainer (ExitCode),
// and under CacheByJobUID files a pod under its job only when the job is
// its controller by UID, so an earlier job of the same name leaves the
// one created again alone; pod requests carry Disrupted, which the
// disruptions policy extension reads.
//
// # Where things are
//
//	cache.go                               Cache, New, Get, Lease, Droppable, Drop: jobs and pods by namespace/name
//	events.go                              OnJobAdd, OnPodUpdate, OnPodGroupUpdate, OnCommand...: changes to requests
//	predicates.go                          TaskCompleted, TaskFailed, DefaultTaskMaxRetry
//	shard.go                               Shard: the worker a job's requests go to
//	cache_by_job_uid.go                    behavior.CacheByJobUID
//	exit_code_first_failed_container.go    behavior.ExitCodeFirstFailedContainer
//	finished_pods_on_add.go                behavior.FinishedPodsOnAdd, FinishedPodAddEvent
//	podgroup_phase_on_add.go               behavior.PodGroupPhaseOnAdd
//	podgroup_requests_current_version.go   behavior.PodGroupRequestsCurrentVersion
//	cache_test.go                          the cache's rules, leases, predicates; TestSnapshotIsolation: rapid
//	events_test.go                         each handler's requests, Shard
//	differences_test.go                    each correction against Volcano's behaviour
//	bench_test.go                          BenchmarkPodEvent, BenchmarkBringUp: what a pod event costs
package cache
