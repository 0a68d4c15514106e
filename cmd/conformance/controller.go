package main

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/delay"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
	"github.com/vcjob/vcjob/worker"
)

// controller is a job as a controller holds it: stored in an in-memory
// cluster, known to a job cache, and processed by a worker step over
// both.
type controller struct {
	cluster *memcluster.Cluster
	cache   *cache.Cache
	step    *worker.Step
	// job is the job as the cluster stored it.
	job *vcjob.Job
}

// newController stores job and pods in a cluster whose clock reads
// recordedAt and loads them into a job cache; around (nil: nothing) puts
// what else the cluster holds around the stored job (the PodGroup,
// claims, priority classes) before the worker step is built over both. With watch the cluster
// records its changes from then on, for feedback to hand to the cache.
func newController(job *vcjob.Job, pods []*corev1.Pod, watch, recount bool, around func(cl *memcluster.Cluster, stored *vcjob.Job)) (*controller, error) {
	cl := memcluster.New(recordedAt)
	cl.Plugins = registry()
	// Watching from the start gives every stored object a resourceVersion,
	// so that the cache can tell a later write from the object it holds.
	cl.Watch = watch
	stored := cl.PutJob(job)
	jobs := cache.New()
	if err := jobs.Add(stored); err != nil {
		return nil, err
	}
	for _, p := range pods {
		cl.PutPod(p)
		if err := jobs.AddPod(cl.StoredPod(p.Namespace, p.Name)); err != nil {
			return nil, err
		}
	}
	if around != nil {
		around(cl, stored)
	}
	// The cache holds all of it already: the loading is no change.
	cl.Drain()
	step := &worker.Step{Jobs: jobs, Delays: delay.New(),
		Cluster: &statemachine.Applied{Applier: cl, Plugins: cl.Plugins, Priorities: cl.Priorities, Recount: recount}}
	return &controller{cluster: cl, cache: jobs, step: step, job: stored}, nil
}

// feedback hands the cluster's changes since the last call to the cache's
// handlers, as Volcano's informers would, and returns the requests the
// handlers raise, in order. Only a watching cluster has changes.
func (c *controller) feedback() []request.Request {
	var reqs []request.Request
	for _, ch := range c.cluster.Drain() {
		if req, ok := ch.Notify(c.cache); ok {
			reqs = append(reqs, req)
		}
	}
	return reqs
}
