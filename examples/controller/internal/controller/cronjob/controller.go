package cronjob

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"k8s.io/client-go/listers"
	"k8s.io/client-go/tools/cache"
	kuberecord "k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/vcjob/vcjob"
	vccronjob "github.com/vcjob/vcjob/cronjob"

	"github.com/vcjob/vcjob/examples/controller/internal/events"
	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
	"github.com/vcjob/vcjob/examples/controller/pkg/metrics"
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
	// Options are the decisions' options (vccronjob.Options: vcjob's own
	// choices, off by default, and the zone a schedule without one runs
	// in, UTC by default).
	Options vccronjob.Options
	// Clock is the controller's clock: the decisions' time and the
	// queue's (requeues after a time, rate limiting). nil is the real
	// clock; tests pass a FakeClock (k8s.io/utils/clock/testing).
	Clock clock.WithTicker
	// RateLimiter makes the queue's rate limiter; nil is client-go's
	// default controller limiter, as Volcano's.
	RateLimiter func() workqueue.TypedRateLimiter[string]
	// Metrics receives the counters (a fresh set when nil).
	Metrics *metrics.Metrics
}

// Controller is the CronJob controller.
type Controller struct {
	cfg    Config
	logger klog.Logger // the handlers'

	queue  workqueue.TypedRateLimitingInterface[string]
	events *events.Recorder

	cronJobs listers.ResourceIndexer[*vcjob.CronJob]
	jobs     listers.ResourceIndexer[*vcjob.Job]
	synced   []cache.InformerSynced
}

// Name is the controller's name in its log lines.
const Name = "cronjob-controller"

// New builds the controller and registers its handlers with the
// informers; Run starts its workers. The handlers log with ctx's logger
// (klog.FromContext), named Name.
func New(ctx context.Context, cfg Config) (*Controller, error) {
	if cfg.Volcano == nil {
		return nil, errors.New("cronjob controller: a Volcano client is required")
	}
	cfg = withDefaults(cfg)
	c := &Controller{cfg: cfg, logger: klog.LoggerWithName(klog.FromContext(ctx), Name),
		events: events.For(cfg.Events, cfg.Metrics, "cronjob"),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(cfg.RateLimiter(),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "cronjobs", MetricsProvider: cfg.Metrics.Workqueue(), Clock: cfg.Clock}),
	}
	return c, c.registerHandlers()
}

func withDefaults(cfg Config) Config {
	if cfg.Workers <= 0 {
		cfg.Workers = 3
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
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
	return cfg
}

// registerHandlers takes the CronJob and Job informers from the shared
// factory and registers the handlers (handlers.go).
func (c *Controller) registerHandlers() error {
	cjs, jobs := c.cfg.VolcanoInformers.CronJobs(), c.cfg.VolcanoInformers.Jobs()
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
			return fmt.Errorf("cronjob controller: event handler: %w", err)
		}
		c.synced = append(c.synced, reg.HasSynced)
	}
	return nil
}

// Run waits for the informers (started by the caller) to sync, runs the
// workers until ctx is done, lets the syncs under way finish and returns.
// It logs with ctx's logger, named Name; each sync adds its cronjob.
func (c *Controller) Run(ctx context.Context) error {
	logger := klog.LoggerWithName(klog.FromContext(ctx), Name)
	ctx = klog.NewContext(ctx, logger)
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		c.queue.ShutDown()
		if ctx.Err() != nil {
			return nil
		}
		return errors.New("cronjob controller: informers did not sync")
	}
	logger.Info("CronJob controller started", "workers", c.cfg.Workers)
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
	logger := klog.LoggerWithValues(klog.FromContext(ctx), "cronjob", key)
	requeue, err := c.sync(klog.NewContext(ctx, logger), key)
	switch {
	case err != nil:
		logger.V(2).Info("CronJob sync failed; requeued", "err", err)
		c.queue.AddRateLimited(key)
		return true
	case requeue != nil:
		logger.V(4).Info("CronJob requeued", "after", *requeue)
		c.queue.AddAfter(key, *requeue)
	}
	c.queue.Forget(key)
	return true
}
