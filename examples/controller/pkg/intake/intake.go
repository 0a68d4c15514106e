package intake

import (
	"context"

	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	jobcache "github.com/vcjob/vcjob/cache"
	vcrecord "github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/request"

	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
	"github.com/vcjob/vcjob/examples/controller/pkg/expectations"
	"github.com/vcjob/vcjob/examples/controller/pkg/metrics"
)

// Config is what Handlers are built from: the job controller's cache and
// expectations, and where the requests go. Jobs, Expectations, Metrics,
// Volcano, CommandStore and Enqueue are required.
type Config struct {
	// Jobs is the cache the handlers feed; it returns the requests.
	Jobs *jobcache.Cache
	// Expectations are told what the informers show (package
	// expectations).
	Expectations *expectations.Expectations
	Metrics      *metrics.Metrics
	// Queues, when set, gives validation Volcano's queue rules.
	Queues *clients.Queues
	// Volcano deletes the Commands taken; CommandStore is the Command
	// informer's store they are read from.
	Volcano      clients.Volcano
	CommandStore cache.Indexer
	// MaxRequeue is how often taking a Command is retried; −1 never gives
	// up.
	MaxRequeue int

	// Enqueue queues a request on its job's worker.
	Enqueue func(request.Request)
	// Wake tells a job's worker that the pods created for the job have
	// all been shown (when last is true); nil tells no one.
	Wake func(job string, last bool)
	// Forget tells a job's worker that the job was deleted; nil tells no
	// one.
	Forget func(namespace, name string)
	// RecordEvents records the Events of a Command taken on its job; nil
	// records none.
	RecordEvents func(request.Request, []vcrecord.Event)
	// Clock is the Command queue's clock (its rate limiting); nil is the
	// real clock.
	Clock clock.WithTicker
}

// Handlers are the informers' event handlers and the Command taker. The
// handlers run on the informers' goroutines and never call the API
// server; RunCommands deletes the Commands on its own goroutine.
type Handlers struct {
	cfg          Config
	logger       klog.Logger
	jobs         *jobcache.Cache
	expectations *expectations.Expectations
	metrics      *metrics.Metrics
	commands     workqueue.TypedRateLimitingInterface[string]
	cmdStore     cache.Indexer
}

// New makes the handlers; register Jobs, Pods, PodGroups and Commands
// with their informers, and run RunCommands. The handlers log with ctx's
// logger (klog.FromContext).
func New(ctx context.Context, cfg Config) *Handlers {
	return &Handlers{cfg: cfg, logger: klog.FromContext(ctx), jobs: cfg.Jobs, expectations: cfg.Expectations,
		metrics: cfg.Metrics, cmdStore: cfg.CommandStore,
		commands: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "commands", MetricsProvider: cfg.Metrics.Workqueue(), Clock: cfg.Clock}),
	}
}

// Jobs handles the job informer's events.
func (c *Handlers) Jobs() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{AddFunc: c.addJob, UpdateFunc: c.updateJob, DeleteFunc: c.deleteJob}
}

// Pods handles the pod informer's events.
func (c *Handlers) Pods() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{AddFunc: c.addPod, UpdateFunc: c.updatePod, DeleteFunc: c.deletePod}
}

// PodGroups handles the PodGroup informer's events; an add knows whether
// it is of the informer's first list.
func (c *Handlers) PodGroups() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerDetailedFuncs{AddFunc: c.addPodGroup, UpdateFunc: c.updatePodGroup, DeleteFunc: c.deletePodGroup}
}

// Commands handles the Command informer's adds: the Command's key goes on
// the queue RunCommands works through.
func (c *Handlers) Commands() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{AddFunc: c.addCommand}
}

// ShutDown stops RunCommands.
func (c *Handlers) ShutDown() { c.commands.ShutDown() }

func (c *Handlers) enqueue(req request.Request) { c.cfg.Enqueue(req) }

func (c *Handlers) wake(job string, last bool) {
	if c.cfg.Wake != nil {
		c.cfg.Wake(job, last)
	}
}

func (c *Handlers) forget(namespace, name string) {
	if c.cfg.Forget != nil {
		c.cfg.Forget(namespace, name)
	}
}

func (c *Handlers) recordEvents(req request.Request, evs []vcrecord.Event) {
	if c.cfg.RecordEvents != nil {
		c.cfg.RecordEvents(req, evs)
	}
}
