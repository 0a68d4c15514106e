package memcluster

import (
	"github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/request"
)

// Notify hands the change to c's handler for its kind of object, as an
// informer would, and returns the request the handler raises: the
// simulator, the explorer and the tests feed the cache from the cluster
// this way.
//
// A job's deletion and a PodGroup's deletion are not handed on: they raise
// no request (Cache.OnJobDelete raises none). The cache's refusal of a job
// (the error of OnJobAdd or OnJobUpdate) is dropped, as the request is
// raised all the same, as in Volcano; a caller that wants the error calls
// the handler itself.
func (ch Change) Notify(c *cache.Cache) (request.Request, bool) {
	var req request.Request
	var ok bool
	switch {
	case ch.NewJob != nil && ch.OldJob == nil:
		req, ok, _ = c.OnJobAdd(ch.NewJob)
	case ch.NewJob != nil:
		req, ok, _ = c.OnJobUpdate(ch.OldJob, ch.NewJob)
	case ch.NewPod != nil && ch.OldPod == nil:
		req, ok = c.OnPodAdd(ch.NewPod)
	case ch.NewPod != nil:
		req, ok = c.OnPodUpdate(ch.OldPod, ch.NewPod)
	case ch.OldPod != nil:
		req, ok = c.OnPodDelete(ch.OldPod)
	case ch.Type == Modified:
		// The one kind left with a Modified change is the PodGroup.
		req, ok = c.OnPodGroupUpdate(ch.PodGroupNamespace, ch.PodGroupJob, ch.OldPhase, ch.NewPhase)
	}
	return req, ok
}
