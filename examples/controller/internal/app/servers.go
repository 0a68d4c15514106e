package app

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"sync/atomic"
	"time"

	"k8s.io/klog/v2"

	jobcontroller "github.com/vcjob/vcjob/examples/controller/internal/controller/job"
	"github.com/vcjob/vcjob/examples/controller/pkg/metrics"
)

// serveMetrics serves /metrics and /healthz on addr (and, with withPprof,
// Go's profiling endpoints and the job controller's view of a job); stop
// shuts it down.
func serveMetrics(ctx context.Context, addr string, m *metrics.Metrics, withPprof bool, current *atomic.Pointer[jobcontroller.Controller]) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	if withPprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
		// The job controller's view of one job (?job=namespace/name).
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
	klog.FromContext(ctx).Info("Serving metrics", "addr", ln.Addr().String())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}
