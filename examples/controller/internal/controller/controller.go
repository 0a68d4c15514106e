package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/listers"
	schedulinglisters "k8s.io/client-go/listers/scheduling/v1"
	"k8s.io/client-go/tools/cache"
	kuberecord "k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/vcjob/vcjob"
	jobcache "github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/plugins"
	"github.com/vcjob/vcjob/podgroup"
	vcrecord "github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/validation"
)

// Config is what a Controller is built from.
type Config struct {
	Kube kubernetes.Interface
	// Pods lists and watches pods; the controller narrows it to the pods
	// of jobs. nil uses Kube. main.go passes PodListWatch on NewPodClient,
	// which decodes pods without their managed fields.
	Pods cache.ListerWatcher
	// Volcano reads and writes Jobs, PodGroups and Commands (typed, on
	// vcjob's scheme registration).
	Volcano Volcano
	// Workers is the number of job workers (shards); a job's requests all
	// go to one of them (cache.Shard). Volcano's default is 3.
	Workers int
	// MaxRequeue is how often a failed request is requeued before its job
	// is terminated; −1 never gives up. Volcano's default is 15.
	MaxRequeue int
	// Metrics receives the counters (a fresh set when nil).
	Metrics *Metrics
	// SSHKeys makes the ssh plugin's key pairs (RSA 2048 when nil).
	SSHKeys plugins.KeySource
	// RateLimiter makes each worker's queue rate limiter; nil is
	// client-go's default controller limiter (per item 5 ms doubling to
	// 1000 s, overall 10 qps with a burst of 100), as Volcano uses.
	RateLimiter func() workqueue.TypedRateLimiter[item]
	// Resync is the informers' resync period (0: none).
	Resync time.Duration
	// Now reads the clock (time.Now when nil).
	Now func() time.Time
	// GCInterval is how often deleted jobs' infos are dropped from the
	// cache (30 s when zero).
	GCInterval time.Duration
	// Queues, when set, gives validation Volcano's queue rules (a job's
	// queue exists, is Open, is a leaf and is not root); the controller
	// runs its informer. nil skips them, as validation does by default.
	Queues *Queues
	// CoalesceStatus holds back the status writes of finished jobs
	// (Completed, Failed, Terminated: every request is a kill that bumps
	// status.version) and those that only move pod counts, and sends the
	// last of them once the worker has gone through what its queue held
	// (coalesce.go). The final status is the same; the states in between
	// are not sent. Off, every step writes its status, as Volcano's
	// controller does.
	CoalesceStatus bool
	// OrderedRetries: while a job's failed request waits to be retried,
	// the job's later requests wait behind it, and go back on the queue
	// in order once it has succeeded or been given up. A fault then delays
	// a job's requests without reordering them. Off, later requests
	// overtake the failed one, as in Volcano's queue: a restart whose pod
	// delete failed half way can then meet a sync that judges the job on
	// the half-killed pods (and fails it).
	OrderedRetries bool
	// StatusHold is how long a held-back status waits before it is sent
	// (a status written at once, or a pod written for the job, sends it
	// earlier); 0 sends it once the worker has gone through what its
	// queue held when the status was held back.
	StatusHold time.Duration
	// Semantics are the decisions' semantics (vcjob.Semantics; each job's
	// vcjob.dev/semantics annotation applies on top). The zero value is
	// Volcano's.
	Semantics vcjob.Semantics
	// Events, when set, records on each job the Kubernetes Events
	// Volcano's controller records (kubectl describe vcjob): those of
	// every step (worker.Record.Events) and the command handler's
	// CommandIssued. nil records none (main.go's --record-events builds
	// one posting to the API server).
	Events kuberecord.EventRecorder
}

// Controller is a Volcano Job controller: informers feed vcjob's cache,
// which turns cluster changes into requests; the requests are sharded over
// workers that run vcjob's processing step against the API server.
type Controller struct {
	cfg     Config
	metrics *Metrics
	jobs    *jobcache.Cache
	applier *Applier
	plugins *plugins.Registry
	shards  []*shard
	retrier *deleteRetrier

	commands workqueue.TypedRateLimitingInterface[string]

	podInf    *handlerInformer
	pcFactory informers.SharedInformerFactory
	vcInforms []cache.SharedIndexInformer // Jobs, PodGroups, Commands
	pcLister  schedulinglisters.PriorityClassLister
	pgStore   cache.Indexer
	cmdStore  cache.Indexer
	cmdLister listers.ResourceIndexer[*vcjob.Command]
	synced    []cache.InformerSynced
}

// New builds a controller; Run starts it.
func New(cfg Config) (*Controller, error) {
	if cfg.Kube == nil || cfg.Volcano == nil {
		return nil, errors.New("controller: Kube and Volcano clients are required")
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 3
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.GCInterval == 0 {
		cfg.GCInterval = 30 * time.Second
	}
	if cfg.Metrics == nil {
		cfg.Metrics = NewMetrics()
	}
	if cfg.SSHKeys == nil {
		cfg.SSHKeys = RSAKeys{}
	}
	c := &Controller{cfg: cfg, metrics: cfg.Metrics, jobs: jobcache.New(),
		plugins: plugins.NewRegistry(plugins.WithSSHKeys(cfg.SSHKeys)),
		commands: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "commands", MetricsProvider: cfg.Metrics.WorkqueueMetrics()}),
	}
	c.jobs.Semantics = cfg.Semantics

	// Pods: only those carrying the job-name label every vcjob pod has.
	pods := cfg.Pods
	if pods == nil {
		pods = clientsetPods(cfg.Kube)
	}
	// Not a shared informer: nothing else reads a pod store, and the
	// handlers run on the reflector's goroutine as each change arrives,
	// where a shared informer hands each change on through three more
	// goroutines (handlerstore.go).
	c.podInf = newHandlerInformer(jobPods(pods), &corev1.Pod{}, cfg.Resync,
		cache.ResourceEventHandlerFuncs{AddFunc: c.addPod, UpdateFunc: c.updatePod, DeleteFunc: c.deletePod}, podTransform)
	c.synced = append(c.synced, c.podInf.HasSynced)
	c.pcFactory = informers.NewSharedInformerFactory(cfg.Kube, cfg.Resync)

	pcInf := c.pcFactory.Scheduling().V1().PriorityClasses()
	c.pcLister = pcInf.Lister()
	// Jobs, PodGroups and Commands: typed informers on the typed clients;
	// the transforms default jobs and drop managed fields once per change.
	opts := cache.SharedIndexInformerOptions{ResyncPeriod: cfg.Resync}
	jobInf := newInformer(cfg.Volcano.Jobs(""), &vcjob.Job{}, opts)
	pgInf := newInformer(cfg.Volcano.PodGroups(""), &podgroup.PodGroup{}, opts)
	cmdInf := newInformer(cfg.Volcano.Commands(""), &vcjob.Command{}, opts)
	c.vcInforms = []cache.SharedIndexInformer{jobInf, pgInf, cmdInf}
	if cfg.Queues != nil {
		c.vcInforms = append(c.vcInforms, cfg.Queues.Informer())
		c.synced = append(c.synced, cfg.Queues.Informer().HasSynced)
	}
	for inf, t := range map[cache.SharedIndexInformer]cache.TransformFunc{jobInf: jobTransform,
		pgInf: stripTransform(podgroup.GroupVersionKind()), cmdInf: stripTransform(vcjob.BusSchemeGroupVersion.WithKind(vcjob.CommandKind))} {
		if err := inf.SetTransform(t); err != nil {
			return nil, fmt.Errorf("controller: informer transform: %w", err)
		}
	}
	c.pgStore, c.cmdStore = pgInf.GetIndexer(), cmdInf.GetIndexer()
	c.cmdLister = listers.New[*vcjob.Command](c.cmdStore, vcjob.BusResource("commands"))

	c.applier = &Applier{Kube: cfg.Kube, Volcano: cfg.Volcano, Metrics: c.metrics, PodGroups: c.podGroup,
		StatusWritten: func(job *vcjob.Job) {
			// The job as written is newer than what the informer has
			// delivered; the cache refuses it only if the informer got there
			// first with something newer still.
			if err := c.jobs.Update(job); err != nil {
				klog.V(4).InfoS("Written job not cached", "job", klog.KObj(job), "err", err)
			}
		}}
	c.applier.recent = newInFlight(cfg.Now)
	c.applier.Wake = func(job string) { c.wake(job, true) }
	c.retrier = newDeleteRetrier(cfg.Kube, c.applier.deletePod, c.metrics)
	c.applier.DeleteFailed = c.retrier.Failed

	for i := 0; i < cfg.Workers; i++ {
		c.shards = append(c.shards, newShard(i, c))
	}

	regs := []struct {
		inf cache.SharedIndexInformer
		h   cache.ResourceEventHandler
	}{
		{jobInf, cache.ResourceEventHandlerFuncs{AddFunc: c.addJob, UpdateFunc: c.updateJob, DeleteFunc: c.deleteJob}},
		{pgInf, cache.ResourceEventHandlerDetailedFuncs{AddFunc: c.addPodGroup, UpdateFunc: c.updatePodGroup, DeleteFunc: c.deletePodGroup}},
		{cmdInf, cache.ResourceEventHandlerFuncs{AddFunc: c.addCommand}},
	}
	for _, r := range regs {
		reg, err := r.inf.AddEventHandler(r.h)
		if err != nil {
			return nil, fmt.Errorf("controller: event handler: %w", err)
		}
		c.synced = append(c.synced, reg.HasSynced)
	}
	c.synced = append(c.synced, pcInf.Informer().HasSynced)
	c.metrics.Gauge("vcjob_controller_queue_depth", func() float64 {
		n := 0
		for _, s := range c.shards {
			n += s.queue.Len()
		}
		return float64(n)
	})
	c.metrics.Gauge("vcjob_controller_pod_delete_retries_pending", func() float64 { return float64(c.retrier.Pending()) })
	return c, nil
}

// Metrics returns the controller's counters.
func (c *Controller) Metrics() *Metrics { return c.metrics }

// Run starts the informers and the workers and blocks until ctx is done;
// then it stops taking work, lets the steps under way finish, and returns.
func (c *Controller) Run(ctx context.Context) error {
	c.pcFactory.Start(ctx.Done())
	var informers sync.WaitGroup
	informers.Add(1)
	go func() { defer informers.Done(); c.podInf.Run(ctx) }()
	for _, inf := range c.vcInforms {
		informers.Add(1)
		go func() { defer informers.Done(); inf.Run(ctx.Done()) }()
	}
	defer func() {
		c.pcFactory.Shutdown()
		informers.Wait()
	}()
	klog.InfoS("Waiting for informers to sync")
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		c.shutdownQueues()
		if ctx.Err() != nil {
			return nil
		}
		return errors.New("informers did not sync")
	}
	klog.InfoS("Informers synced; starting workers", "workers", len(c.shards), "maxRequeue", c.cfg.MaxRequeue)

	var wg sync.WaitGroup
	for _, s := range c.shards {
		wg.Add(1)
		go func() { defer wg.Done(); s.run(ctx) }()
	}
	wg.Add(3)
	go func() { defer wg.Done(); c.retrier.run(ctx) }()
	go func() { defer wg.Done(); c.runCommands(ctx) }()
	go func() { defer wg.Done(); c.gc(ctx) }()

	<-ctx.Done()
	klog.InfoS("Stopping: finishing the steps under way")
	c.shutdownQueues()
	wg.Wait()
	klog.InfoS("Stopped")
	return nil
}

func (c *Controller) shutdownQueues() {
	for _, s := range c.shards {
		s.queue.ShutDown()
	}
	c.commands.ShutDown()
}

func (c *Controller) now() time.Time { return c.cfg.Now() }

func (c *Controller) shardOf(namespace, job string) *shard {
	return c.shards[jobcache.Shard(namespace, job, len(c.shards))]
}

func (c *Controller) enqueue(req vcjob.Request) {
	c.shardOf(req.Namespace, req.JobName).queue.Add(item{Kind: kindRequest, Req: req})
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

func (c *Controller) event(kind, typ string) {
	c.metrics.Inc(MetricInformerEvents, "kind", kind, "type", typ)
}

func (c *Controller) addJob(obj any) {
	c.event("job", "add")
	job, err := asJob(obj)
	if err != nil {
		klog.ErrorS(err, "Cannot read job")
		return
	}
	c.admit(job)
}

// admit caches a job the admission webhook Volcano runs would have let
// in, and queues its request. That webhook is not here: a job it would
// have refused is left alone, with a log line saying why, until an update
// makes it valid.
func (c *Controller) admit(job *vcjob.Job) {
	opts := validation.Options{}
	if c.cfg.Queues != nil {
		opts.Queues = c.cfg.Queues
	}
	if errs := validation.ValidateJobWith(job, opts); len(errs) > 0 {
		c.metrics.Inc(MetricInvalidJobs)
		klog.ErrorS(errs.ToAggregate(), "Job is invalid; ignoring it", "job", klog.KObj(job))
		return
	}
	// Under the finished-pods-on-add correction, the finished pods that
	// arrived before their job raise their events now.
	reqs, err := c.jobs.OnJobAddWithPods(job)
	if err != nil {
		// As in Volcano, the request is queued all the same.
		klog.ErrorS(err, "Cannot cache job", "job", klog.KObj(job))
	}
	for _, req := range reqs {
		c.enqueue(req)
	}
}

func (c *Controller) updateJob(oldObj, newObj any) {
	c.event("job", "update")
	oldJob, err1 := asJob(oldObj)
	newJob, err2 := asJob(newObj)
	if err := errors.Join(err1, err2); err != nil {
		klog.ErrorS(err, "Cannot read job")
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
		klog.V(4).InfoS("Job update not cached", "job", klog.KObj(newJob), "err", err)
	}
	if ok {
		c.enqueue(req)
	}
}

func (c *Controller) deleteJob(obj any) {
	c.event("job", "delete")
	job, err := asJob(obj)
	if err != nil {
		klog.ErrorS(err, "Cannot read job")
		return
	}
	if err := c.jobs.OnJobDelete(job); err != nil {
		klog.V(4).InfoS("Job delete not cached", "job", klog.KObj(job), "err", err)
	}
	c.shardOf(job.Namespace, job.Name).queue.Add(item{Kind: kindForget, Req: vcjob.Request{Namespace: job.Namespace, JobName: job.Name}})
}

func (c *Controller) addPod(obj any) {
	c.event("pod", "add")
	if pod, ok := asPod(obj); ok {
		c.wake(c.applier.recent.addedPod(pod.Namespace + "/" + pod.Name))
		if req, ok := c.jobs.OnPodAdd(pod); ok {
			c.enqueue(req)
		}
	}
}

func (c *Controller) updatePod(oldObj, newObj any) {
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

func (c *Controller) deletePod(obj any) {
	c.event("pod", "delete")
	if pod, ok := asPod(obj); ok {
		c.wake(c.applier.recent.seenPod(pod.Namespace + "/" + pod.Name))
		if req, ok := c.jobs.OnPodDelete(pod); ok {
			c.enqueue(req)
		}
	}
}

// wake tells job's worker that the job's created pods have all been
// shown: its waiting requests go on.
func (c *Controller) wake(job string, last bool) {
	if !last {
		return
	}
	ns, name := splitKey(job)
	c.shardOf(ns, name).queue.Add(item{Kind: kindWake, Req: vcjob.Request{Namespace: ns, JobName: name}})
}

// deletePodGroup forgets a PodGroup the controller deleted, now that the
// lister no longer holds it.
func (c *Controller) deletePodGroup(obj any) {
	c.event("podgroup", "delete")
	if pg, err := asPodGroup(obj); err == nil {
		c.applier.recent.seenPodGroupGone(pg.UID)
		c.applier.recent.seenPodGroup(pg.Namespace + "/" + pg.Name)
	}
}

// addPodGroup queues what a PodGroup's add raises (cache.OnPodGroupAdd):
// nothing, as Volcano's controller has no add handler for PodGroups,
// unless the podgroup-phase-on-add correction is on and the informer
// shows the PodGroup already in a phase outside its first list (a relist
// after a lost watch): then the request of the phase change it lost.
func (c *Controller) addPodGroup(obj any, inInitialList bool) {
	c.event("podgroup", "add")
	pg, err := asPodGroup(obj)
	if err != nil {
		klog.ErrorS(err, "Cannot read podgroup")
		return
	}
	c.applier.recent.seenPodGroup(pg.Namespace + "/" + pg.Name)
	if req, ok := c.jobs.OnPodGroupAdd(pg.Namespace, jobOfPodGroup(pg), pg.Status.Phase, inInitialList); ok {
		klog.V(2).InfoS("PodGroup first seen in a phase after a relist; syncing its job", "podgroup", klog.KObj(pg), "phase", pg.Status.Phase)
		c.metrics.Inc(MetricPodGroupsSeenLate)
		c.enqueue(req)
	}
}

func (c *Controller) updatePodGroup(oldObj, newObj any) {
	c.event("podgroup", "update")
	oldPG, err1 := asPodGroup(oldObj)
	newPG, err2 := asPodGroup(newObj)
	if err := errors.Join(err1, err2); err != nil {
		klog.ErrorS(err, "Cannot read podgroup")
		return
	}
	if req, ok := c.jobs.OnPodGroupUpdate(newPG.Namespace, jobOfPodGroup(newPG), oldPG.Status.Phase, newPG.Status.Phase); ok {
		c.enqueue(req)
	}
}

func (c *Controller) addCommand(obj any) {
	c.event("command", "add")
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		klog.ErrorS(err, "Cannot key command")
		return
	}
	c.commands.Add(key)
}

// runCommands takes Commands aimed at vcjobs: delete the command (so only
// one controller acts on it), then queue its request on the job's worker.
func (c *Controller) runCommands(ctx context.Context) {
	for {
		key, shutdown := c.commands.Get()
		if shutdown {
			return
		}
		if ctx.Err() == nil {
			if err := c.takeCommand(ctx, key); err != nil {
				if n := c.commands.NumRequeues(key); c.cfg.MaxRequeue < 0 || n < c.cfg.MaxRequeue {
					klog.V(2).InfoS("Cannot take command; requeued", "command", key, "err", err)
					c.commands.AddRateLimited(key)
				} else {
					klog.ErrorS(err, "Cannot take command; dropped", "command", key)
					c.commands.Forget(key)
				}
			} else {
				c.commands.Forget(key)
			}
		}
		c.commands.Done(key)
	}
}

func (c *Controller) takeCommand(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return err
	}
	cmd, err := listers.NewNamespaced(c.cmdLister, ns).Get(name)
	switch {
	case apierrors.IsNotFound(err):
		return nil // taken already
	case err != nil:
		return err
	}
	if _, ok := jobcache.CommandRequest(cmd); !ok {
		return nil // aimed at something else
	}
	err = c.cfg.Volcano.Commands(cmd.Namespace).Delete(ctx, cmd.Name,
		metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &cmd.UID}})
	switch {
	case apierrors.IsNotFound(err), apierrors.IsConflict(err):
		return nil // another controller took it
	case err != nil:
		return fmt.Errorf("delete command: %w", err)
	}
	c.metrics.Inc(MetricCommands, "action", cmd.Action)
	req, events, _ := c.jobs.OnCommand(cmd)
	klog.V(1).InfoS("Command taken", "command", klog.KObj(cmd), "job", klog.KRef(req.Namespace, req.JobName), "action", cmd.Action)
	c.recordEvents(req.Namespace, req.JobName, events)
	c.enqueue(req)
	return nil
}

// recordEvents records events on the job namespace/name as the cache holds
// it (Volcano records on its cache's job; a job not there gets none).
func (c *Controller) recordEvents(namespace, name string, events []vcrecord.Event) {
	if c.cfg.Events == nil || len(events) == 0 {
		return
	}
	ji, err := c.jobs.Lease(namespace, name)
	if err != nil {
		return
	}
	// The reference needs only the job's kind, name, namespace, UID and
	// resourceVersion: a small object of its own, not the cache's.
	job := &vcjob.Job{TypeMeta: metav1.TypeMeta{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind},
		ObjectMeta: metav1.ObjectMeta{Namespace: ji.Job.Namespace, Name: ji.Job.Name, UID: ji.Job.UID, ResourceVersion: ji.Job.ResourceVersion}}
	ji.Release()
	for _, e := range events {
		c.cfg.Events.Event(job, e.Type, e.Reason, e.Message)
	}
}

// gc drops the infos of deleted jobs whose pods are all gone.
func (c *Controller) gc(ctx context.Context) {
	t := time.NewTicker(c.cfg.GCInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			for _, k := range c.jobs.Droppable() {
				c.jobs.Drop(k)
			}
			c.applier.recent.expire()
		}
	}
}
