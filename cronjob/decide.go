package cronjob

import (
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/record"
)

// SkipReason says why a sync starts no run.
type SkipReason string

// The reasons a sync starts no run ("" when it starts one).
const (
	// SkipDeleting: the cronjob has a deletion timestamp; the sync does
	// nothing at all.
	SkipDeleting SkipReason = "deleting"
	// SkipSuspended: spec.suspend is true. The finished jobs and
	// status.active are still seen to, but no schedule is read.
	SkipSuspended SkipReason = "suspended"
	// SkipNotDue: no schedule time has passed since the last run (or the
	// cronjob's creation), or the starting deadline leaves none.
	SkipNotDue SkipReason = "not-due"
	// SkipAlreadyScheduled: the due time is status.lastScheduleTime, or
	// status.active names the job of its run.
	SkipAlreadyScheduled SkipReason = "already-scheduled"
	// SkipForbidConcurrent: concurrencyPolicy Forbid, and status.active
	// is not empty.
	SkipForbidConcurrent SkipReason = "forbid-concurrent"
	// SkipAlreadyExists: the run's job exists and an option made the sync
	// adopt it, or refuse it as another owner's (ForeignJob), instead of
	// failing.
	SkipAlreadyExists SkipReason = "already-exists"
	// SkipFailed: the sync failed before it started the run (Err says
	// why).
	SkipFailed SkipReason = "failed"
)

// Decision is what one sync of a cronjob does, in Volcano's order. To
// apply it, make the calls in Calls one after the other, record Events on
// the cronjob, and requeue as RequeueAfter says; when the API server
// answers a call otherwise than predicted, Answer gives the rest of the
// sync.
type Decision struct {
	// Calls are the sync's API calls in order: gets of jobs and of the
	// cronjob, job deletes, the job create, and last the status write when
	// there is one. The gets change nothing: a controller that trusts its
	// lister may skip them. The answers predicted are those of an API
	// server that agrees with the lister (see Answer).
	Calls []Call
	// Events are the Events Volcano records, in order, all on the
	// cronjob.
	Events []record.Event
	// Status is the cronjob's status as the sync leaves it in its copy of
	// the cronjob: what the status write writes. An entry the sync adds
	// to status.active for the job it creates has the UID the create's
	// answer gave (none, as predicted: Answer the create with the job the
	// API server returned to have it).
	Status vcjob.CronJobStatus
	// WriteStatus says whether the sync writes Status (the last call is
	// then its update). A sync that fails writes nothing.
	WriteStatus bool
	// RequeueAfter is when to sync again if nothing changes before, nil
	// for no requeue (after an error, for a suspended or deleted cronjob,
	// after a failed status write). It may be zero or negative: at once.
	RequeueAfter *time.Duration
	// Err is why the sync failed, nil when it did not. A controller
	// retries a failed sync with backoff. It wraps ErrPanic when
	// Volcano's sync panics.
	Err error
	// Due is the schedule time the sync is about: the run it starts, or
	// the due run it does not start. Nil when none is due, or when the
	// sync stopped before it looked. It is in the zone the schedule runs
	// in.
	Due *time.Time
	// Skipped says why no run started; "" when one did.
	Skipped SkipReason

	// What Answer replays.
	in      input
	answers map[int]Answer
}

// input is what a decision was made from.
type input struct {
	cj   *vcjob.CronJob
	jobs []*vcjob.Job
	now  time.Time
	opts Options
}

// JobToCreate is the job the sync's create passes, exactly as Volcano
// passes it (no namespace: the create's namespace is the cronjob's), or
// nil when it creates none.
func (d Decision) JobToCreate() *vcjob.Job {
	for _, c := range d.Calls {
		if c.Verb == VerbCreate {
			return c.Job
		}
	}
	return nil
}

// JobsToDelete are the sync's job deletes, in order: the finished jobs
// beyond the history limits, then under Replace the active jobs, and the
// created job when the API server returned it without the cronjob's
// controller reference.
func (d Decision) JobsToDelete() []Call {
	var deletes []Call
	for _, c := range d.Calls {
		if c.Verb == VerbDelete {
			deletes = append(deletes, c)
		}
	}
	return deletes
}

// Decide is one sync at now of Volcano's CronJob controller, on a machine
// whose zone is UTC: DecideWith with the zero Options.
func Decide(cj *vcjob.CronJob, jobs []*vcjob.Job, now time.Time) Decision {
	return DecideWith(cj, jobs, now, Options{})
}

// DecideWith is one sync at now of the cronjob cj as the cronjob lister
// holds it. jobs are every job the Job lister holds, in the order it
// lists them (any namespace, any owner: the sync picks the cronjob's jobs
// itself, see IsControlledBy, and looks the others up by name). The
// order changes only the order of Events.
//
// It is a pure function: it reads no clock and no cluster and modifies
// neither cj nor jobs. The API server it predicts agrees with the lister;
// Answer corrects that.
func DecideWith(cj *vcjob.CronJob, jobs []*vcjob.Job, now time.Time, opts Options) Decision {
	return decide(input{cj: cj, jobs: jobs, now: now, opts: opts}, nil)
}

// Answer is the decision when the API server answers call (an index into
// Calls) with a, and the calls before it as d already says: the calls
// after it, the events, the status, the requeue and the error are
// Volcano's from there. A controller calls it when a call fails, and with
// the created job for the create (for its UID in status.active):
//
//	for i := 0; i < len(d.Calls); i++ {
//		if a, unforeseen := apply(d.Calls[i]); unforeseen {
//			d = d.Answer(i, a)
//		}
//	}
//
// A get answered with success carries what it returned (Answer.Job or
// Answer.CronJob). Answer replays the sync from the cronjob and jobs d
// was decided from: leave them unchanged in between.
func (d Decision) Answer(call int, a Answer) Decision {
	if call < 0 || call >= len(d.Calls) {
		d.Err = fmt.Errorf("%w: call %d of %d", errAnswer, call, len(d.Calls))
		return d
	}
	answers := make(map[int]Answer, len(d.answers)+1)
	for i, prev := range d.answers {
		if i < call {
			answers[i] = prev
		}
	}
	answers[call] = a
	return decide(d.in, answers)
}

// syncer is one sync in progress.
type syncer struct {
	opts   Options
	now    time.Time
	cj     *vcjob.CronJob // the sync's copy: its status is what the sync computes
	listed []*vcjob.Job   // every job the Job lister holds
	api    *cluster
	events []record.Event
	// changed is Volcano's updateStatus: the status is to be written.
	changed bool
	due     *time.Time
	skipped SkipReason
}

func (s *syncer) record(e record.Event) { s.events = append(s.events, e) }

func decide(in input, answers map[int]Answer) Decision {
	d := Decision{in: in, answers: answers}
	if in.cj == nil {
		d.Err, d.Skipped = errors.New("no cronjob"), SkipFailed
		return d
	}
	s := &syncer{opts: in.opts, now: in.now, cj: in.cj.DeepCopy(), listed: in.jobs, api: newCluster(in.cj, in.jobs, answers)}
	d.RequeueAfter, d.Err = s.sync()
	if d.Err != nil {
		d.RequeueAfter = nil
		if s.skipped == "" {
			s.skipped = SkipFailed
		}
	}
	d.Calls, d.Events, d.Status = s.api.calls, s.events, s.cj.Status
	d.Due, d.Skipped = s.due, s.skipped
	for _, c := range d.Calls {
		if c.Verb == VerbUpdate {
			d.WriteStatus = true
		}
	}
	return d
}

// sync is Volcano's sync after the lister's get of the cronjob: nothing for
// a cronjob being deleted; else the sync proper, then the status write
// when it changed the status and did not fail.
func (s *syncer) sync() (*time.Duration, error) {
	if s.cj.DeletionTimestamp != nil {
		s.skipped = SkipDeleting
		return nil, nil
	}
	requeue, err := s.syncCronJob()
	if err != nil {
		return nil, err
	}
	if !s.changed {
		return requeue, nil
	}
	if err := s.api.updateStatus(s.cj); err != nil {
		if s.opts.ReportFailedStatusWrite {
			return nil, fmt.Errorf("update the status of cronjob %s: %w", cronJobKey(s.cj), err)
		}
		return nil, nil
	}
	return requeue, nil
}

// syncCronJob is the sync proper, in Volcano's order: the finished jobs
// and the history limits (history.go); the controlled jobs against
// status.active (active.go); suspend; the time zone and the schedule
// (schedule.go); the due run; whether it ran already; the concurrency
// policy (concurrency.go); the create (create.go). It returns the requeue
// and sets s.changed when the status is to be written.
func (s *syncer) syncCronJob() (*time.Duration, error) {
	jobs := controlledJobs(s.cj, s.listed)
	changedByHistory, err := s.finishedJobs(jobs)
	s.changed = changedByHistory
	if err != nil {
		return nil, err
	}
	changedByCheck, err := s.checkActive(jobs)
	s.changed = s.changed || changedByCheck
	if err != nil {
		return nil, err
	}

	if s.cj.Spec.Suspend != nil && *s.cj.Spec.Suspend {
		s.skipped = SkipSuspended
		return nil, nil
	}
	if err := s.checkTimeZone(); err != nil {
		return nil, err
	}
	sched, err := s.loadSchedule()
	if err != nil {
		return nil, err
	}

	u, err := unmetTimes(s.cj, sched, s.now, true)
	if u.latest == nil {
		if err != nil {
			s.record(invalidSchedule(err))
			return nil, fmt.Errorf("spec.schedule %q: %w", s.cj.Spec.Schedule, err)
		}
		s.skipped = SkipNotDue
		return requeueAfter(s.cj, sched, s.now), nil
	}
	if u.missed == manyMissed {
		s.record(tooManyMissedTimes())
	}
	due := *u.latest
	s.due = new(due.In(scheduleZone(sched, s.opts.local())))

	if inActiveByName(s.cj.Status.Active, s.cj.Namespace, JobName(s.cj.Name, due)) || s.cj.Status.LastScheduleTime.Equal(&metav1.Time{Time: due}) {
		s.skipped = SkipAlreadyScheduled
		return requeueAfter(s.cj, sched, s.now), nil
	}
	if existing := s.existingRun(jobs, due); existing != nil {
		s.adopt(existing, due)
		s.skipped = SkipAlreadyExists
		return requeueAfter(s.cj, sched, s.now), nil
	}

	held, changedByPolicy, err := s.concurrency()
	s.changed = s.changed || changedByPolicy
	if err != nil {
		return nil, err
	}
	if held {
		s.skipped = SkipForbidConcurrent
		return requeueAfter(s.cj, sched, s.now), nil
	}

	job, how, err := s.create(due)
	if err != nil {
		return nil, err
	}
	switch {
	case how == adoptedJob:
		s.skipped = SkipAlreadyExists
		return requeueAfter(s.cj, sched, s.now), nil
	case how == notStarted || inActive(s.cj.Status.Active, job.UID):
		s.skipped = SkipAlreadyExists
		return requeueAfter(s.cj, sched, s.now), nil
	}
	s.cj.Status.Active = append(s.cj.Status.Active, jobReference(job))
	s.cj.Status.LastScheduleTime = &metav1.Time{Time: due}
	s.changed = true
	return requeueAfter(s.cj, sched, s.now), nil
}
