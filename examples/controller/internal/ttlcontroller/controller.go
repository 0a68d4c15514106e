// Package ttlcontroller is Volcano's garbage collector of finished Jobs
// (pkg/controllers/garbagecollector: spec.ttlSecondsAfterFinished) on the
// vcjob library's ttl package: the Job informer's add and update handlers
// queue a job when ttl.Enqueues says so, and a worker runs ttl.Process on
// it, which judges the cached copy, reads the job again from the API
// server when it has expired, and deletes it (Foreground, with its UID as
// precondition) when the copy read has expired too. The key is then
// forgotten, requeued for when the job expires, or retried with backoff,
// as the Result says. Nothing here decides.
package ttlcontroller

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/listers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/ttl"

	"github.com/vcjob/vcjob/examples/controller/internal/clients"
	"github.com/vcjob/vcjob/examples/controller/internal/metrics"
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
	// Now reads the clock (time.Now when nil).
	Now func() time.Time
	// RateLimiter makes the queue's rate limiter; nil is client-go's
	// default controller limiter, as Volcano's.
	RateLimiter func() workqueue.TypedRateLimiter[string]
	// Metrics receives the counters (a fresh set when nil).
	Metrics *metrics.Metrics
}

// Controller is the TTL collector.
type Controller struct {
	cfg    Config
	queue  workqueue.TypedRateLimitingInterface[string]
	jobs   listers.ResourceIndexer[*vcjob.Job]
	synced cache.InformerSynced
}

// New builds the collector and registers its handlers with the Job
// informer; Run starts its workers.
func New(cfg Config) (*Controller, error) {
	if cfg.Volcano == nil {
		return nil, errors.New("ttlcontroller: a Volcano client is required")
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 1
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
	c := &Controller{cfg: cfg,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(cfg.RateLimiter(),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "ttl", MetricsProvider: cfg.Metrics.Workqueue()}),
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
		return nil, fmt.Errorf("ttlcontroller: event handler: %w", err)
	}
	c.synced = reg.HasSynced
	return c, nil
}

// enqueue queues a job that ttl.Enqueues: not being deleted, finished,
// with a ttlSecondsAfterFinished.
func (c *Controller) enqueue(obj any) {
	job, ok := obj.(*vcjob.Job)
	if !ok || !ttl.Enqueues(job) {
		return
	}
	c.queue.Add(cache.MetaObjectToName(job).String())
}

// Run waits for the informer (started by the caller) to sync, runs the
// workers until ctx is done, lets the work under way finish and returns.
func (c *Controller) Run(ctx context.Context) error {
	if !cache.WaitForCacheSync(ctx.Done(), c.synced) {
		c.queue.ShutDown()
		if ctx.Err() != nil {
			return nil
		}
		return errors.New("ttlcontroller: informer did not sync")
	}
	klog.InfoS("TTL collector started", "workers", c.cfg.Workers)
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

// processNext processes one key: ttl.Process on the job the lister holds,
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
	r := c.process(ctx, key)
	c.cfg.Metrics.TTLProcessed.WithLabelValues(string(r.Next), strconv.FormatBool(r.Delete != nil && r.Err == nil)).Inc()
	switch r.Next {
	case ttl.Retry:
		klog.ErrorS(r.Err, "Cannot clean up job; will retry", "job", key)
		c.queue.AddRateLimited(key)
		return true
	case ttl.RequeueAfter:
		c.queue.Forget(key)
		c.queue.AddAfter(key, r.After)
	default:
		c.queue.Forget(key)
	}
	if r.Delete != nil {
		klog.V(2).InfoS("Job deleted after its TTL", "job", key)
	}
	return true
}

func (c *Controller) process(ctx context.Context, key string) ttl.Result {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return ttl.Result{Next: ttl.Done}
	}
	job, err := listers.NewNamespaced(c.jobs, ns).Get(name)
	switch {
	case apierrors.IsNotFound(err):
		job = nil
	case err != nil:
		return ttl.Result{Next: ttl.Retry, Err: err}
	}
	return ttl.Process(ctx, api{c.cfg.Volcano}, job, c.cfg.Now)
}

// callTimeout bounds each API call.
const callTimeout = 30 * time.Second

// api is ttl.API on the typed clients: the job read from the API server,
// not from the informer.
type api struct{ volcano clients.Volcano }

func (a api) Get(ctx context.Context, namespace, name string) (*vcjob.Job, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), callTimeout)
	defer cancel()
	return a.volcano.Jobs(namespace).Get(ctx, name, metav1.GetOptions{})
}

func (a api) Delete(ctx context.Context, namespace, name string, opts metav1.DeleteOptions) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), callTimeout)
	defer cancel()
	return a.volcano.Jobs(namespace).Delete(ctx, name, opts)
}
