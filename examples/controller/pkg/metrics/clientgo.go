package metrics

import (
	"context"
	"net/url"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	clientmetrics "k8s.io/client-go/tools/metrics"
	"k8s.io/client-go/util/workqueue"
)

// Workqueue is a client-go workqueue.MetricsProvider on the registry,
// under client-go's usual workqueue_* names, labelled by queue name; hand
// it to each queue's config. It is made once per Metrics.
func (m *Metrics) Workqueue() workqueue.MetricsProvider {
	m.queuesOnce.Do(func() { m.queues = newQueueMetrics(m.Registry) })
	return m.queues
}

type queueMetrics struct {
	depth, unfinished, longest *prometheus.GaugeVec
	adds, retries              *prometheus.CounterVec
	latency, work              *prometheus.HistogramVec
}

func newQueueMetrics(reg prometheus.Registerer) *queueMetrics {
	q := &queueMetrics{
		depth:      prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "workqueue", Name: "depth", Help: "Current depth of the work queue."}, []string{"name"}),
		unfinished: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "workqueue", Name: "unfinished_work_seconds", Help: "Seconds of work in progress not yet observed by work_duration."}, []string{"name"}),
		longest:    prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "workqueue", Name: "longest_running_processor_seconds", Help: "Seconds the longest running processor has been running."}, []string{"name"}),
		adds:       prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: "workqueue", Name: "adds_total", Help: "Adds handled by the work queue."}, []string{"name"}),
		retries:    prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: "workqueue", Name: "retries_total", Help: "Retries handled by the work queue."}, []string{"name"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Subsystem: "workqueue", Name: "queue_duration_seconds", Help: "Seconds an item stays in the queue before it is requested.",
			Buckets: prometheus.ExponentialBuckets(1e-8, 10, 10)}, []string{"name"}),
		work: prometheus.NewHistogramVec(prometheus.HistogramOpts{Subsystem: "workqueue", Name: "work_duration_seconds", Help: "Seconds processing an item takes.",
			Buckets: prometheus.ExponentialBuckets(1e-8, 10, 10)}, []string{"name"}),
	}
	reg.MustRegister(q.depth, q.unfinished, q.longest, q.adds, q.retries, q.latency, q.work)
	return q
}

func (q *queueMetrics) NewDepthMetric(name string) workqueue.GaugeMetric {
	return q.depth.WithLabelValues(name)
}
func (q *queueMetrics) NewAddsMetric(name string) workqueue.CounterMetric {
	return q.adds.WithLabelValues(name)
}
func (q *queueMetrics) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return q.latency.WithLabelValues(name)
}
func (q *queueMetrics) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return q.work.WithLabelValues(name)
}
func (q *queueMetrics) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return q.unfinished.WithLabelValues(name)
}
func (q *queueMetrics) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return q.longest.WithLabelValues(name)
}
func (q *queueMetrics) NewRetriesMetric(name string) workqueue.CounterMetric {
	return q.retries.WithLabelValues(name)
}

// RegisterClientGoMetrics points client-go's REST client metrics (request
// results by code, method and host; request and rate-limiter latency by
// verb) at the registry, under client-go's usual rest_client_* names.
// client-go keeps them in package state and takes only the first
// registration, so call it once per process, before building clients.
func (m *Metrics) RegisterClientGoMetrics() {
	restMetricsOnce.Do(func() { m.registerRESTMetrics() })
}

var restMetricsOnce sync.Once

func (m *Metrics) registerRESTMetrics() {
	result := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rest_client_requests_total",
		Help: "HTTP requests, partitioned by status code, method, and host."}, []string{"code", "method", "host"})
	latency := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rest_client_request_duration_seconds",
		Help: "Request latency in seconds, by verb and host.", Buckets: prometheus.ExponentialBuckets(0.001, 2, 15)}, []string{"verb", "host"})
	limiter := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rest_client_rate_limiter_duration_seconds",
		Help: "Client-side rate limiter latency in seconds, by verb and host.", Buckets: prometheus.ExponentialBuckets(0.001, 2, 15)}, []string{"verb", "host"})
	m.Registry.MustRegister(result, latency, limiter)
	clientmetrics.Register(clientmetrics.RegisterOpts{
		RequestResult:      resultAdapter{result},
		RequestLatency:     latencyAdapter{latency},
		RateLimiterLatency: latencyAdapter{limiter},
	})
}

type resultAdapter struct{ v *prometheus.CounterVec }

func (a resultAdapter) Increment(_ context.Context, code, method, host string) {
	a.v.WithLabelValues(code, method, host).Inc()
}

type latencyAdapter struct{ v *prometheus.HistogramVec }

func (a latencyAdapter) Observe(_ context.Context, verb string, u url.URL, d time.Duration) {
	a.v.WithLabelValues(verb, u.Host).Observe(d.Seconds())
}
