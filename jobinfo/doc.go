// Package jobinfo holds a job with its pods grouped by task and partition,
// and the counts the plans read, kept pod by pod (TaskPods: pods by phase,
// terminating, ready, missing, out of sync, beyond the replicas, by
// partition), so that a plan costs the same for ten pods as for ten
// thousand. It is Volcano's apis.JobInfo with that bookkeeping added.
//
// Pods live in persistent maps (internal/hamt): Clone and Lease hand out
// O(1) snapshots that never move, and an Info that leases changes its maps
// in place while no lease is out:
//
//	ji, _ := jobinfo.New(job, pods...)
//	snap := ji.Lease()              // what a worker decides on
//	_ = ji.AddPod(updated)          // copies the path snap shares
//	snap.Release()                  // ji edits in place again
//	c := ji.Task("worker").Counts() // c.InRange, c.Phases.Running, c.Ready...
//
// Two contracts make it work: objects handed to an Info are shared and
// never changed in place (replace them, as an informer does), and an Info
// is copied with Clone or Lease, never by value (go vet reports such
// copies).
package jobinfo
