package app

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/vcjob/vcjob/behavior"

	"github.com/vcjob/vcjob/examples/controller/internal/admission"
	jobcontroller "github.com/vcjob/vcjob/examples/controller/internal/controller/job"
	"github.com/vcjob/vcjob/examples/controller/internal/leader"
	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
	"github.com/vcjob/vcjob/examples/controller/pkg/metrics"
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

	// The job controller's settings (job.Config).
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
// replica leads (or at once, without --leader-elect). Everything logs
// with ctx's logger (klog.FromContext), each part under its name.
func Run(ctx context.Context, o Options) error {
	sem, err := behavior.Parse(behavior.Set{}, o.Semantics)
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
		stop, err := serveMetrics(ctx, o.MetricsAddr, m, o.Pprof, &current)
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
