package controller

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Metrics are the controller's counters, served in the Prometheus text
// exposition format. Hand-written on purpose: a dozen counters do not need
// a client library.
type Metrics struct {
	mu       sync.Mutex
	counters map[string]map[string]float64 // name -> rendered labels -> value
	help     map[string]string
	gauges   map[string]func() float64
	start    time.Time
}

// The counter names.
const (
	MetricRequests         = "vcjob_controller_requests_total"
	MetricErrors           = "vcjob_controller_request_errors_total"
	MetricRequeues         = "vcjob_controller_requeues_total"
	MetricGiveUps          = "vcjob_controller_given_up_total"
	MetricPodsCreated      = "vcjob_controller_pods_created_total"
	MetricPodsDeleted      = "vcjob_controller_pods_deleted_total"
	MetricDelayRegistered  = "vcjob_controller_delayed_actions_registered_total"
	MetricDelayFired       = "vcjob_controller_delayed_actions_fired_total"
	MetricDelayCancelled   = "vcjob_controller_delayed_actions_cancelled_total"
	MetricStatusWrites     = "vcjob_controller_status_writes_total"
	MetricInformerEvents   = "vcjob_controller_informer_events_total"
	MetricDeleteRetries    = "vcjob_controller_pod_delete_retries_total"
	MetricCommands         = "vcjob_controller_commands_total"
	MetricInvalidJobs      = "vcjob_controller_invalid_jobs_total"
	MetricProcessCPU       = "process_cpu_seconds_total"
	MetricProcessUserCPU   = "process_cpu_user_seconds_total"
	MetricProcessSystemCPU = "process_cpu_system_seconds_total"
)

// NewMetrics returns an empty set of counters.
func NewMetrics() *Metrics {
	m := &Metrics{counters: map[string]map[string]float64{}, gauges: map[string]func() float64{}, start: time.Now(),
		help: map[string]string{
			MetricRequests:        "Requests processed, by event and the action they resolved to.",
			MetricErrors:          "Requests whose step failed.",
			MetricRequeues:        "Failed requests put back on the queue with rate limiting.",
			MetricGiveUps:         "Requests that failed too often and terminated their job.",
			MetricPodsCreated:     "Pods created.",
			MetricPodsDeleted:     "Pods deleted (marked out-of-sync, then deleted).",
			MetricDelayRegistered: "Delayed actions registered (a policy with a timeout).",
			MetricDelayFired:      "Delayed actions that came due and ran.",
			MetricDelayCancelled:  "Delayed actions cancelled (by a pod event, a same-level action or the job's deletion).",
			MetricStatusWrites:    "Job status writes that succeeded.",
			MetricInformerEvents:  "Informer notifications handled, by kind and type.",
			MetricDeleteRetries:   "Retries of pod deletes that had failed, by outcome.",
			MetricCommands:        "Commands taken (deleted and turned into a request), by action.",
			MetricInvalidJobs:     "Jobs refused because they fail validation.",
			MetricAPIRequests:     "HTTP requests sent to the API server, by verb, resource and response code.",
		}}
	return m
}

// Inc adds one to a counter; labels are name, value pairs.
func (m *Metrics) Inc(name string, labels ...string) { m.Add(name, 1, labels...) }

// Add adds v to a counter.
func (m *Metrics) Add(name string, v float64, labels ...string) {
	if m == nil {
		return
	}
	l := renderLabels(labels)
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.counters[name]
	if c == nil {
		c = map[string]float64{}
		m.counters[name] = c
	}
	c[l] += v
}

// Get reads a counter (for tests).
func (m *Metrics) Get(name string, labels ...string) float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.counters[name][renderLabels(labels)]
}

// Sum adds up a counter over all its labels (for tests).
func (m *Metrics) Sum(name string) float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var s float64
	for _, v := range m.counters[name] {
		s += v
	}
	return s
}

// Gauge registers a value read at every scrape.
func (m *Metrics) Gauge(name string, f func() float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gauges[name] = f
}

func renderLabels(kv []string) string {
	if len(kv) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=%q", kv[i], kv[i+1])
	}
	b.WriteByte('}')
	return b.String()
}

// CPUTime is the process's user and system CPU time so far, from the
// kernel's accounting (getrusage(RUSAGE_SELF)).
func CPUTime() (user, system time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// WriteTo writes every counter in the text exposition format.
func (m *Metrics) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	user, sys := CPUTime()
	writeOne := func(name, typ, help string, values map[string]float64) {
		if help != "" {
			fmt.Fprintf(&b, "# HELP %s %s\n", name, help)
		}
		fmt.Fprintf(&b, "# TYPE %s %s\n", name, typ)
		keys := make([]string, 0, len(values))
		for k := range values {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "%s%s %g\n", name, k, values[k])
		}
	}
	writeOne(MetricProcessCPU, "counter", "Total user and system CPU time spent in seconds.", map[string]float64{"": (user + sys).Seconds()})
	writeOne(MetricProcessUserCPU, "counter", "User CPU time spent in seconds.", map[string]float64{"": user.Seconds()})
	writeOne(MetricProcessSystemCPU, "counter", "System CPU time spent in seconds.", map[string]float64{"": sys.Seconds()})

	m.mu.Lock()
	names := make([]string, 0, len(m.counters)+len(m.help))
	seen := map[string]bool{}
	for n := range m.help {
		names, seen[n] = append(names, n), true
	}
	for n := range m.counters {
		if !seen[n] {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		vals := m.counters[n]
		if len(vals) == 0 {
			vals = map[string]float64{"": 0}
		}
		writeOne(n, "counter", m.help[n], vals)
	}
	gnames := make([]string, 0, len(m.gauges))
	for n := range m.gauges {
		gnames = append(gnames, n)
	}
	sort.Strings(gnames)
	gauges := make([]func() float64, len(gnames))
	for i, n := range gnames {
		gauges[i] = m.gauges[n]
	}
	m.mu.Unlock()
	for i, n := range gnames {
		writeOne(n, "gauge", "", map[string]float64{"": gauges[i]()})
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

// ServeHTTP serves the counters.
func (m *Metrics) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	_, _ = m.WriteTo(w)
}
