package job

import (
	"context"
	"errors"
	"sync"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	schedulinglisters "k8s.io/client-go/listers/scheduling/v1"
	"k8s.io/client-go/tools/cache"
	kuberecord "k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	jobcache "github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/plugins"

	"github.com/vcjob/vcjob/examples/controller/internal/events"
	"github.com/vcjob/vcjob/examples/controller/pkg/applier"
	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
	"github.com/vcjob/vcjob/examples/controller/pkg/expectations"
	"github.com/vcjob/vcjob/examples/controller/pkg/intake"
	"github.com/vcjob/vcjob/examples/controller/pkg/metrics"
)

// Config is what a Controller is built from.
type Config struct {
	Kube kubernetes.Interface
	// Volcano reads and writes Jobs, PodGroups and Commands.
	Volcano clients.Volcano
	// The shared informer factories the controller takes its informers
	// from (clients.NewJobPodInformerFactory, NewKubeInformerFactory,
	// NewVolcanoInformerFactory). The caller starts them once every
	// controller has taken its informers; nil makes factories on Kube and
	// Volcano that nobody starts (tests feed the caches by hand).
	PodInformers     informers.SharedInformerFactory
	KubeInformers    informers.SharedInformerFactory
	VolcanoInformers *clients.VolcanoInformerFactory
	// Workers is the number of job workers (shards); a job's requests all
	// go to one of them (cache.Shard). Volcano's default is 3.
	Workers int
	// MaxRequeue is how often a failed request is requeued before its job
	// is terminated; −1 never gives up. Volcano's default is 15.
	MaxRequeue int
	// Metrics receives the counters (a fresh set when nil).
	Metrics *metrics.Metrics
	// SSHKeys makes the ssh plugin's key pairs (RSA 2048 when nil).
	SSHKeys plugins.KeySource
	// RateLimiter makes each worker's queue rate limiter; nil is
	// client-go's default controller limiter (per item 5 ms doubling to
	// 1000 s, overall 10 qps with a burst of 100), as Volcano uses.
	RateLimiter func() workqueue.TypedRateLimiter[item]
	// Clock is the controller's clock: the steps' time, how long
	// expectations are trusted, the workers' queues (rate limiting,
	// delayed adds, the status hold), the delayed actions' timers and the
	// cache GC. nil is the real clock; tests pass a FakeClock
	// (k8s.io/utils/clock/testing).
	Clock clock.WithTickerAndDelayedExecution
	// GCInterval is how often deleted jobs' infos are dropped from the
	// cache (30 s when zero).
	GCInterval time.Duration
	// Queues, when set, gives validation Volcano's queue rules (a job's
	// queue exists, is Open, is a leaf and is not root); the controller
	// runs its informer. nil skips them, as validation does by default.
	Queues *clients.Queues
	// CoalesceStatus holds back the status writes of finished jobs and
	// those that only move pod counts, and sends the last of them after
	// StatusHold (statuses.go). Off, every step writes its status, as
	// Volcano's controller does.
	CoalesceStatus bool
	// StatusHold is how long a held-back status waits before it is sent;
	// 0 sends it once the worker has gone through what its queue held.
	StatusHold time.Duration
	// OrderedRetries: while a job's failed request waits to be retried,
	// the job's later requests wait behind it, and go back on the queue
	// in order once it has succeeded or been given up (retries.go). Off,
	// later requests overtake the failed one, as in Volcano's queue.
	OrderedRetries bool
	// Events records the Kubernetes Events of the steps (worker.Record
	// Events, the retry limit's included) and of the Commands taken
	// (cache.OnCommand) on their job, as Volcano's job controller does
	// (events.NewRecorder); nil records none.
	Events kuberecord.EventRecorder
	// Semantics are the decisions' semantics (behavior.Set; each job's
	// vcjob.dev/semantics annotation applies on top). The zero value is
	// Volcano's.
	Behavior behavior.Set
}

// Controller is a Volcano Job controller: informers feed vcjob's cache,
// which turns cluster changes into requests; the requests are sharded over
// workers that run vcjob's processing step against the API server.
type Controller struct {
	cfg          Config
	metrics      *metrics.Metrics
	events       *events.Recorder
	jobs         *jobcache.Cache
	applier      *applier.Applier
	expectations *expectations.Expectations
	plugins      *plugins.Registry
	shards       []*shard
	retrier      *applier.DeleteRetrier
	intake       *intake.Handlers

	pods     corelisters.PodLister
	jobStore cache.Indexer
	pcLister schedulinglisters.PriorityClassLister
	pgStore  cache.Indexer
	cmdStore cache.Indexer
	synced   []cache.InformerSynced
}

// Name is the controller's name in its log lines.
const Name = "job-controller"

// New builds a controller and registers its event handlers with the
// informers; Run starts its workers. The handlers log with ctx's logger
// (klog.FromContext), named Name.
func New(ctx context.Context, cfg Config) (*Controller, error) {
	if cfg.Kube == nil || cfg.Volcano == nil {
		return nil, errors.New("job controller: Kube and Volcano clients are required")
	}
	cfg = withDefaults(cfg)
	ctx = klog.NewContext(ctx, klog.LoggerWithName(klog.FromContext(ctx), Name))
	c := &Controller{cfg: cfg, metrics: cfg.Metrics, jobs: jobcache.New(),
		expectations: expectations.New(cfg.Clock),
		plugins:      plugins.NewRegistry(plugins.WithSSHKeys(cfg.SSHKeys)),
	}
	c.jobs.Behavior = cfg.Behavior
	c.events = events.For(cfg.Events, cfg.Metrics, "job")
	if err := c.registerHandlers(ctx); err != nil {
		return nil, err
	}
	c.applier = &applier.Applier{Kube: cfg.Kube, Volcano: cfg.Volcano, Metrics: c.metrics, PodGroups: c.podGroup,
		Expectations: c.expectations, StatusWritten: c.statusWritten,
		Satisfied: func(job string) { c.wake(job, true) }}
	c.retrier = applier.NewDeleteRetrier(c.pods, c.applier, cfg.Clock)
	c.applier.DeleteFailed = c.retrier.Failed
	for i := range cfg.Workers {
		c.shards = append(c.shards, newShard(i, c))
	}
	return c, nil
}

func withDefaults(cfg Config) Config {
	if cfg.Workers <= 0 {
		cfg.Workers = 3
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.GCInterval == 0 {
		cfg.GCInterval = 30 * time.Second
	}
	if cfg.Metrics == nil {
		cfg.Metrics = metrics.New()
	}
	if cfg.SSHKeys == nil {
		cfg.SSHKeys = applier.RSAKeys{}
	}
	if cfg.PodInformers == nil {
		cfg.PodInformers = clients.NewJobPodInformerFactory(cfg.Kube, 0)
	}
	if cfg.KubeInformers == nil {
		cfg.KubeInformers = clients.NewKubeInformerFactory(cfg.Kube, 0)
	}
	if cfg.VolcanoInformers == nil {
		cfg.VolcanoInformers = clients.NewVolcanoInformerFactory(cfg.Volcano, 0)
	}
	return cfg
}

// statusWritten caches the job as a status write returned it: newer than
// what the informer has delivered. The cache refuses it only if the
// informer got there first with something newer still.
func (c *Controller) statusWritten(ctx context.Context, job *vcjob.Job) {
	if err := c.jobs.Update(job); err != nil {
		klog.FromContext(ctx).V(4).Info("Written job not cached", "err", err)
	}
}

// Run waits for the informers (started by the caller) to sync, runs the
// workers and blocks until ctx is done; then it stops taking work, lets
// the steps under way finish, and returns. It logs with ctx's logger,
// named Name; each worker adds its number, each item its job.
func (c *Controller) Run(ctx context.Context) error {
	logger := klog.LoggerWithName(klog.FromContext(ctx), Name)
	ctx = klog.NewContext(ctx, logger)
	if c.cfg.Queues != nil {
		go c.cfg.Queues.Informer().Run(ctx.Done())
	}
	logger.Info("Waiting for informers to sync")
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		c.shutdownQueues()
		if ctx.Err() != nil {
			return nil
		}
		return errors.New("job controller: informers did not sync")
	}
	logger.Info("Informers synced; starting workers", "workers", len(c.shards), "maxRequeue", c.cfg.MaxRequeue)

	var wg sync.WaitGroup
	for _, s := range c.shards {
		wg.Go(func() { s.run(ctx) })
	}
	wg.Go(func() { c.retrier.Run(ctx) })
	wg.Go(func() { c.intake.RunCommands(ctx) })
	wg.Go(func() { c.gc(ctx) })

	<-ctx.Done()
	logger.Info("Stopping: finishing the steps under way")
	c.shutdownQueues()
	wg.Wait()
	logger.Info("Stopped")
	return nil
}

func (c *Controller) shutdownQueues() {
	for _, s := range c.shards {
		s.queue.ShutDown()
	}
	c.intake.ShutDown()
}

func (c *Controller) now() time.Time { return c.cfg.Clock.Now() }

// gc drops the infos of deleted jobs whose pods are all gone, and
// expectations past their time.
func (c *Controller) gc(ctx context.Context) {
	t := c.cfg.Clock.NewTicker(c.cfg.GCInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			for _, k := range c.jobs.Droppable() {
				c.jobs.Drop(k)
			}
			c.expectations.Expire()
		}
	}
}
