package vcjob

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CronJobKind is the kind of a batch.volcano.sh/v1alpha1 CronJob (short
// names cronvcjob, cronvj).
const CronJobKind = "CronJob"

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// CronJob starts a Job from a template on a cron schedule.
type CronJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   CronJobSpec   `json:"spec,omitempty"`
	Status CronJobStatus `json:"status,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// CronJobList is a list of CronJobs.
type CronJobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []CronJob `json:"items"`
}

// CronJobSpec is the schedule, the job template and the rules for runs
// that overlap or were missed.
type CronJobSpec struct {
	// Schedule is a standard 5-field cron expression or a descriptor
	// (@hourly, @daily, @every 90m, ...). A "TZ=<zone> " or "CRON_TZ=<zone> "
	// prefix sets the time zone and wins over TimeZone.
	Schedule string `json:"schedule"`
	// TimeZone is an IANA time zone name (America/New_York). Unset means
	// UTC.
	TimeZone *string `json:"timeZone,omitempty"`
	// StartingDeadlineSeconds: a run that is not started within this many
	// seconds of its scheduled time is skipped.
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty"`
	// ConcurrencyPolicy says what to do when a run is due while an earlier
	// one is still active. Empty means Allow.
	ConcurrencyPolicy ConcurrencyPolicy `json:"concurrencyPolicy,omitempty"`
	// Suspend stops new runs; runs already started go on.
	Suspend *bool `json:"suspend,omitempty"`
	// JobTemplate is the Job each run creates.
	JobTemplate JobTemplateSpec `json:"jobTemplate"`
	// SuccessfulJobsHistoryLimit is how many Completed jobs to keep
	// (default 3; unset keeps all).
	SuccessfulJobsHistoryLimit *int32 `json:"successfulJobsHistoryLimit,omitempty"`
	// FailedJobsHistoryLimit is how many unsuccessful finished jobs to
	// keep (default 1; unset keeps all).
	FailedJobsHistoryLimit *int32 `json:"failedJobsHistoryLimit,omitempty"`
}

// ConcurrencyPolicy is Allow, Forbid or Replace.
type ConcurrencyPolicy string

// The concurrency policies.
const (
	// AllowConcurrent starts every run, whatever is still active.
	AllowConcurrent ConcurrencyPolicy = "Allow"
	// ForbidConcurrent starts nothing while a run is active.
	ForbidConcurrent ConcurrencyPolicy = "Forbid"
	// ReplaceConcurrent deletes the active runs and starts the new one.
	ReplaceConcurrent ConcurrencyPolicy = "Replace"
)

// ConcurrencyPolicies lists the three policies in a fixed order.
func ConcurrencyPolicies() []ConcurrencyPolicy {
	return []ConcurrencyPolicy{AllowConcurrent, ForbidConcurrent, ReplaceConcurrent}
}

// JobTemplateSpec is the metadata (labels and annotations) and spec of the
// jobs a CronJob creates.
type JobTemplateSpec struct {
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec JobSpec `json:"spec,omitempty"`
}

// CronJobStatus is what the CronJob controller last wrote.
type CronJobStatus struct {
	// Active references the jobs started and not yet finished.
	Active []corev1.ObjectReference `json:"active,omitempty"`
	// LastScheduleTime is the scheduled time of the last run started.
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`
	// LastSuccessfulTime is when the last Completed job finished.
	LastSuccessfulTime *metav1.Time `json:"lastSuccessfulTime,omitempty"`
}
