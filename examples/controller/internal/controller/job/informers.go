package job

import (
	"context"
	"fmt"

	"k8s.io/client-go/tools/cache"

	jobcache "github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/request"

	"github.com/vcjob/vcjob/examples/controller/pkg/intake"
)

// registerHandlers takes the controller's informers from the shared
// factories, registers its event handlers, and keeps the listers and the
// handlers' sync checks. The handlers log with ctx's logger.
func (c *Controller) registerHandlers(ctx context.Context) error {
	pods := c.cfg.PodInformers.Core().V1().Pods()
	pcs := c.cfg.KubeInformers.Scheduling().V1().PriorityClasses()
	jobs := c.cfg.VolcanoInformers.Jobs()
	pgs := c.cfg.VolcanoInformers.PodGroups()
	cmds := c.cfg.VolcanoInformers.Commands()
	c.pods, c.pcLister = pods.Lister(), pcs.Lister()
	c.pgStore, c.cmdStore = pgs.Informer().GetIndexer(), cmds.Informer().GetIndexer()
	c.jobStore = jobs.Informer().GetIndexer()
	c.intake = intake.New(ctx, intake.Config{Jobs: c.jobs, Expectations: c.expectations, Metrics: c.metrics,
		Queues: c.cfg.Queues, Volcano: c.cfg.Volcano, CommandStore: c.cmdStore, MaxRequeue: c.cfg.MaxRequeue,
		Enqueue: c.enqueue, Wake: c.wake, Forget: c.forget, RecordEvents: c.recordEvents, Clock: c.cfg.Clock})

	regs := []struct {
		inf cache.SharedIndexInformer
		h   cache.ResourceEventHandler
	}{
		{pods.Informer(), c.intake.Pods()},
		{jobs.Informer(), c.intake.Jobs()},
		{pgs.Informer(), c.intake.PodGroups()},
		{cmds.Informer(), c.intake.Commands()},
	}
	for _, r := range regs {
		reg, err := r.inf.AddEventHandler(r.h)
		if err != nil {
			return fmt.Errorf("job controller: event handler: %w", err)
		}
		c.synced = append(c.synced, reg.HasSynced)
	}
	c.synced = append(c.synced, pcs.Informer().HasSynced)
	if c.cfg.Queues != nil {
		c.synced = append(c.synced, c.cfg.Queues.Informer().HasSynced)
	}
	return nil
}

func (c *Controller) shardOf(namespace, job string) *shard {
	return c.shards[jobcache.Shard(namespace, job, len(c.shards))]
}

// wake tells job's worker that the job's created pods have all been
// shown: its waiting requests go on.
func (c *Controller) wake(job string, last bool) {
	if !last {
		return
	}
	ns, name := splitKey(job)
	c.shardOf(ns, name).queue.Add(item{Kind: kindWake, Req: request.Request{Namespace: ns, JobName: name}})
}

// forget tells job's worker that the job was deleted.
func (c *Controller) forget(namespace, name string) {
	c.shardOf(namespace, name).queue.Add(item{Kind: kindForget, Req: request.Request{Namespace: namespace, JobName: name}})
}

// splitKey splits a job key (request.JobKey) into namespace and name.
func splitKey(key string) (namespace, name string) {
	namespace, name, _ = cache.SplitMetaNamespaceKey(key) // never fails on a namespace/name key
	return namespace, name
}

// priority is the PodGroup's priority lookup: the PriorityClass lister.
func (c *Controller) priority(name string) (int32, bool) {
	pc, err := c.pcLister.Get(name)
	if err != nil {
		return 0, false
	}
	return pc.Value, true
}

// podGroup reads the PodGroup informer's store. Every sync looks its
// job's PodGroup up (and a finished job's finds none): the store's
// exists flag, not a lister's NotFound error built for each miss.
func (c *Controller) podGroup(namespace, name string) (*podgroup.PodGroup, bool, error) {
	obj, ok, err := c.pgStore.GetByKey(namespace + "/" + name)
	if err != nil || !ok {
		return nil, false, err
	}
	pg, isPG := obj.(*podgroup.PodGroup)
	if !isPG {
		return nil, false, fmt.Errorf("unexpected %T in the podgroup informer", obj)
	}
	return pg, true, nil
}
