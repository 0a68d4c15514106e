// Command controller is a Volcano Job controller (batch.volcano.sh/v1alpha1)
// built on the vcjob library and client-go, with Volcano's admission
// webhooks for Jobs and CronJobs. See README.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/klog/v2"

	"github.com/vcjob/vcjob/examples/controller/internal/app"
)

func main() {
	klog.InitFlags(nil)
	o := parseFlags()
	// The root logger (klog's, as -v and the other klog flags set it up):
	// every part of the process takes it from the context and adds its
	// name and values.
	klog.EnableContextualLogging(true)
	ctx := klog.NewContext(context.Background(), klog.Background())
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, os.Interrupt)
	err := app.Run(ctx, o)
	stop()
	klog.Flush()
	if err != nil {
		fmt.Fprintln(os.Stderr, "controller:", err)
		os.Exit(1)
	}
}

func parseFlags() app.Options {
	var o app.Options
	var qps float64
	flag.StringVar(&o.Client.Kubeconfig, "kubeconfig", "", "Path to a kubeconfig; empty uses $KUBECONFIG's default loading rules, then the in-cluster config.")
	flag.Float64Var(&qps, "kube-api-qps", 50, "Client-side rate limit of API requests per second (Volcano's default is 50).")
	flag.IntVar(&o.Client.Burst, "kube-api-burst", 100, "Client-side burst of API requests (Volcano's default is 100).")
	flag.BoolVar(&o.Client.Compression, "kube-api-compression", false, "Ask the API server for gzip-compressed responses and watch streams (client-go's default); off, a controller next to its API server spends less CPU per event.")

	flag.BoolVar(&o.LeaderElect, "leader-elect", false, "Run the controllers only while holding a coordination.k8s.io Lease, so several replicas can run.")
	flag.StringVar(&o.Leader.Namespace, "leader-elect-namespace", "default", "Namespace of the leader-election Lease.")
	flag.StringVar(&o.Leader.Name, "leader-elect-name", "vcjob-controller", "Name of the leader-election Lease.")
	flag.DurationVar(&o.Leader.LeaseDuration, "leader-elect-lease-duration", 15*time.Second, "How long a lease holds without renewal.")
	flag.DurationVar(&o.Leader.RenewDeadline, "leader-elect-renew-deadline", 10*time.Second, "How long the leader keeps trying to renew before it gives up.")
	flag.DurationVar(&o.Leader.RetryPeriod, "leader-elect-retry-period", 2*time.Second, "How often candidates try to acquire or renew.")

	flag.StringVar(&o.MetricsAddr, "metrics-addr", ":8080", "Address serving /metrics and /healthz; empty disables it.")
	flag.BoolVar(&o.Pprof, "pprof", false, "Also serve Go's profiling endpoints under /debug/pprof/, and the job controller's view of a job at /debug/vcjob/job?job=namespace/name, on the metrics address.")
	flag.StringVar(&o.WebhookAddr, "webhook-addr", "", "Address serving the admission webhooks (/jobs/mutate, /jobs/validate, /cronjobs/validate) over TLS; empty serves none.")
	flag.StringVar(&o.TLSCertFile, "tls-cert-file", "", "The webhook server's certificate (PEM); reread when it changes.")
	flag.StringVar(&o.TLSKeyFile, "tls-private-key-file", "", "The webhook server's private key (PEM); reread when it changes.")

	flag.IntVar(&o.Workers, "workers", 3, "Job workers; every request of one job goes to the same worker (Volcano's default is 3).")
	flag.IntVar(&o.MaxRequeue, "max-requeue", 15, "Requeues of a failed request before its job is terminated; -1 never gives up (Volcano's --max-requeue-num, default 15).")
	flag.StringVar(&o.Semantics, "semantics", "volcano", "The decisions' semantics: volcano, corrected, or corrections by name, comma-separated (behavior.Parse); a job's vcjob.dev/semantics annotation applies on top.")
	flag.BoolVar(&o.CoalesceStatus, "coalesce-status", false, "Hold back a status write that only moves pod counts, or that of a finished job, and send the last one after --status-hold; false writes every one, as Volcano's controller does.")
	flag.DurationVar(&o.StatusHold, "status-hold", 500*time.Millisecond, "With --coalesce-status: how long a held-back status waits for more before it is sent; 0 sends it once the worker has gone through what its queue held.")
	flag.BoolVar(&o.OrderedRetries, "ordered-retries", false, "While a job's failed request waits to be retried, hold the job's later requests behind it; false lets them overtake it, as Volcano's queue does.")
	flag.BoolVar(&o.QueueChecks, "queue-checks", false, "Ignore jobs whose queue Volcano's webhook would refuse (missing, not Open, not a leaf, root), from an informer on Volcano's Queues.")
	flag.IntVar(&o.CronJobWorkers, "cronjob-workers", 0, "CronJob controller workers; 0 uses --workers, as Volcano's --worker-threads sets both.")
	flag.IntVar(&o.TTLWorkers, "ttl-workers", 1, "Workers of the collector of finished jobs' ttlSecondsAfterFinished (Volcano's --worker-threads-for-gc, default 1).")
	flag.BoolVar(&o.RecordEvents, "record-events", true, "Post the controllers' Kubernetes Events (the job controller's on jobs, the CronJob controller's on cronjobs), as Volcano's do; false posts none.")
	flag.Parse()
	o.Client.QPS = float32(qps)
	o.Client.UserAgent = "vcjob-controller"
	return o
}
