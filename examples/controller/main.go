// Command controller is a Volcano Job controller (batch.volcano.sh/v1alpha1)
// built on the vcjob library and client-go. See README.md.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	kuberecord "k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/examples/controller/internal/controller"
)

type options struct {
	kubeconfig     string
	workers        int
	maxRequeue     int
	leaderElect    bool
	leaseNamespace string
	leaseName      string
	leaseDuration  time.Duration
	renewDeadline  time.Duration
	retryPeriod    time.Duration
	metricsAddr    string
	qps            float64
	burst          int
	pprof          bool
	semantics      string
	coalesce       bool
	statusHold     time.Duration
	compression    bool
	ordered        bool
	recordEvents   bool
	queueChecks    bool
	rawIO          bool
}

func main() {
	klog.InitFlags(nil)
	var o options
	flag.StringVar(&o.kubeconfig, "kubeconfig", "", "Path to a kubeconfig; empty uses $KUBECONFIG's default loading rules, then the in-cluster config.")
	flag.IntVar(&o.workers, "workers", 3, "Job workers; every request of one job goes to the same worker (Volcano's default is 3).")
	flag.IntVar(&o.maxRequeue, "max-requeue", 15, "Requeues of a failed request before its job is terminated; -1 never gives up (Volcano's --max-requeue-num, default 15).")
	flag.BoolVar(&o.leaderElect, "leader-elect", false, "Run only while holding a coordination.k8s.io Lease, so several replicas can run.")
	flag.StringVar(&o.leaseNamespace, "leader-elect-namespace", "default", "Namespace of the leader-election Lease.")
	flag.StringVar(&o.leaseName, "leader-elect-name", "vcjob-controller", "Name of the leader-election Lease.")
	flag.DurationVar(&o.leaseDuration, "leader-elect-lease-duration", 15*time.Second, "How long a lease holds without renewal.")
	flag.DurationVar(&o.renewDeadline, "leader-elect-renew-deadline", 10*time.Second, "How long the leader keeps trying to renew before it gives up.")
	flag.DurationVar(&o.retryPeriod, "leader-elect-retry-period", 2*time.Second, "How often candidates try to acquire or renew.")
	flag.StringVar(&o.metricsAddr, "metrics-addr", ":8080", "Address serving /metrics and /healthz; empty disables it.")
	flag.Float64Var(&o.qps, "kube-api-qps", 50, "Client-side rate limit of API requests per second (Volcano's default is 50).")
	flag.IntVar(&o.burst, "kube-api-burst", 100, "Client-side burst of API requests (Volcano's default is 100).")
	flag.BoolVar(&o.pprof, "pprof", false, "Also serve Go's profiling endpoints under /debug/pprof/, and the controller's view of a job at /debug/vcjob/job?job=namespace/name, on the metrics address.")
	flag.BoolVar(&o.queueChecks, "queue-checks", false, "Refuse jobs whose queue Volcano's webhook would refuse (missing, not Open, not a leaf, root), from an informer on Volcano's Queues.")
	flag.StringVar(&o.semantics, "semantics", "volcano", "The decisions' semantics: volcano, corrected, or corrections by name, comma-separated (vcjob.ParseSemantics); a job's vcjob.dev/semantics annotation applies on top.")
	flag.BoolVar(&o.coalesce, "coalesce-status", false, "Send a status that only moves pod counts, or that of a finished job (whose every request is a kill bumping status.version), once per pass over the worker's queue; the final status is the same, the states in between are not sent. false writes every one, as Volcano's controller does.")
	flag.DurationVar(&o.statusHold, "status-hold", 500*time.Millisecond, "With --coalesce-status: how long a held-back status waits for more before it is sent (a phase change, or a pod written for the job, sends it at once); 0 sends it once the worker has gone through what its queue held.")
	flag.BoolVar(&o.compression, "kube-api-compression", false, "Ask the API server for gzip-compressed responses, watch streams included (client-go's default): it saves bandwidth on a slow link and costs CPU at both ends for every event; a controller next to its API server does better without.")
	flag.BoolVar(&o.recordEvents, "record-events", false, "Post the Kubernetes Events Volcano's controller records on each job (kubectl describe vcjob: ExecuteAction, CommandIssued, PVCError, FailedCreate, ...), from vcjob's step records. false posts none: the measured API request counts in README.md were taken without them.")
	flag.BoolVar(&o.ordered, "ordered-retries", false, "While a job's failed request waits to be retried, hold the job's later requests behind it, so a fault delays them without reordering them; false lets them overtake it, as Volcano's queue does.")
	flag.BoolVar(&o.rawIO, "raw-socket-io", true, "Read and write the connection to the API server with raw non-blocking system calls (Linux), which do not wake the Go runtime's monitor thread after every idle moment: a third of the controller's CPU on a VM. false uses Go's own calls.")
	flag.Parse()

	err := run(o)
	klog.Flush()
	if err != nil {
		fmt.Fprintln(os.Stderr, "controller:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()

	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = float32(o.qps), o.burst
	cfg.UserAgent = "vcjob-controller"
	cfg.DisableCompression = !o.compression
	if o.rawIO {
		cfg.Dial = controller.RawIODialer(&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}) // client-go's own dialer's settings
	}
	metrics := controller.NewMetrics()
	metrics.RegisterClientGoMetrics()
	cfg.Wrap(controller.CountRequests(metrics))
	cfg.Wrap(controller.DiscardAnswers) // the pod creates' answers, which nothing reads
	// Built-in types (pods above all) travel as protobuf: smaller, and
	// cheaper to encode and decode than JSON. Custom resources have only
	// JSON; their clients ask for it.
	// Every client shares one HTTP client: one connection to the API
	// server, over which HTTP/2 carries every watch and request.
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	kubeCfg := rest.CopyConfig(cfg)
	kubeCfg.ContentType = runtime.ContentTypeProtobuf
	kubeCfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	kube, err := kubernetes.NewForConfigAndClient(kubeCfg, httpClient)
	if err != nil {
		return err
	}
	// The pod informer's own client decodes pods without the managed
	// fields the cache drops anyway, and without copying their bytes.
	podClient, err := controller.NewPodClientForConfigAndClient(kubeCfg, httpClient)
	if err != nil {
		return err
	}
	volcano, err := controller.NewVolcanoForConfigAndClient(cfg, httpClient)
	if err != nil {
		return err
	}

	var leading atomic.Bool
	var current atomic.Pointer[controller.Controller] // the running controller, for /debug/vcjob/job
	metrics.Gauge("vcjob_controller_leader", func() float64 {
		if leading.Load() {
			return 1
		}
		return 0
	})
	if o.metricsAddr != "" {
		ln, err := net.Listen("tcp", o.metricsAddr)
		if err != nil {
			return fmt.Errorf("metrics: %w", err)
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", metrics)
		mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
		if o.pprof {
			mux.HandleFunc("/debug/pprof/", pprof.Index)
			mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
			mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
			mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
			// The controller's view of one job (?job=namespace/name).
			mux.HandleFunc("/debug/vcjob/job", func(w http.ResponseWriter, r *http.Request) {
				c := current.Load()
				if c == nil {
					http.Error(w, "not leading", http.StatusServiceUnavailable)
					return
				}
				c.JobViewHandler().ServeHTTP(w, r)
			})
		}
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		defer func() {
			sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_ = srv.Shutdown(sctx)
		}()
		klog.InfoS("Serving metrics", "addr", ln.Addr().String())
	}

	runController := func(ctx context.Context) error {
		leading.Store(true)
		defer leading.Store(false)
		sem, err := vcjob.ParseSemantics(vcjob.Semantics{}, o.semantics)
		if err != nil {
			return fmt.Errorf("--semantics: %w", err)
		}
		var queues *controller.Queues
		if o.queueChecks {
			dyn, err := dynamic.NewForConfigAndClient(cfg, httpClient)
			if err != nil {
				return err
			}
			if queues, err = controller.NewQueues(dyn, 0); err != nil {
				return err
			}
		}
		var events kuberecord.EventRecorder
		if o.recordEvents {
			// Shut down when the controller stops: what is queued is sent first.
			b := kuberecord.NewBroadcaster(kuberecord.WithContext(ctx))
			b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: kube.CoreV1().Events("")})
			defer b.Shutdown()
			events = b.NewRecorder(kubescheme.Scheme, corev1.EventSource{Component: "vcjob-controller"})
		}
		c, err := controller.New(controller.Config{Kube: kube, Pods: controller.PodListWatch(podClient), Volcano: volcano, Workers: o.workers, MaxRequeue: o.maxRequeue, Metrics: metrics, Semantics: sem, Queues: queues, CoalesceStatus: o.coalesce, StatusHold: o.statusHold, OrderedRetries: o.ordered, Events: events})
		if err != nil {
			return err
		}
		current.Store(c)
		defer current.Store(nil)
		return c.Run(ctx)
	}
	if !o.leaderElect {
		return runController(ctx)
	}

	host, _ := os.Hostname()
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	id := host + "_" + hex.EncodeToString(suffix)
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: o.leaseNamespace, Name: o.leaseName},
		Client:     kube.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: id},
	}
	// The election runs on its own context, cancelled only once the
	// controller has stopped: the lease is released (ReleaseOnCancel) after
	// the last step under way finished, never while it still writes.
	leCtx, leCancel := context.WithCancel(context.Background())
	defer leCancel()
	var started atomic.Bool
	done := make(chan struct{})
	var runErr error
	go func() {
		<-ctx.Done()
		if !started.Load() {
			leCancel()
		}
	}()
	// NewLeaderElector, not RunOrDie: inconsistent election flags (a
	// renew deadline not under the lease duration, say) are an error to
	// report, not a panic.
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		Name:            o.leaseName,
		LeaseDuration:   o.leaseDuration,
		RenewDeadline:   o.renewDeadline,
		RetryPeriod:     o.retryPeriod,
		ReleaseOnCancel: true,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(lctx context.Context) {
				started.Store(true)
				klog.InfoS("Became the leader", "identity", id)
				cctx, cancel := context.WithCancel(lctx)
				go func() {
					select {
					case <-ctx.Done():
					case <-cctx.Done():
					}
					cancel()
				}()
				runErr = runController(cctx)
				cancel()
				close(done)
				leCancel()
			},
			OnStoppedLeading: func() { klog.InfoS("No longer the leader", "identity", id) },
			OnNewLeader: func(identity string) {
				if identity != id {
					klog.InfoS("Another replica leads", "leader", identity)
				}
			},
		},
	})
	if err != nil {
		return fmt.Errorf("leader election: %w", err)
	}
	le.Run(leCtx)
	if started.Load() {
		<-done
	}
	switch {
	case runErr != nil:
		return runErr
	case ctx.Err() == nil:
		return errors.New("leader election lost")
	}
	return nil
}
