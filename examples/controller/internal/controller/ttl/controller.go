package ttl

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/listers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/vcjob/vcjob"
	vcttl "github.com/vcjob/vcjob/ttl"

	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
	"github.com/vcjob/vcjob/examples/controller/pkg/metrics"
)

// Config is what a Controller is built from.
type Config struct {
	// Volcano reads jobs from the API server and deletes them.
	Volcano clients.Volcano
	// VolcanoInformers is the shared factory the Job informer comes from;
	// the caller starts it. nil makes one on Volcano that nobody starts.
	VolcanoInformers *clients.VolcanoInformerFactory
	// Workers is the number of workers; Volcano runs one
	// (--worker-threads-for-gc, default 1).
	Workers int
	// Clock is the collector's clock: when a job expires, and the
	// queue's (the requeue for that time, rate limiting). nil is the real
	// clock; tests pass a FakeClock (k8s.io/utils/clock/testing).
	Clock clock.WithTicker
	// RateLimiter makes the queue's rate limiter; nil is client-go's
	// default controller limiter, as Volcano's.
	RateLimiter func() workqueue.TypedRateLimiter[string]
	// Metrics receives the counters (a fresh set when nil).
	Metrics *metrics.Metrics
}

// Controller is the TTL collector.
type Controller struct {
	cfg    Config
	logger klog.Logger // the handlers'

	queue  workqueue.TypedRateLimitingInterface[string]
	jobs   listers.ResourceIndexer[*vcjob.Job]
	synced cache.InformerSynced
}

// Name is the collector's name in its log lines.
const Name = "ttl-controller"

// New builds the collector and registers its handlers with the Job
// informer; Run starts its workers. The handlers log with ctx's logger
// (klog.FromContext), named Name.
func New(ctx context.Context, cfg Config) (*Controller, error) {
	if cfg.Volcano == nil {
		return nil, errors.New("ttl controller: a Volcano client is required")
	}
	cfg = withDefaults(cfg)
	c := &Controller{cfg: cfg, logger: klog.LoggerWithName(klog.FromContext(ctx), Name),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(cfg.RateLimiter(),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "ttl", MetricsProvider: cfg.Metrics.Workqueue(), Clock: cfg.Clock}),
	}
	jobs := cfg.VolcanoInformers.Jobs()
	c.jobs = jobs.Lister()
	// Volcano's collector has no delete handler: a deleted job's key
	// finds no job and is done.
	reg, err := jobs.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, cur any) { c.enqueue(cur) },
	})
	if err != nil {
		return nil, fmt.Errorf("ttl controller: event handler: %w", err)
	}
	c.synced = reg.HasSynced
	return c, nil
}

func withDefaults(cfg Config) Config {
	if cfg.Workers <= 0 {
		cfg.Workers = 1
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

// enqueue queues a job that vcttl.Enqueues: not being deleted, finished,
// with a ttlSecondsAfterFinished.
func (c *Controller) enqueue(obj any) {
	job, ok := obj.(*vcjob.Job)
	if !ok || !vcttl.Enqueues(job) {
		return
	}
	c.logger.V(4).Info("Finished job queued for its TTL", "job", klog.KObj(job))
	c.queue.Add(cache.MetaObjectToName(job).String())
}

// Run waits for the informer (started by the caller) to sync, runs the
// workers until ctx is done, lets the work under way finish and returns.
// It logs with ctx's logger, named Name; each key adds its job.
func (c *Controller) Run(ctx context.Context) error {
	logger := klog.LoggerWithName(klog.FromContext(ctx), Name)
	ctx = klog.NewContext(ctx, logger)
	if !cache.WaitForCacheSync(ctx.Done(), c.synced) {
		c.queue.ShutDown()
		if ctx.Err() != nil {
			return nil
		}
		return errors.New("ttl controller: informer did not sync")
	}
	logger.Info("TTL collector started", "workers", c.cfg.Workers)
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

// processNext processes one key: vcttl.Process on the job the lister holds,
// then what its Result says.
func (c *Controller) processNext(ctx context.Context) bool {
	key, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(key)
	if ctx.Err() != nil {
		return true
	}
	logger := klog.LoggerWithValues(klog.FromContext(ctx), "job", key)
	r := c.process(klog.NewContext(ctx, logger), key)
	c.cfg.Metrics.TTLProcessed.WithLabelValues(string(r.Next), strconv.FormatBool(r.Delete != nil && r.Err == nil)).Inc()
	switch r.Next {
	case vcttl.Retry:
		logger.Error(r.Err, "Cannot clean up job; will retry")
		c.queue.AddRateLimited(key)
		return true
	case vcttl.RequeueAfter:
		c.queue.Forget(key)
		c.queue.AddAfter(key, r.After)
	default:
		c.queue.Forget(key)
	}
	if r.Delete != nil {
		logger.V(2).Info("Job deleted after its TTL")
	}
	return true
}

func (c *Controller) process(ctx context.Context, key string) vcttl.Result {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return vcttl.Result{Next: vcttl.Done}
	}
	job, err := listers.NewNamespaced(c.jobs, ns).Get(name)
	switch {
	case apierrors.IsNotFound(err):
		job = nil
	case err != nil:
		return vcttl.Result{Next: vcttl.Retry, Err: err}
	}
	return vcttl.Process(ctx, api{c.cfg.Volcano}, job, c.cfg.Clock.Now)
}
