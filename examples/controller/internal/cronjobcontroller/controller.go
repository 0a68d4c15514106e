// Package cronjobcontroller is Volcano's CronJob controller
// (pkg/controllers/cronjob) on the vcjob library's decisions: informers on
// CronJobs and Jobs queue cronjob keys as Volcano's handlers do, and each
// worker syncs a key as Volcano's processNextReq does. A sync asks
// cronjob.DecideWith what to do, from the listers and the clock, makes
// the Decision's calls through the typed clients in order, hands every
// answer the lister did not predict to Decision.Answer, records the
// Decision's Events on the cronjob and requeues as it says. Nothing here
// decides: the rules are the library's (see the cronjob package).
package cronjobcontroller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/client-go/listers"
	"k8s.io/client-go/tools/cache"
	kuberecord "k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/cronjob"

	"github.com/vcjob/vcjob/examples/controller/internal/clients"
	"github.com/vcjob/vcjob/examples/controller/internal/events"
	"github.com/vcjob/vcjob/examples/controller/internal/metrics"
)

// Config is what a Controller is built from.
type Config struct {
	// Volcano reads and writes Jobs and CronJobs.
	Volcano clients.Volcano
	// VolcanoInformers is the shared factory the CronJob and Job
	// informers come from; the caller starts it. nil makes one on Volcano
	// that nobody starts (tests fill the listers by hand).
	VolcanoInformers *clients.VolcanoInformerFactory
	// Workers is the number of sync workers. Volcano's CronJob controller
	// runs the controller manager's --worker-threads (3 by default).
	Workers int
	// Events records the Decisions' Events on their cronjob (nil: none).
	Events kuberecord.EventRecorder
	// Options are the decisions' options (cronjob.Options: vcjob's own
	// choices, off by default, and the zone a schedule without one runs
	// in, UTC by default).
	Options cronjob.Options
	// Now reads the clock (time.Now when nil).
	Now func() time.Time
	// RateLimiter makes the queue's rate limiter; nil is client-go's
	// default controller limiter, as Volcano's.
	RateLimiter func() workqueue.TypedRateLimiter[string]
	// Metrics receives the counters (a fresh set when nil).
	Metrics *metrics.Metrics
}

// Controller is the CronJob controller.
type Controller struct {
	cfg    Config
	queue  workqueue.TypedRateLimitingInterface[string]
	events *events.Recorder

	cronJobs listers.ResourceIndexer[*vcjob.CronJob]
	jobs     listers.ResourceIndexer[*vcjob.Job]
	synced   []cache.InformerSynced
}

// New builds the controller and registers its handlers with the
// informers; Run starts its workers.
func New(cfg Config) (*Controller, error) {
	if cfg.Volcano == nil {
		return nil, errors.New("cronjobcontroller: a Volcano client is required")
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 3
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Metrics == nil {
		cfg.Metrics = metrics.New()
	}
	if cfg.RateLimiter == nil {
		cfg.RateLimiter = workqueue.DefaultTypedControllerRateLimiter[string]
	}
	if cfg.VolcanoInformers == nil {
		cfg.VolcanoInformers = clients.NewVolcanoInformerFactory(cfg.Volcano, 0)
	}
	c := &Controller{cfg: cfg, events: events.For(cfg.Events, cfg.Metrics, "cronjob"),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(cfg.RateLimiter(),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "cronjobs", MetricsProvider: cfg.Metrics.Workqueue()}),
	}
	cjs, jobs := cfg.VolcanoInformers.CronJobs(), cfg.VolcanoInformers.Jobs()
	c.cronJobs, c.jobs = cjs.Lister(), jobs.Lister()
	for _, r := range []struct {
		inf cache.SharedIndexInformer
		h   cache.ResourceEventHandler
	}{
		{cjs.Informer(), cache.ResourceEventHandlerFuncs{AddFunc: c.enqueue, UpdateFunc: c.updateCronJob, DeleteFunc: c.enqueue}},
		{jobs.Informer(), cache.ResourceEventHandlerFuncs{AddFunc: c.addJob, UpdateFunc: c.updateJob, DeleteFunc: c.deleteJob}},
	} {
		reg, err := r.inf.AddEventHandler(r.h)
		if err != nil {
			return nil, fmt.Errorf("cronjobcontroller: event handler: %w", err)
		}
		c.synced = append(c.synced, reg.HasSynced)
	}
	return c, nil
}

// Run waits for the informers (started by the caller) to sync, runs the
// workers until ctx is done, lets the syncs under way finish and returns.
func (c *Controller) Run(ctx context.Context) error {
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		c.queue.ShutDown()
		if ctx.Err() != nil {
			return nil
		}
		return errors.New("cronjobcontroller: informers did not sync")
	}
	klog.InfoS("CronJob controller started", "workers", c.cfg.Workers)
	var wg sync.WaitGroup
	for range c.cfg.Workers {
		wg.Go(func() {
			for c.processNext(ctx) {
			}
		})
	}
	<-ctx.Done()
	c.queue.ShutDown()
	wg.Wait()
	return nil
}

// processNext is Volcano's processNextReq: sync one key; a failed sync is
// put back with the queue's backoff, one that asks for a requeue goes back
// after that time, and the key's backoff is forgotten otherwise.
func (c *Controller) processNext(ctx context.Context) bool {
	key, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(key)
	if ctx.Err() != nil {
		return true // shutting down: the next leader syncs it
	}
	requeue, err := c.sync(ctx, key)
	switch {
	case err != nil:
		klog.V(2).InfoS("CronJob sync failed; requeued", "cronjob", key, "err", err)
		c.queue.AddRateLimited(key)
		return true
	case requeue != nil:
		klog.V(4).InfoS("CronJob requeued", "cronjob", key, "after", *requeue)
		c.queue.AddAfter(key, *requeue)
	}
	c.queue.Forget(key)
	return true
}
