package intake

import (
	"errors"

	"k8s.io/klog/v2"

	"github.com/vcjob/vcjob"
	jobcache "github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/validation"
)

// The informers' event handlers. Each hands the change to vcjob's cache
// (OnJobAdd/Update/Delete, OnPodAdd/Update/Delete, OnPodGroupAdd/Update),
// which returns the requests to queue on the job's worker; nothing here
// calls the API server.

func (c *Handlers) event(kind, typ string) {
	c.metrics.InformerEvents.WithLabelValues(kind, typ).Inc()
}

func (c *Handlers) addJob(obj any) {
	c.event("job", "add")
	job, err := asJob(obj)
	if err != nil {
		c.logger.Error(err, "Cannot read job")
		return
	}
	c.admit(job)
}

// admit caches a job the admission webhook Volcano runs would have let
// in, and queues its request. That webhook is not here: a job it would
// have refused is left alone, with a log line saying why, until an update
// makes it valid.
func (c *Handlers) admit(job *vcjob.Job) {
	opts := validation.Options{}
	if c.cfg.Queues != nil {
		opts.Queues = c.cfg.Queues
	}
	if errs := validation.ValidateJobWith(job, opts); len(errs) > 0 {
		c.metrics.InvalidJobs.Inc()
		c.logger.Error(errs.ToAggregate(), "Job is invalid; ignoring it", "job", klog.KObj(job))
		return
	}
	// Under the finished-pods-on-add correction, the finished pods that
	// arrived before their job raise their events now.
	reqs, err := c.jobs.OnJobAddWithPods(job)
	if err != nil {
		// As in Volcano, the request is queued all the same.
		c.logger.Error(err, "Cannot cache job", "job", klog.KObj(job))
	}
	for _, req := range reqs {
		c.enqueue(req)
	}
}

func (c *Handlers) updateJob(oldObj, newObj any) {
	c.event("job", "update")
	oldJob, err1 := asJob(oldObj)
	newJob, err2 := asJob(newObj)
	if err := errors.Join(err1, err2); err != nil {
		c.logger.Error(err, "Cannot read job")
		return
	}
	req, ok, err := c.jobs.OnJobUpdate(oldJob, newJob)
	switch {
	case errors.Is(err, jobcache.ErrNotFound):
		// Refused as invalid when it was added: judge it again.
		c.admit(newJob)
		return
	case err != nil:
		// Stale: the controller cached a newer version from its own
		// write. As in Volcano, a spec or phase change is queued anyway.
		c.logger.V(4).Info("Job update not cached", "job", klog.KObj(newJob), "err", err)
	}
	if ok {
		c.enqueue(req)
	}
}

func (c *Handlers) deleteJob(obj any) {
	c.event("job", "delete")
	job, err := asJob(obj)
	if err != nil {
		c.logger.Error(err, "Cannot read job")
		return
	}
	if err := c.jobs.OnJobDelete(job); err != nil {
		c.logger.V(4).Info("Job delete not cached", "job", klog.KObj(job), "err", err)
	}
	c.forget(job.Namespace, job.Name)
}

func (c *Handlers) addPod(obj any) {
	c.event("pod", "add")
	if pod, ok := asPod(obj); ok {
		c.wake(c.expectations.CreationObserved(pod.Namespace + "/" + pod.Name))
		if req, ok := c.jobs.OnPodAdd(pod); ok {
			c.enqueue(req)
		}
	}
}

func (c *Handlers) updatePod(oldObj, newObj any) {
	c.event("pod", "update")
	oldPod, ok1 := asPod(oldObj)
	newPod, ok2 := asPod(newObj)
	if !ok1 || !ok2 {
		return
	}
	if req, ok := c.jobs.OnPodUpdate(oldPod, newPod); ok {
		c.enqueue(req)
	}
}

func (c *Handlers) deletePod(obj any) {
	c.event("pod", "delete")
	if pod, ok := asPod(obj); ok {
		c.wake(c.expectations.DeletionObserved(pod.Namespace + "/" + pod.Name))
		if req, ok := c.jobs.OnPodDelete(pod); ok {
			c.enqueue(req)
		}
	}
}

// deletePodGroup forgets a PodGroup the controller deleted, now that the
// lister no longer holds it.
func (c *Handlers) deletePodGroup(obj any) {
	c.event("podgroup", "delete")
	if pg, err := asPodGroup(obj); err == nil {
		c.expectations.PodGroupDeletionObserved(pg.UID)
		c.expectations.PodGroupObserved(pg.Namespace + "/" + pg.Name)
	}
}

// addPodGroup queues what a PodGroup's add raises (cache.OnPodGroupAdd):
// nothing, as Volcano's controller has no add handler for PodGroups,
// unless the podgroup-phase-on-add correction is on and the informer
// shows the PodGroup already in a phase outside its first list (a relist
// after a lost watch): then the request of the phase change it lost.
func (c *Handlers) addPodGroup(obj any, inInitialList bool) {
	c.event("podgroup", "add")
	pg, err := asPodGroup(obj)
	if err != nil {
		c.logger.Error(err, "Cannot read podgroup")
		return
	}
	c.expectations.PodGroupObserved(pg.Namespace + "/" + pg.Name)
	if req, ok := c.jobs.OnPodGroupAdd(pg.Namespace, jobOfPodGroup(pg), pg.Status.Phase, inInitialList); ok {
		c.logger.V(2).Info("PodGroup first seen in a phase after a relist; syncing its job", "podgroup", klog.KObj(pg), "phase", pg.Status.Phase)
		c.metrics.PodGroupsSeenLate.Inc()
		c.enqueue(req)
	}
}

func (c *Handlers) updatePodGroup(oldObj, newObj any) {
	c.event("podgroup", "update")
	oldPG, err1 := asPodGroup(oldObj)
	newPG, err2 := asPodGroup(newObj)
	if err := errors.Join(err1, err2); err != nil {
		c.logger.Error(err, "Cannot read podgroup")
		return
	}
	if req, ok := c.jobs.OnPodGroupUpdate(newPG.Namespace, jobOfPodGroup(newPG), oldPG.Status.Phase, newPG.Status.Phase); ok {
		c.enqueue(req)
	}
}
