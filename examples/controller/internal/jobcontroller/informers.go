package jobcontroller

import (
	"fmt"

	"k8s.io/client-go/tools/cache"

	jobcache "github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/podgroup"
)

// registerHandlers takes the controller's informers from the shared
// factories, registers its event handlers, and keeps the listers and the
// handlers' sync checks.
func (c *Controller) registerHandlers() error {
	pods := c.cfg.PodInformers.Core().V1().Pods()
	pcs := c.cfg.KubeInformers.Scheduling().V1().PriorityClasses()
	jobs := c.cfg.VolcanoInformers.Jobs()
	pgs := c.cfg.VolcanoInformers.PodGroups()
	cmds := c.cfg.VolcanoInformers.Commands()
	c.pods, c.pcLister = pods.Lister(), pcs.Lister()
	c.pgStore, c.cmdStore = pgs.Informer().GetIndexer(), cmds.Informer().GetIndexer()
	c.jobStore = jobs.Informer().GetIndexer()

	regs := []struct {
		inf cache.SharedIndexInformer
		h   cache.ResourceEventHandler
	}{
		{pods.Informer(), cache.ResourceEventHandlerFuncs{AddFunc: c.addPod, UpdateFunc: c.updatePod, DeleteFunc: c.deletePod}},
		{jobs.Informer(), cache.ResourceEventHandlerFuncs{AddFunc: c.addJob, UpdateFunc: c.updateJob, DeleteFunc: c.deleteJob}},
		{pgs.Informer(), cache.ResourceEventHandlerDetailedFuncs{AddFunc: c.addPodGroup, UpdateFunc: c.updatePodGroup, DeleteFunc: c.deletePodGroup}},
		{cmds.Informer(), cache.ResourceEventHandlerFuncs{AddFunc: c.addCommand}},
	}
	for _, r := range regs {
		reg, err := r.inf.AddEventHandler(r.h)
		if err != nil {
			return fmt.Errorf("jobcontroller: event handler: %w", err)
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
