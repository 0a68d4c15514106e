package cronjob

import (
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vcjob/vcjob"
)

// SkipReason says why a decision starts no job.
type SkipReason string

// The reasons a decision starts no job ("" when it starts one).
const (
	// SkipNotDue: no schedule time has passed since the last run (or the
	// cronjob's creation).
	SkipNotDue SkipReason = "not-due"
	// SkipDeadlinePassed: runs were missed, all of them more than
	// startingDeadlineSeconds ago.
	SkipDeadlinePassed SkipReason = "deadline-passed"
	// SkipAlreadyExists: the job of the due run exists already.
	SkipAlreadyExists SkipReason = "already-exists"
	// SkipForbidConcurrent: a run is due, but concurrencyPolicy is Forbid
	// and a job is active. It is started late if the active job finishes
	// first and the run is still the most recent one within the deadline.
	SkipForbidConcurrent SkipReason = "forbid-concurrent"
	// SkipSuspended: spec.suspend is true.
	SkipSuspended SkipReason = "suspended"
	// SkipInvalidSpec: the schedule or time zone does not parse, the
	// schedule misbehaves, or startingDeadlineSeconds is negative; the
	// Warnings say which. Nothing runs until the spec changes.
	SkipInvalidSpec SkipReason = "invalid-spec"
	// SkipDeleting: the cronjob has a deletion timestamp.
	SkipDeleting SkipReason = "deleting"
)

// Decision is everything one sync of a cronjob does. Apply it in order:
// delete the jobs in Delete, create Create, write Status.
type Decision struct {
	// Due is the scheduled time the decision is about: the run Create
	// starts, or the due run it does not start (SkipAlreadyExists,
	// SkipForbidConcurrent). Nil when no run is due. It is in the
	// schedule's time zone.
	Due *time.Time
	// Create is the job to create, nil when Skipped says why not.
	Create *vcjob.Job
	// Delete names the jobs (in the cronjob's namespace) to delete: the
	// finished jobs beyond the history limits, oldest first, then, under
	// Replace, the active jobs the new one replaces.
	Delete []string
	// Status is the cronjob's new status. When Create is set, its entry in
	// Active has no UID yet: fill it in from the created job, or leave it,
	// since a reference without a UID matches its job by name.
	Status vcjob.CronJobStatus
	// Warnings are the events a controller would record: too many missed
	// runs, an unparseable schedule, an unknown time zone, jobs that run
	// without being in the active list.
	Warnings []string
	// Skipped says why no job is created; "" when Create is set.
	Skipped SkipReason
	// RequeueAfter is when to sync again if nothing changes before: the
	// next schedule time plus NextScheduleDelta. 0 means only a change to
	// the cronjob (or one of its jobs) calls for another sync.
	RequeueAfter time.Duration
}

// Decide is one sync of the cronjob at now. jobs are the jobs it owns
// (see IsControlledBy); jobs in another namespace are ignored with a
// warning. Neither cj nor jobs is modified.
func Decide(cj *vcjob.CronJob, jobs []JobState, now time.Time) Decision {
	if cj == nil {
		return Decision{Skipped: SkipInvalidSpec, Warnings: []string{"no cronjob was given"}}
	}
	var d Decision
	owned := make([]JobState, 0, len(jobs))
	for _, j := range jobs {
		if j.Namespace != "" && j.Namespace != cj.Namespace {
			d.warn("job %s/%s is not in the cronjob's namespace %q: ignored", j.Namespace, j.Name, cj.Namespace)
			continue
		}
		owned = append(owned, j)
	}
	idx := indexJobs(owned)

	d.Status = *cj.Status.DeepCopy()
	d.Status.Active, _ = reconcileActive(d.Status.Active, owned, idx)
	d.Status.LastSuccessfulTime = lastSuccessful(d.Status.LastSuccessfulTime, owned)
	d.Delete = historyToDelete(owned, cj.Spec.SuccessfulJobsHistoryLimit, cj.Spec.FailedJobsHistoryLimit)
	d.recordDeletedRuns(idx, now)

	d.decideRun(cj, owned, idx, now)

	// Reported after the run is decided, so that a job it adopts into the
	// active list, or deletes, is not reported.
	_, unexpected := reconcileActive(d.Status.Active, owned, idx)
	for _, name := range unexpected {
		if !slices.Contains(d.Delete, name) {
			d.warn("job %s is not finished but not in status.active: the controller did not start it, or lost the status write after starting it", name)
		}
	}
	return d
}

// decideRun decides whether a run starts and when to look again.
func (d *Decision) decideRun(cj *vcjob.CronJob, owned []JobState, idx jobIndex, now time.Time) {
	if cj.DeletionTimestamp != nil {
		d.Skipped = SkipDeleting
		return
	}
	sched, err := vcjob.ParseCronSchedule(&cj.Spec)
	if err != nil {
		d.invalid(err.Error())
		return
	}
	deadline := cj.Spec.StartingDeadlineSeconds
	if deadline != nil && *deadline < 0 {
		d.invalid(field.Invalid(field.NewPath("spec", "startingDeadlineSeconds"), *deadline, content.MinError(0)).Error())
		return
	}
	if cj.Spec.Suspend != nil && *cj.Spec.Suspend {
		d.Skipped = SkipSuspended
		return
	}

	// The reconciled status: recordDeletedRuns may have moved it on.
	var last *time.Time
	if d.Status.LastScheduleTime != nil {
		last = &d.Status.LastScheduleTime.Time
	}
	created := cj.CreationTimestamp.Time
	earliest := earliestConsidered(last, created, deadline, now)
	w, err := scheduleWindow(sched, earliest, now)
	if err != nil {
		d.invalid(field.Invalid(field.NewPath("spec", "schedule"), cj.Spec.Schedule, err.Error()).Error())
		return
	}
	if w.count > MaxMissedSchedules {
		d.warn("more than %d start times were missed since %s: set or decrease spec.startingDeadlineSeconds or check clock skew",
			MaxMissedSchedules, earliest.In(sched.Location).Format(time.RFC3339))
	}

	if w.latest.IsZero() {
		d.Skipped = SkipNotDue
		if deadline != nil {
			// Without the deadline, would a run have been due?
			undeadlined, err := scheduleWindow(sched, earliestConsidered(last, created, nil, now), now)
			if err == nil && !undeadlined.latest.IsZero() {
				d.Skipped = SkipDeadlinePassed
			}
		}
	} else {
		due := w.latest.In(sched.Location)
		d.Due = &due
		d.startRun(cj, owned, idx, due, sched.Location)
	}

	base := created
	if d.Status.LastScheduleTime != nil {
		base = d.Status.LastScheduleTime.Time
	}
	d.RequeueAfter = requeueAfter(sched, base, now)
}

// startRun starts the run due at due, unless its job exists or Forbid
// holds it back.
func (d *Decision) startRun(cj *vcjob.CronJob, owned []JobState, idx jobIndex, due time.Time, zone *time.Location) {
	name := JobName(cj.Name, due)
	if existing := findRun(owned, name, due); existing != nil {
		// Started before, and the status write that recorded it was lost
		// (or someone else started it): adopt it rather than start it again.
		d.Skipped = SkipAlreadyExists
		if !isFinished(existing.Phase) && !lists(d.Status.Active, idx, existing) {
			d.Status.Active = append(d.Status.Active, jobRef(cj.Namespace, existing))
		}
		d.Status.LastScheduleTime = &metav1.Time{Time: due}
		return
	}

	switch cj.Spec.ConcurrencyPolicy {
	case vcjob.ForbidConcurrent:
		if len(d.Status.Active) > 0 {
			d.Skipped = SkipForbidConcurrent
			return
		}
	case vcjob.ReplaceConcurrent:
		for _, ref := range d.Status.Active {
			d.Delete = append(d.Delete, ref.Name)
		}
		d.Status.Active = nil
	}
	d.Create = renderJob(cj, due, zone)
	d.Status.Active = append(d.Status.Active, jobRef(cj.Namespace, &JobState{Name: name}))
	d.Status.LastScheduleTime = &metav1.Time{Time: due}
}

// recordDeletedRuns moves status.lastScheduleTime up to the scheduled time
// of a job about to be deleted, when the status does not record that run
// yet (the status write after starting it was lost). The job is the only
// evidence the run happened; without it a later sync would start the run
// again. Kubernetes does not do this.
func (d *Decision) recordDeletedRuns(idx jobIndex, now time.Time) {
	for _, name := range d.Delete {
		scheduled := idx.byName[name].ScheduledTime
		if scheduled.IsZero() || scheduled.After(now) {
			continue
		}
		if last := d.Status.LastScheduleTime; last == nil || scheduled.After(last.Time) {
			d.Status.LastScheduleTime = &metav1.Time{Time: scheduled}
		}
	}
}

// findRun is the job of the run due at due: the job of its name, or a job
// whose scheduled-timestamp annotation says due.
func findRun(jobs []JobState, name string, due time.Time) *JobState {
	for i := range jobs {
		if jobs[i].Name == name || (!jobs[i].ScheduledTime.IsZero() && jobs[i].ScheduledTime.Equal(due)) {
			return &jobs[i]
		}
	}
	return nil
}

// lists reports whether the active list references job.
func lists(active []corev1.ObjectReference, idx jobIndex, job *JobState) bool {
	for _, ref := range active {
		if idx.find(ref) == job {
			return true
		}
	}
	return false
}

func (d *Decision) invalid(warning string) {
	d.Skipped = SkipInvalidSpec
	d.Warnings = append(d.Warnings, warning)
}

func (d *Decision) warn(format string, args ...any) {
	d.Warnings = append(d.Warnings, fmt.Sprintf(format, args...))
}
