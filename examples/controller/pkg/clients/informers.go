package clients

import (
	"context"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/listers"
	"k8s.io/client-go/tools/cache"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
)

// NewJobPodInformerFactory is client-go's shared informer factory narrowed
// to the pods of jobs: every list and watch selects the job-name label
// every pod of a vcjob Job carries, and the cached pods lose their managed
// fields (a third of a pod as the API server sends it; nobody reads them).
// Use it for pods only: the selector applies to every kind it informs.
func NewJobPodInformerFactory(kube kubernetes.Interface, resync time.Duration) informers.SharedInformerFactory {
	return informers.NewSharedInformerFactoryWithOptions(kube, resync,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = vcjob.JobNameKey }),
		informers.WithTransform(DropManagedFields))
}

// NewKubeInformerFactory is client-go's shared informer factory for the
// other built-in kinds (PriorityClasses), without managed fields.
func NewKubeInformerFactory(kube kubernetes.Interface, resync time.Duration) informers.SharedInformerFactory {
	return informers.NewSharedInformerFactoryWithOptions(kube, resync, informers.WithTransform(DropManagedFields))
}

// DropManagedFields is an informer transform that drops an object's
// managed fields before it is cached.
func DropManagedFields(obj any) (any, error) {
	if m, ok := obj.(metav1.Object); ok {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

// Informer is one kind's shared informer and its lister, as a generated
// informer package offers them.
type Informer[T runtime.Object] struct {
	informer cache.SharedIndexInformer
	resource schema.GroupResource
}

// Informer is the shared informer, to add event handlers to.
func (i Informer[T]) Informer() cache.SharedIndexInformer { return i.informer }

// Lister reads the informer's cache; listers.NewNamespaced narrows it to
// one namespace.
func (i Informer[T]) Lister() listers.ResourceIndexer[T] {
	return listers.New[T](i.informer.GetIndexer(), i.resource)
}

// VolcanoInformerFactory is a shared informer factory for Volcano's kinds
// on the typed clients, as informer-gen generates one for a clientset:
// each kind's informer is made on first request and shared by everyone who
// asks, Start runs those not running yet, Shutdown waits for them. Cached
// objects lose their managed fields and get their apiVersion and kind
// (typed decoding leaves them empty); Jobs also get vcjob.SetDefaults,
// once per change, so every controller sees what Volcano's mutating
// webhook would have written, whether or not a webhook ran.
type VolcanoInformerFactory struct {
	client Volcano
	resync time.Duration

	mu        sync.Mutex
	informers map[schema.GroupResource]cache.SharedIndexInformer
	started   map[schema.GroupResource]bool
	wg        sync.WaitGroup
}

// NewVolcanoInformerFactory returns a factory of informers on client in
// every namespace, resyncing every resync (0: never).
func NewVolcanoInformerFactory(client Volcano, resync time.Duration) *VolcanoInformerFactory {
	return &VolcanoInformerFactory{client: client, resync: resync,
		informers: map[schema.GroupResource]cache.SharedIndexInformer{}, started: map[schema.GroupResource]bool{}}
}

// Jobs is the Job informer.
func (f *VolcanoInformerFactory) Jobs() Informer[*vcjob.Job] {
	return informerFor(f, JobsResource.GroupResource(), f.client.Jobs(""), &vcjob.Job{}, jobTransform)
}

// PodGroups is the PodGroup informer.
func (f *VolcanoInformerFactory) PodGroups() Informer[*podgroup.PodGroup] {
	return informerFor(f, PodGroupsResource.GroupResource(), f.client.PodGroups(""), &podgroup.PodGroup{},
		kindTransform(podgroup.GroupVersionKind()))
}

// Commands is the Command informer.
func (f *VolcanoInformerFactory) Commands() Informer[*vcjob.Command] {
	return informerFor(f, CommandsResource.GroupResource(), f.client.Commands(""), &vcjob.Command{},
		kindTransform(vcjob.BusSchemeGroupVersion.WithKind(vcjob.CommandKind)))
}

// CronJobs is the CronJob informer.
func (f *VolcanoInformerFactory) CronJobs() Informer[*vcjob.CronJob] {
	return informerFor(f, CronJobsResource.GroupResource(), f.client.CronJobs(""), &vcjob.CronJob{},
		kindTransform(vcjob.SchemeGroupVersion.WithKind(vcjob.CronJobKind)))
}

// Start runs every informer requested so far that is not running yet,
// until stop is closed.
func (f *VolcanoInformerFactory) Start(stop <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for gr, inf := range f.informers {
		if f.started[gr] {
			continue
		}
		f.started[gr] = true
		f.wg.Go(func() { inf.Run(stop) })
	}
}

// Shutdown waits for the started informers to stop (close Start's stop
// channel first).
func (f *VolcanoInformerFactory) Shutdown() { f.wg.Wait() }

func informerFor[T, L runtime.Object](f *VolcanoInformerFactory, gr schema.GroupResource, r Resource[T, L], example T, transform cache.TransformFunc) Informer[T] {
	f.mu.Lock()
	defer f.mu.Unlock()
	inf, ok := f.informers[gr]
	if !ok {
		lw := &cache.ListWatch{
			ListWithContextFunc:  func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) { return r.List(ctx, o) },
			WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) { return r.Watch(ctx, o) },
		}
		inf = cache.NewSharedIndexInformerWithOptions(lw, example, cache.SharedIndexInformerOptions{
			ResyncPeriod: f.resync,
			Indexers:     cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
		})
		_ = inf.SetTransform(transform) // fails only once started, and it is not
		f.informers[gr] = inf
	}
	return Informer[T]{informer: inf, resource: gr}
}

// kindTransform drops managed fields and sets the object's apiVersion and
// kind.
func kindTransform(gvk schema.GroupVersionKind) cache.TransformFunc {
	return func(obj any) (any, error) {
		if o, ok := obj.(runtime.Object); ok {
			o.GetObjectKind().SetGroupVersionKind(gvk)
		}
		return DropManagedFields(obj)
	}
}

func jobTransform(obj any) (any, error) {
	if j, ok := obj.(*vcjob.Job); ok {
		j.ManagedFields = nil
		PrepareJob(j)
	}
	return obj, nil
}

// PrepareJob readies a Job as the API server returns it for a cache:
// Volcano's defaults filled in in memory (what Volcano's mutating webhook
// writes on create; a no-op for a job that has them) and its apiVersion
// and kind set.
func PrepareJob(job *vcjob.Job) *vcjob.Job {
	job.APIVersion, job.Kind = vcjob.APIVersion, vcjob.JobKind
	vcjob.SetDefaults(job)
	return job
}
