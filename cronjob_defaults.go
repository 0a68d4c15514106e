package vcjob

// The values the CronJob CRD's schema fills in on create.
const (
	DefaultSuccessfulJobsHistoryLimit = int32(3)
	DefaultFailedJobsHistoryLimit     = int32(1)
)

// SetCronJobDefaults fills in what the API server writes when a CronJob is
// created: concurrencyPolicy Allow, suspend false, and history limits of 3
// successful and 1 failed job. The job template is left alone: the jobs
// created from it get the Job defaults (SetDefaults) when they are
// created. Fields already set are kept; a nil cronjob is ignored.
func SetCronJobDefaults(cj *CronJob) {
	if cj == nil {
		return
	}
	spec := &cj.Spec
	if spec.ConcurrencyPolicy == "" {
		spec.ConcurrencyPolicy = AllowConcurrent
	}
	if spec.Suspend == nil {
		spec.Suspend = new(bool)
	}
	if spec.SuccessfulJobsHistoryLimit == nil {
		spec.SuccessfulJobsHistoryLimit = new(DefaultSuccessfulJobsHistoryLimit)
	}
	if spec.FailedJobsHistoryLimit == nil {
		spec.FailedJobsHistoryLimit = new(DefaultFailedJobsHistoryLimit)
	}
}
