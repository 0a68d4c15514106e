package app

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	kuberecord "k8s.io/client-go/tools/record"

	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/cronjob"

	cronjobcontroller "github.com/vcjob/vcjob/examples/controller/internal/controller/cronjob"
	jobcontroller "github.com/vcjob/vcjob/examples/controller/internal/controller/job"
	ttlcontroller "github.com/vcjob/vcjob/examples/controller/internal/controller/ttl"
	"github.com/vcjob/vcjob/examples/controller/internal/events"
	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
	"github.com/vcjob/vcjob/examples/controller/pkg/metrics"
)

// runControllers builds the controllers (the job controller, the CronJob
// controller, the TTL collector) on shared informer factories, starts the
// informers once every controller has taken its own, and runs the
// controllers until ctx is done or one fails.
func runControllers(ctx context.Context, o Options, sem behavior.Set, set *clients.Set, m *metrics.Metrics, current *atomic.Pointer[jobcontroller.Controller]) error {
	queues, err := queueRules(o, set)
	if err != nil {
		return err
	}
	recorder, stop, err := eventRecorder(ctx, o, set)
	if err != nil {
		return err
	}
	defer stop() // after the controllers stopped
	cs, err := newControllers(ctx, o, sem, set, m, queues, recorder)
	if err != nil {
		return err
	}
	current.Store(cs.jobs)
	defer current.Store(nil)
	return cs.run(ctx)
}

// queueRules is Volcano's queue rules for the job controller's validation
// (--queue-checks), or nil.
func queueRules(o Options, set *clients.Set) (*clients.Queues, error) {
	if !o.QueueChecks {
		return nil, nil
	}
	dyn, err := dynamic.NewForConfig(set.Config)
	if err != nil {
		return nil, err
	}
	return clients.NewQueues(dyn, 0)
}

// eventRecorder posts the controllers' Kubernetes Events (--record-events;
// nil records none); stop flushes it once the controllers have stopped.
func eventRecorder(ctx context.Context, o Options, set *clients.Set) (recorder kuberecord.EventRecorder, stop func(), err error) {
	if !o.RecordEvents {
		return nil, func() {}, nil
	}
	scheme, err := clients.NewScheme()
	if err != nil {
		return nil, nil, err
	}
	recorder, stop = events.NewRecorder(ctx, set.Kube, scheme, 4)
	return recorder, stop, nil
}

// controllers are the controllers a leader runs, and the shared informer
// factories they take their informers from.
type controllers struct {
	pods, kube informers.SharedInformerFactory
	volcano    *clients.VolcanoInformerFactory
	jobs       *jobcontroller.Controller
	cronJobs   *cronjobcontroller.Controller
	collector  *ttlcontroller.Controller
}

// newControllers builds the controllers; their handlers log with ctx's
// logger.
func newControllers(ctx context.Context, o Options, sem behavior.Set, set *clients.Set, m *metrics.Metrics, queues *clients.Queues, recorder kuberecord.EventRecorder) (*controllers, error) {
	cs := &controllers{
		pods:    clients.NewJobPodInformerFactory(set.Kube, 0),
		kube:    clients.NewKubeInformerFactory(set.Kube, 0),
		volcano: clients.NewVolcanoInformerFactory(set.Volcano, 0),
	}
	var err error
	cs.jobs, err = jobcontroller.New(ctx, jobcontroller.Config{
		Kube: set.Kube, Volcano: set.Volcano, PodInformers: cs.pods, KubeInformers: cs.kube, VolcanoInformers: cs.volcano,
		Workers: o.Workers, MaxRequeue: o.MaxRequeue, Metrics: m, Behavior: sem, Queues: queues,
		CoalesceStatus: o.CoalesceStatus, StatusHold: o.StatusHold, OrderedRetries: o.OrderedRetries,
		Events: recorder,
	})
	if err != nil {
		return nil, err
	}
	cronWorkers := o.CronJobWorkers
	if cronWorkers <= 0 {
		cronWorkers = o.Workers
	}
	cs.cronJobs, err = cronjobcontroller.New(ctx, cronjobcontroller.Config{
		Volcano: set.Volcano, VolcanoInformers: cs.volcano, Workers: cronWorkers, Events: recorder, Metrics: m,
		// Volcano reads a schedule without a zone in its machine's.
		Options: cronjob.Options{Local: time.Local},
	})
	if err != nil {
		return nil, err
	}
	cs.collector, err = ttlcontroller.New(ctx, ttlcontroller.Config{
		Volcano: set.Volcano, VolcanoInformers: cs.volcano, Workers: o.TTLWorkers, Metrics: m,
	})
	return cs, err
}

// run starts the informers (every controller has taken its own by now)
// and runs the controllers until ctx is done or one fails, which stops
// them all.
func (cs *controllers) run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cs.pods.Start(ctx.Done())
	cs.kube.Start(ctx.Done())
	cs.volcano.Start(ctx.Done())
	defer func() {
		cancel()
		cs.pods.Shutdown()
		cs.kube.Shutdown()
		cs.volcano.Shutdown()
	}()
	errs := make(chan error, 3)
	var wg sync.WaitGroup
	for _, run := range []func(context.Context) error{cs.jobs.Run, cs.cronJobs.Run, cs.collector.Run} {
		wg.Go(func() {
			if err := run(ctx); err != nil {
				errs <- err
				cancel() // one controller failing stops them all
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}
