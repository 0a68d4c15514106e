package cache

import "github.com/vcjob/vcjob"

// podGroupRequestsCurrentVersion is the job version a request raised by a
// PodGroup's phase change carries under
// behavior.PodGroupRequestsCurrentVersion: the job's own status.version.
// Volcano's carries 0, so once the job has been killed (version > 0) the
// request is stale, resolves to a sync, and Unknown policies never fire
// again.
func podGroupRequestsCurrentVersion(job *vcjob.Job) int32 { return job.Status.Version }
