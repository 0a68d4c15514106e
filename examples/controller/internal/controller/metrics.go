package controller

import (
	"context"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	clientmetrics "k8s.io/client-go/tools/metrics"
	"k8s.io/client-go/util/workqueue"
)

// Metrics are the controller's counters and gauges on a
// prometheus/client_golang registry of its own, with the process and Go
// runtime collectors, client-go's work-queue metrics (WorkqueueMetrics)
// and, once RegisterClientGoMetrics is called, its REST client's.
type Metrics struct {
	// reg holds everything /metrics serves; own holds the controller's
	// counters and gauges and its CPU time too (registered in both, cheap
	// to collect), so a scrape that names only those (name[]=…) need not
	// read the process's files and the runtime's statistics.
	own, reg *prometheus.Registry

	mu       sync.Mutex
	counters map[string]*counter
	gauges   map[string]*atomic.Pointer[func() float64]
	queues   *queueMetrics
}

// counter is one counter family: a plain counter when it has no labels,
// else a vector whose label names are given in the order callers pass
// them.
type counter struct {
	plain  prometheus.Counter
	vec    *prometheus.CounterVec
	labels []string
}

// The counter names.
const (
	MetricRequests        = "vcjob_controller_requests_total"
	MetricErrors          = "vcjob_controller_request_errors_total"
	MetricRequeues        = "vcjob_controller_requeues_total"
	MetricGiveUps         = "vcjob_controller_given_up_total"
	MetricPodsCreated     = "vcjob_controller_pods_created_total"
	MetricPodsDeleted     = "vcjob_controller_pods_deleted_total"
	MetricDelayRegistered = "vcjob_controller_delayed_actions_registered_total"
	MetricDelayFired      = "vcjob_controller_delayed_actions_fired_total"
	MetricDelayCancelled  = "vcjob_controller_delayed_actions_cancelled_total"
	MetricStatusWrites    = "vcjob_controller_status_writes_total"
	// MetricStatusWritesSkipped counts status writes not sent because the
	// job already had that status.
	MetricStatusWritesSkipped = "vcjob_controller_status_writes_skipped_total"
	// MetricStatusWritesDeferred counts status writes held back and sent
	// with the job's next one (Config.CoalesceStatus).
	MetricStatusWritesDeferred = "vcjob_controller_status_writes_deferred_total"
	MetricJobWrites            = "vcjob_controller_job_writes_total"
	MetricInformerEvents       = "vcjob_controller_informer_events_total"
	MetricDeleteRetries        = "vcjob_controller_pod_delete_retries_total"
	MetricCommands             = "vcjob_controller_commands_total"
	MetricInvalidJobs          = "vcjob_controller_invalid_jobs_total"
	// MetricPodGroupsSeenLate counts PodGroups the informer first showed
	// already in a phase after a relist, whose jobs were synced for the
	// phase change the watch lost (cache.OnPodGroupAdd).
	MetricPodGroupsSeenLate = "vcjob_controller_podgroups_seen_late_total"
	MetricProcessCPU        = "process_cpu_seconds_total"
	MetricProcessUserCPU    = "process_cpu_user_seconds_total"
	MetricProcessSystemCPU  = "process_cpu_system_seconds_total"
)

// counterDefs are the counters every scrape shows (at 0 until counted),
// with their help and label names.
var counterDefs = []struct {
	name, help string
	labels     []string
}{
	{MetricRequests, "Requests processed, by event and the action they resolved to.", []string{"event", "action"}},
	{MetricErrors, "Requests whose step failed.", nil},
	{MetricRequeues, "Failed requests put back on the queue with rate limiting.", nil},
	{MetricGiveUps, "Requests that failed too often and terminated their job.", nil},
	{MetricPodsCreated, "Pods created.", nil},
	{MetricPodsDeleted, "Pods deleted (marked out-of-sync, then deleted).", nil},
	{MetricDelayRegistered, "Delayed actions registered (a policy with a timeout).", []string{"action"}},
	{MetricDelayFired, "Delayed actions that came due and ran.", []string{"action"}},
	{MetricDelayCancelled, "Delayed actions cancelled (by a pod event, a same-level action or the job's deletion).", nil},
	{MetricStatusWrites, "Job status writes that succeeded.", nil},
	{MetricStatusWritesSkipped, "Job status writes not sent because the job already had that status.", nil},
	{MetricStatusWritesDeferred, "Job status writes held back and sent with the job's next one (a finished job's kills, pod counts).", nil},
	{MetricJobWrites, "Job writes (generated claim names written into the spec) that succeeded.", nil},
	{MetricInformerEvents, "Informer notifications handled, by kind and type.", []string{"kind", "type"}},
	{MetricDeleteRetries, "Retries of pod deletes that had failed, by outcome.", []string{"outcome"}},
	{MetricCommands, "Commands taken (deleted and turned into a request), by action.", []string{"action"}},
	{MetricInvalidJobs, "Jobs refused because they fail validation.", nil},
	{MetricPodGroupsSeenLate, "PodGroups first seen already in a phase after a relist; their jobs were synced for the lost phase change.", nil},
	{MetricAPIRequests, "HTTP requests sent to the API server, by verb, resource and response code.", []string{"verb", "resource", "code"}},
}

// NewMetrics returns a registry holding the controller's counters at zero,
// the process and Go collectors, and the process's user and system CPU
// time apart (process_cpu_seconds_total is their sum).
func NewMetrics() *Metrics {
	m := &Metrics{own: prometheus.NewRegistry(), reg: prometheus.NewRegistry(), counters: map[string]*counter{}, gauges: map[string]*atomic.Pointer[func() float64]{}}
	m.reg.MustRegister(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), collectors.NewGoCollector())
	m.registerOwn(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: MetricProcessUserCPU, Help: "User CPU time spent in seconds."},
			func() float64 { u, _ := CPUTime(); return u.Seconds() }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: MetricProcessSystemCPU, Help: "System CPU time spent in seconds."},
			func() float64 { _, s := CPUTime(); return s.Seconds() }))
	for _, d := range counterDefs {
		m.define(d.name, d.help, d.labels)
	}
	return m
}

func (m *Metrics) define(name, help string, labels []string) *counter {
	c := &counter{labels: labels}
	if len(labels) == 0 {
		c.plain = prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
		m.registerOwn(c.plain)
	} else {
		c.vec = prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
		m.registerOwn(c.vec)
	}
	m.counters[name] = c
	return c
}

// Registry is the registry the metrics live on; register more collectors
// on it.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// registerOwn registers one of the controller's own metrics in both
// registries.
func (m *Metrics) registerOwn(cs ...prometheus.Collector) {
	m.reg.MustRegister(cs...)
	m.own.MustRegister(cs...)
}

// Inc adds one to a counter; labels are name, value pairs.
func (m *Metrics) Inc(name string, labels ...string) { m.Add(name, 1, labels...) }

// Add adds v to a counter. A counter not defined above is defined on first
// use with the label names given.
func (m *Metrics) Add(name string, v float64, labels ...string) {
	if m == nil {
		return
	}
	if c := m.counter(name, labels); c != nil {
		c.Add(v)
	}
}

func (m *Metrics) counter(name string, kv []string) prometheus.Counter {
	m.mu.Lock()
	c := m.counters[name]
	if c == nil {
		names := make([]string, 0, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			names = append(names, kv[i])
		}
		c = m.define(name, name, names)
	}
	m.mu.Unlock()
	if c.plain != nil {
		return c.plain
	}
	if len(kv) != 2*len(c.labels) {
		return nil
	}
	values := make([]string, len(c.labels))
	inOrder := true
	for i := range c.labels {
		values[i] = kv[2*i+1]
		inOrder = inOrder && kv[2*i] == c.labels[i]
	}
	if inOrder {
		out, _ := c.vec.GetMetricWithLabelValues(values...)
		return out
	}
	l := prometheus.Labels{}
	for i := 0; i+1 < len(kv); i += 2 {
		l[kv[i]] = kv[i+1]
	}
	out, _ := c.vec.GetMetricWith(l)
	return out
}

// Get reads a counter (for tests).
func (m *Metrics) Get(name string, labels ...string) float64 {
	m.mu.Lock()
	_, ok := m.counters[name]
	m.mu.Unlock()
	if !ok {
		return 0
	}
	c := m.counter(name, labels)
	if c == nil {
		return 0
	}
	var out dto.Metric
	if err := c.Write(&out); err != nil {
		return 0
	}
	return out.GetCounter().GetValue()
}

// Sum adds up a counter over all its labels (for tests).
func (m *Metrics) Sum(name string) float64 {
	families, err := m.reg.Gather()
	if err != nil {
		return 0
	}
	var s float64
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, mm := range f.GetMetric() {
			s += mm.GetCounter().GetValue() + mm.GetGauge().GetValue()
		}
	}
	return s
}

// Gauge registers a value read at every scrape; registering a name again
// replaces the function.
func (m *Metrics) Gauge(name string, f func() float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.gauges[name]
	if p == nil {
		p = &atomic.Pointer[func() float64]{}
		m.gauges[name] = p
		m.registerOwn(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: name}, func() float64 { return (*p.Load())() }))
	}
	p.Store(&f)
}

// ServeHTTP serves the registry in the Prometheus exposition formats.
func (m *Metrics) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var g prometheus.Gatherer = m.reg
	if names := r.URL.Query()["name[]"]; len(names) > 0 && m.allOwn(names) {
		// Reading the process's files and the runtime's statistics costs
		// milliseconds; a scrape for a counter of the controller's own
		// (a test waiting for it to go quiet) does not need them.
		g = m.own
	}
	promhttp.HandlerFor(g, promhttp.HandlerOpts{}).ServeHTTP(w, r)
}

// allOwn reports whether every name is one of the controller's own
// metrics.
func (m *Metrics) allOwn(names []string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, n := range names {
		_, counter := m.counters[n]
		_, gauge := m.gauges[n]
		if !counter && !gauge && n != MetricProcessUserCPU && n != MetricProcessSystemCPU {
			return false
		}
	}
	return true
}

// WorkqueueMetrics is a client-go workqueue.MetricsProvider on the
// registry, under client-go's usual workqueue_* names, labelled by queue
// name; hand it to each queue's config.
func (m *Metrics) WorkqueueMetrics() workqueue.MetricsProvider {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.queues == nil {
		m.queues = newQueueMetrics(m.reg)
	}
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
	result := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rest_client_requests_total",
		Help: "HTTP requests, partitioned by status code, method, and host."}, []string{"code", "method", "host"})
	latency := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rest_client_request_duration_seconds",
		Help: "Request latency in seconds, by verb and host.", Buckets: prometheus.ExponentialBuckets(0.001, 2, 15)}, []string{"verb", "host"})
	limiter := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rest_client_rate_limiter_duration_seconds",
		Help: "Client-side rate limiter latency in seconds, by verb and host.", Buckets: prometheus.ExponentialBuckets(0.001, 2, 15)}, []string{"verb", "host"})
	m.reg.MustRegister(result, latency, limiter)
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
