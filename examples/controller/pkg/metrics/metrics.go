package metrics

import (
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The names of the metrics the tests read.
const (
	Requests             = "vcjob_controller_requests_total"
	RequestErrors        = "vcjob_controller_request_errors_total"
	Requeues             = "vcjob_controller_requeues_total"
	GivenUp              = "vcjob_controller_given_up_total"
	PodsCreated          = "vcjob_controller_pods_created_total"
	PodsDeleted          = "vcjob_controller_pods_deleted_total"
	DelayRegistered      = "vcjob_controller_delayed_actions_registered_total"
	DelayFired           = "vcjob_controller_delayed_actions_fired_total"
	DelayCancelled       = "vcjob_controller_delayed_actions_cancelled_total"
	StatusWrites         = "vcjob_controller_status_writes_total"
	StatusWritesSkipped  = "vcjob_controller_status_writes_skipped_total"
	StatusWritesDeferred = "vcjob_controller_status_writes_deferred_total"
	JobWrites            = "vcjob_controller_job_writes_total"
	InformerEvents       = "vcjob_controller_informer_events_total"
	DeleteRetries        = "vcjob_controller_pod_delete_retries_total"
	DeleteRetriesPending = "vcjob_controller_pod_delete_retries_pending"
	Commands             = "vcjob_controller_commands_total"
	InvalidJobs          = "vcjob_controller_invalid_jobs_total"
	PodGroupsSeenLate    = "vcjob_controller_podgroups_seen_late_total"
	APIRequests          = "vcjob_controller_api_requests_total"
	Leader               = "vcjob_controller_leader"
	AdmissionReviews     = "vcjob_admission_reviews_total"
	CronJobSyncs         = "vcjob_cronjob_syncs_total"
	TTLProcessed         = "vcjob_ttl_processed_total"
	Events               = "vcjob_controller_events_total"
	ProcessCPU           = "process_cpu_seconds_total"
)

// Metrics are the controllers' metrics and the registry that serves them.
type Metrics struct {
	Registry *prometheus.Registry

	// Job controller: its steps and what they did.
	Requests        *prometheus.CounterVec // event, action
	RequestErrors   prometheus.Counter
	Requeues        prometheus.Counter
	GivenUp         prometheus.Counter
	DelayRegistered *prometheus.CounterVec // action
	DelayFired      *prometheus.CounterVec // action
	DelayCancelled  prometheus.Counter

	// Job controller: its writes.
	PodsCreated          prometheus.Counter
	PodsDeleted          prometheus.Counter
	StatusWrites         prometheus.Counter
	StatusWritesSkipped  prometheus.Counter
	StatusWritesDeferred prometheus.Counter
	JobWrites            prometheus.Counter
	DeleteRetries        *prometheus.CounterVec // outcome
	DeleteRetriesPending prometheus.Gauge

	// Job controller: what it was told.
	InformerEvents    *prometheus.CounterVec // kind, type
	Commands          *prometheus.CounterVec // action
	InvalidJobs       prometheus.Counter
	PodGroupsSeenLate prometheus.Counter

	// CronJob controller and TTL collector.
	CronJobSyncs *prometheus.CounterVec // result (started, a cronjob.SkipReason, error)
	TTLProcessed *prometheus.CounterVec // next (done, requeue-after, retry), deleted

	// The process.
	Events           *prometheus.CounterVec // controller, type, reason
	APIRequests      *prometheus.CounterVec // verb, resource, code
	Leader           prometheus.Gauge
	AdmissionReviews *prometheus.CounterVec // path, operation, allowed

	queuesOnce sync.Once
	queues     *queueMetrics
}

// New returns the metrics at zero on a registry of their own, with the
// process and Go collectors.
func New() *Metrics {
	counter := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
	}
	vec := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	}
	gauge := func(name, help string) prometheus.Gauge {
		return prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
	}
	m := &Metrics{
		Registry:             prometheus.NewRegistry(),
		Requests:             vec(Requests, "Requests processed, by event and the action they resolved to.", "event", "action"),
		RequestErrors:        counter(RequestErrors, "Requests whose step failed."),
		Requeues:             counter(Requeues, "Failed requests put back on the queue with rate limiting."),
		GivenUp:              counter(GivenUp, "Requests that failed too often and terminated their job."),
		DelayRegistered:      vec(DelayRegistered, "Delayed actions registered (a policy with a timeout).", "action"),
		DelayFired:           vec(DelayFired, "Delayed actions that came due and ran.", "action"),
		DelayCancelled:       counter(DelayCancelled, "Delayed actions cancelled (by a pod event, a same-level action or the job's deletion)."),
		PodsCreated:          counter(PodsCreated, "Pods created."),
		PodsDeleted:          counter(PodsDeleted, "Pods deleted (marked out-of-sync, then deleted)."),
		StatusWrites:         counter(StatusWrites, "Job status writes that succeeded."),
		StatusWritesSkipped:  counter(StatusWritesSkipped, "Job status writes not sent because the job already had that status."),
		StatusWritesDeferred: counter(StatusWritesDeferred, "Job status writes held back and sent with the job's next one (--coalesce-status)."),
		JobWrites:            counter(JobWrites, "Job writes (generated claim names written into the spec) that succeeded."),
		DeleteRetries:        vec(DeleteRetries, "Retries of pod deletes that had failed, by outcome.", "outcome"),
		DeleteRetriesPending: gauge(DeleteRetriesPending, "Pods whose failed delete is being retried."),
		InformerEvents:       vec(InformerEvents, "Informer notifications handled, by kind and type.", "kind", "type"),
		Commands:             vec(Commands, "Commands taken (deleted and turned into a request), by action.", "action"),
		InvalidJobs:          counter(InvalidJobs, "Jobs ignored because they fail validation."),
		PodGroupsSeenLate:    counter(PodGroupsSeenLate, "PodGroups first seen already in a phase after a relist; their jobs were synced for the lost phase change."),
		CronJobSyncs:         vec(CronJobSyncs, "CronJob syncs, by result: started (a run's job created), the reason none started (cronjob.SkipReason), or error.", "result"),
		TTLProcessed:         vec(TTLProcessed, "Jobs the TTL collector processed, by what came next (ttl.Next) and whether it deleted the job.", "next", "deleted"),
		Events:               vec(Events, "Kubernetes Events handed to the event recorder, by controller, type and reason.", "controller", "type", "reason"),
		APIRequests:          vec(APIRequests, "HTTP requests sent to the API server, by verb, resource and response code.", "verb", "resource", "code"),
		Leader:               gauge(Leader, "1 while this replica runs the controllers (holds the lease, or runs without election)."),
		AdmissionReviews:     vec(AdmissionReviews, "Admission reviews answered, by path, operation and whether the request was allowed.", "path", "operation", "allowed"),
	}
	m.Registry.MustRegister(
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), collectors.NewGoCollector(),
		m.Requests, m.RequestErrors, m.Requeues, m.GivenUp, m.DelayRegistered, m.DelayFired, m.DelayCancelled,
		m.PodsCreated, m.PodsDeleted, m.StatusWrites, m.StatusWritesSkipped, m.StatusWritesDeferred, m.JobWrites,
		m.DeleteRetries, m.DeleteRetriesPending, m.InformerEvents, m.Commands, m.InvalidJobs, m.PodGroupsSeenLate,
		m.CronJobSyncs, m.TTLProcessed, m.Events, m.APIRequests, m.Leader, m.AdmissionReviews,
	)
	return m
}

// Handler serves the registry in the Prometheus exposition formats
// (name[]=… narrows the answer to the metrics named).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}
