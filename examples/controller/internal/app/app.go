// Package app wires the controller process together: clients, the
// metrics and webhook servers, leader election, and the controllers run
// while this replica leads.
package app

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/dynamic"
	kuberecord "k8s.io/client-go/tools/record"

	"github.com/vcjob/vcjob/cronjob"
	"github.com/vcjob/vcjob/semantics"

	"github.com/vcjob/vcjob/examples/controller/internal/admission"
	"github.com/vcjob/vcjob/examples/controller/internal/clients"
	"github.com/vcjob/vcjob/examples/controller/internal/cronjobcontroller"
	"github.com/vcjob/vcjob/examples/controller/internal/events"
	"github.com/vcjob/vcjob/examples/controller/internal/jobcontroller"
	"github.com/vcjob/vcjob/examples/controller/internal/leader"
	"github.com/vcjob/vcjob/examples/controller/internal/metrics"
	"github.com/vcjob/vcjob/examples/controller/internal/ttlcontroller"
)

// Options are the process's settings (main.go's flags).
type Options struct {
	Client clients.ConfigOptions

	LeaderElect bool
	Leader      leader.Options

	MetricsAddr string
	Pprof       bool

	// WebhookAddr serves the admission webhooks over TLS with
	// TLSCertFile and TLSKeyFile; empty serves none.
	WebhookAddr, TLSCertFile, TLSKeyFile string

	// The job controller's settings (jobcontroller.Config).
	Workers        int
	MaxRequeue     int
	Semantics      string
	CoalesceStatus bool
	StatusHold     time.Duration
	OrderedRetries bool
	QueueChecks    bool

	// CronJobWorkers are the CronJob controller's workers (0: Workers, as
	// Volcano's --worker-threads sets both); TTLWorkers the TTL
	// collector's (Volcano's --worker-threads-for-gc, 1).
	CronJobWorkers int
	TTLWorkers     int
	// RecordEvents posts the controllers' Kubernetes Events, as Volcano's
	// do.
	RecordEvents bool
}

// Run runs the process until ctx is done: the metrics and webhook servers
// at once (every replica serves admission), the controllers while this
// replica leads (or at once, without --leader-elect).
func Run(ctx context.Context, o Options) error {
	sem, err := semantics.Parse(semantics.Profile{}, o.Semantics)
	if err != nil {
		return fmt.Errorf("--semantics: %w", err)
	}
	m := metrics.New()
	m.RegisterClientGoMetrics()
	o.Client.WrapTransport = m.CountRequests
	cfg, err := clients.RESTConfig(o.Client)
	if err != nil {
		return err
	}
	set, err := clients.NewSet(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var current atomic.Pointer[jobcontroller.Controller] // for /debug/vcjob/job
	if o.MetricsAddr != "" {
		stop, err := serveMetrics(o.MetricsAddr, m, o.Pprof, &current)
		if err != nil {
			return err
		}
		defer stop()
	}
	webhookErr := make(chan error, 1)
	if o.WebhookAddr != "" {
		srv := &admission.Server{Addr: o.WebhookAddr, CertFile: o.TLSCertFile, KeyFile: o.TLSKeyFile, Metrics: m}
		go func() {
			if err := srv.Run(ctx); err != nil {
				webhookErr <- err
				cancel() // a replica that cannot serve admission stops
			}
		}()
	}

	run := func(ctx context.Context) error {
		m.Leader.Set(1)
		defer m.Leader.Set(0)
		return runControllers(ctx, o, sem, set, m, &current)
	}
	if o.LeaderElect {
		err = leader.Run(ctx, set.Kube, o.Leader, run)
	} else {
		err = run(ctx)
	}
	select {
	case werr := <-webhookErr:
		return werr
	default:
		return err
	}
}

// runControllers builds the controllers (the job controller, the CronJob
// controller, the TTL collector) on shared informer factories, starts the
// informers once every controller has taken its own, and runs the
// controllers until ctx is done or one fails.
func runControllers(ctx context.Context, o Options, sem semantics.Profile, set *clients.Set, m *metrics.Metrics, current *atomic.Pointer[jobcontroller.Controller]) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pods := clients.NewJobPodInformerFactory(set.Kube, 0)
	kube := clients.NewKubeInformerFactory(set.Kube, 0)
	volcano := clients.NewVolcanoInformerFactory(set.Volcano, 0)
	var queues *jobcontroller.Queues
	if o.QueueChecks {
		dyn, err := dynamic.NewForConfig(set.Config)
		if err != nil {
			return err
		}
		if queues, err = jobcontroller.NewQueues(dyn, 0); err != nil {
			return err
		}
	}
	var recorder kuberecord.EventRecorder
	if o.RecordEvents {
		scheme, err := clients.NewScheme()
		if err != nil {
			return err
		}
		var stop func()
		recorder, stop = events.NewRecorder(set.Kube, scheme, 4)
		defer stop() // after the controllers stopped
	}
	jobs, err := jobcontroller.New(jobcontroller.Config{
		Kube: set.Kube, Volcano: set.Volcano, PodInformers: pods, KubeInformers: kube, VolcanoInformers: volcano,
		Workers: o.Workers, MaxRequeue: o.MaxRequeue, Metrics: m, Semantics: sem, Queues: queues,
		CoalesceStatus: o.CoalesceStatus, StatusHold: o.StatusHold, OrderedRetries: o.OrderedRetries,
		Events: recorder,
	})
	if err != nil {
		return err
	}
	cronWorkers := o.CronJobWorkers
	if cronWorkers <= 0 {
		cronWorkers = o.Workers
	}
	cronJobs, err := cronjobcontroller.New(cronjobcontroller.Config{
		Volcano: set.Volcano, VolcanoInformers: volcano, Workers: cronWorkers, Events: recorder, Metrics: m,
		// Volcano reads a schedule without a zone in its machine's.
		Options: cronjob.Options{Local: time.Local},
	})
	if err != nil {
		return err
	}
	collector, err := ttlcontroller.New(ttlcontroller.Config{
		Volcano: set.Volcano, VolcanoInformers: volcano, Workers: o.TTLWorkers, Metrics: m,
	})
	if err != nil {
		return err
	}
	current.Store(jobs)
	defer current.Store(nil)
	pods.Start(ctx.Done())
	kube.Start(ctx.Done())
	volcano.Start(ctx.Done())
	defer func() {
		cancel()
		pods.Shutdown()
		kube.Shutdown()
		volcano.Shutdown()
	}()
	errs := make(chan error, 3)
	var wg sync.WaitGroup
	for _, run := range []func(context.Context) error{jobs.Run, cronJobs.Run, collector.Run} {
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
