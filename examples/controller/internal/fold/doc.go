// Package fold queues a job's pod requests as Volcano's work queue merges
// them.
//
// Volcano's pod handlers queue an apis.Request that names the job, the
// task, the event, the exit code and the job version, and client-go's
// workqueue keeps one of identical requests while they wait: twenty pods
// of a task going Running while the worker is busy are one request, one
// step, at most one status write. The library's requests also name the
// pod (its name, UID, partition and disruption), which delayed actions,
// RestartPod and RestartPartition need; queued as they are, no two pods'
// requests are ever identical. When a job has none of those uses
// (PodKeyed), Identity leaves the pod out of the queue item, so the queue
// merges what Volcano's merges; a Store keeps the full requests by their
// identity in case the job gains such a use before the item is handled.
// Every step still decides on the job as the cache holds it then: what a
// folded request would have decided differs from its twin's only by the
// pod, which the job does not read.
//
//	if id, ok := fold.Identity(job, req); ok {
//		store.Add(id, req)
//		queue.Add(id) // merges with an identical waiting identity
//	}
//	...
//	full := store.Take(id) // the requests it stood for, in order
package fold
