package cronjob

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/robfig/cron/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/vcjob/vcjob"
)

// simJob is a job in the simulated cluster: it runs until finishAt, then
// is in phase outcome.
type simJob struct {
	job      *vcjob.Job
	finishAt time.Time
	outcome  vcjob.JobPhase
}

func (j simJob) at(now time.Time) *vcjob.Job {
	listed := j.job.DeepCopy()
	listed.Status.State = vcjob.JobState{Phase: vcjob.Running}
	if !now.Before(j.finishAt) {
		listed.Status.State = vcjob.JobState{Phase: j.outcome, LastTransitionTime: metav1.NewTime(j.finishAt)}
	}
	return listed
}

// sim is a cluster with one cronjob whose API server agrees with its
// listers, run by applying decisions call by call.
type sim struct {
	cj      *vcjob.CronJob
	opts    Options
	jobs    []simJob
	started map[time.Time]string // scheduled time -> the job started for it
	created int
}

func (s *sim) listed(now time.Time) []*vcjob.Job {
	out := make([]*vcjob.Job, 0, len(s.jobs))
	for _, j := range s.jobs {
		out = append(out, j.at(now))
	}
	return out
}

func drawSchedule(t *rapid.T) string {
	minute, hour := rapid.IntRange(0, 59).Draw(t, "minute"), rapid.IntRange(0, 23).Draw(t, "hour")
	switch rapid.IntRange(0, 7).Draw(t, "form") {
	case 0:
		return fmt.Sprintf("*/%d * * * *", rapid.IntRange(1, 30).Draw(t, "step"))
	case 1:
		return fmt.Sprintf("%d * * * *", minute)
	case 2:
		// 01:xx and 02:xx meet the daylight saving changes.
		return fmt.Sprintf("%d %d * * *", minute, rapid.SampledFrom([]int{1, 2, hour}).Draw(t, "dstHour"))
	case 3:
		return fmt.Sprintf("%d %d * * 1-5", minute, hour)
	case 4:
		return fmt.Sprintf("%d %d-%d/%d * * *", minute, hour/2, hour, rapid.IntRange(1, 5).Draw(t, "hourStep"))
	case 5:
		return fmt.Sprintf("@every %dm", rapid.IntRange(1, 300).Draw(t, "every"))
	case 6:
		return rapid.SampledFrom([]string{"@hourly", "@daily", "@weekly"}).Draw(t, "descriptor")
	default:
		return fmt.Sprintf("%d,%d %d * * *", minute, (minute+30)%60, hour)
	}
}

// drawStart picks the start of the window, often right before a daylight
// saving change.
func drawStart(t *rapid.T) time.Time {
	near := rapid.SampledFrom([]time.Time{
		at("2026-03-08T00:00:00-05:00"), // New York springs forward at 02:00
		at("2026-11-01T00:00:00-04:00"), // New York falls back at 02:00
		at("2026-03-29T00:00:00Z"),      // London springs forward at 01:00
		at("2026-10-25T00:00:00+01:00"), // London falls back at 02:00
		at("2026-04-05T01:00:00+11:00"), // Lord Howe falls back 30 minutes at 02:00
	}).Draw(t, "near")
	if rapid.Bool().Draw(t, "random start") {
		return time.Unix(rapid.Int64Range(at("2020-01-01T00:00:00Z").Unix(), at("2030-01-01T00:00:00Z").Unix()).Draw(t, "start"), 0)
	}
	return near.Add(-time.Duration(rapid.IntRange(0, 36*60).Draw(t, "before")) * time.Minute)
}

func drawCronJob(t *rapid.T, createdAt time.Time) *vcjob.CronJob {
	opts := []func(*vcjob.CronJob){
		func(cj *vcjob.CronJob) { cj.CreationTimestamp = metav1.NewTime(createdAt) },
		withPolicy(rapid.SampledFrom(append(vcjob.ConcurrencyPolicies(), "")).Draw(t, "policy")),
		withLimits(new(int32(rapid.IntRange(0, 3).Draw(t, "successfulLimit"))), new(int32(rapid.IntRange(0, 3).Draw(t, "failedLimit")))),
	}
	if zone := rapid.SampledFrom([]string{"", "UTC", "America/New_York", "Europe/London", "Asia/Kolkata", "Australia/Lord_Howe", "unset"}).Draw(t, "zone"); zone != "unset" {
		opts = append(opts, withZone(zone))
	}
	if rapid.Bool().Draw(t, "has deadline") {
		opts = append(opts, withDeadline(rapid.Int64Range(0, 4*3600).Draw(t, "deadline")))
	}
	cj := cronJob(drawSchedule(t), opts...)
	cj.Spec.Suspend = new(false)
	return cj
}

// The controller simulated by applying decisions, with jobs that finish
// after a while (Aborted ones stay active for good), spurious syncs and a
// user suspending and resuming. The API server agrees with the listers and
// no write is lost, so Volcano's rules hold: no scheduled time runs twice,
// Forbid starts nothing while a job it started is unfinished, the history
// limits hold after each sync, no reference goes stale and no job is an
// orphan, and every sync succeeds and asks to be called again.
func TestPropertySimulatedController(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		start := drawStart(t)
		end := start.Add(time.Duration(rapid.IntRange(12, 10*24).Draw(t, "hours")) * time.Hour)
		s := &sim{
			cj:      drawCronJob(t, start.Add(-time.Duration(rapid.IntRange(0, 48*60).Draw(t, "age"))*time.Minute)),
			started: map[time.Time]string{},
		}
		sched, err := ParseSchedule(&s.cj.Spec)
		if err != nil && s.cj.Spec.TimeZone == nil {
			t.Fatalf("drawn an invalid schedule: %v", err)
		}

		now := start
		var resumeAt time.Time
		for step := 0; step < 200 && !now.After(end); step++ {
			if *s.cj.Spec.Suspend && !now.Before(resumeAt) {
				s.cj.Spec.Suspend = new(false)
			}
			listed := s.listed(now)
			d := DecideWith(s.cj, listed, now, s.opts)
			checkDecision(t, s, listed, sched.Schedule, d, now)
			d = s.apply(t, d, now)

			var wakes []time.Time
			if d.RequeueAfter != nil {
				wakes = append(wakes, now.Add(*d.RequeueAfter))
			}
			for _, j := range s.jobs {
				if j.finishAt.After(now) {
					wakes = append(wakes, j.finishAt)
				}
			}
			if rapid.IntRange(0, 9).Draw(t, "spurious") == 0 {
				wakes = append(wakes, now.Add(time.Duration(rapid.IntRange(1, 3600).Draw(t, "spuriousAfter"))*time.Second))
			}
			if !*s.cj.Spec.Suspend && rapid.IntRange(0, 29).Draw(t, "suspend") == 0 {
				s.cj.Spec.Suspend = new(true)
				resumeAt = now.Add(time.Duration(rapid.IntRange(1, 12*60).Draw(t, "suspendFor")) * time.Minute)
				wakes = append(wakes, now.Add(time.Second)) // the update event
			}
			if *s.cj.Spec.Suspend {
				wakes = append(wakes, resumeAt)
			}
			if len(wakes) == 0 {
				break
			}
			now = slices.MinFunc(wakes, time.Time.Compare)
		}
	})
}

// knownReasons are the reasons Decide records.
var knownReasons = []string{
	"SawCompletedJob", "SuccessfulDelete", "FailedDelete", "OrphanedJob", "StaleReference",
	"InvalidTimeZone", "UnsupportedSchedule", "InvalidSchedule", "TooManyMissedTimes",
	"ForbidConcurrent", "ReplaceConcurrent", "FailedGet",
	"SuccessfulCreate", "FailedCreate", "NamespaceTerminating", "ForeignJob",
}

func checkDecision(t *rapid.T, s *sim, listed []*vcjob.Job, sched cron.Schedule, d Decision, now time.Time) {
	if d.Err != nil {
		t.Fatalf("the sync fails: %v", d.Err)
	}
	if d.RequeueAfter == nil && d.Skipped != SkipSuspended {
		t.Fatalf("no requeue after a %q sync", d.Skipped)
	}
	if d.RequeueAfter != nil && *d.RequeueAfter <= 0 {
		t.Fatalf("requeue after %s", *d.RequeueAfter)
	}
	for _, e := range d.Events {
		if !slices.Contains(knownReasons, e.Reason) || (e.Type != "Normal" && e.Type != "Warning") {
			t.Fatalf("an unknown event %v", e)
		}
		if e.Reason == "OrphanedJob" || e.Reason == "StaleReference" {
			t.Fatalf("with no write lost: %v", e)
		}
	}
	if old, new := s.cj.Status.LastScheduleTime, d.Status.LastScheduleTime; old != nil && (new == nil || new.Before(old)) {
		t.Fatalf("lastScheduleTime went back from %s to %v", old, new)
	}
	if d.Due != nil {
		if d.Due.After(now) {
			t.Fatalf("due %s after now %s", d.Due, now)
		}
		if _, every := sched.(cron.ConstantDelaySchedule); sched != nil && !every && !sched.Next(d.Due.Add(-time.Second)).Equal(*d.Due) {
			t.Fatalf("due %s is not a schedule time", d.Due)
		}
		if dl := s.cj.Spec.StartingDeadlineSeconds; dl != nil && !d.Due.After(now.Add(-time.Duration(*dl)*time.Second)) {
			t.Fatalf("due %s is more than %ds before %s", d.Due, *dl, now)
		}
	}
	for _, del := range d.JobsToDelete() {
		if !slices.ContainsFunc(listed, func(j *vcjob.Job) bool { return j.Name == del.Name }) {
			t.Fatalf("deletes %s, which does not exist", del.Name)
		}
	}
	created := d.JobToCreate()
	if created == nil {
		return
	}
	if d.Due == nil || created.Name != JobName(s.cj.Name, *d.Due) || !IsControlledBy(withNamespace(created, s.cj.Namespace), s.cj) {
		t.Fatalf("created %s (%v) for due %v", created.Name, created.OwnerReferences, d.Due)
	}
	if first, ok := s.started[d.Due.UTC()]; ok {
		t.Fatalf("a second job %s for %s, started before as %s", created.Name, d.Due, first)
	}
	if s.cj.Spec.ConcurrencyPolicy == vcjob.ForbidConcurrent {
		for _, j := range listed {
			if !isFinished(j) {
				t.Fatalf("Forbid starts %s while %s (%s) is active", created.Name, j.Name, j.Status.State.Phase)
			}
		}
	}
}

func withNamespace(j *vcjob.Job, namespace string) *vcjob.Job {
	j = j.DeepCopy()
	j.Namespace = namespace
	return j
}

// apply makes the decision's calls and writes its status, and checks what
// is left.
func (s *sim) apply(t *rapid.T, d Decision, now time.Time) Decision {
	for i := 0; i < len(d.Calls); i++ {
		switch c := d.Calls[i]; c.Verb {
		case VerbDelete:
			s.jobs = slices.DeleteFunc(s.jobs, func(j simJob) bool { return j.job.Name == c.Name })
		case VerbCreate:
			s.created++
			created := c.Job.DeepCopy()
			created.Namespace = c.Namespace
			created.UID = types.UID(fmt.Sprintf("uid-%d", s.created))
			created.CreationTimestamp = metav1.NewTime(now)
			outcome := rapid.SampledFrom([]vcjob.JobPhase{vcjob.Completed, vcjob.Failed, vcjob.Terminated, vcjob.Aborted}).Draw(t, "outcome")
			s.jobs = append(s.jobs, simJob{job: created, finishAt: now.Add(time.Duration(rapid.IntRange(1, 8*3600).Draw(t, "runsFor")) * time.Second), outcome: outcome})
			s.started[d.Due.UTC()] = created.Name
			d = d.Answer(i, Answer{Job: created})
		}
	}
	if d.WriteStatus {
		s.cj.Status = d.Status
	}

	var successful, failed int32
	listed := s.listed(now)
	for _, j := range listed {
		switch j.Status.State.Phase {
		case vcjob.Completed:
			successful++
		case vcjob.Failed:
			failed++
		}
	}
	if successful > *s.cj.Spec.SuccessfulJobsHistoryLimit || failed > *s.cj.Spec.FailedJobsHistoryLimit {
		t.Fatalf("history: %d Completed and %d Failed jobs kept, limits %d and %d", successful, failed,
			*s.cj.Spec.SuccessfulJobsHistoryLimit, *s.cj.Spec.FailedJobsHistoryLimit)
	}
	for _, ref := range s.cj.Status.Active {
		j := listerGet(listed, ref.Namespace, ref.Name)
		if j == nil || j.UID != ref.UID || isFinished(j) {
			t.Fatalf("status.active lists %s/%s (%s), which is not an unfinished job", ref.Namespace, ref.Name, ref.UID)
		}
	}
	return d
}

// With status writes lost after a create, Volcano's syncs fail on the
// conflict until the job is deleted, and then start its run a second time.
// AdoptExistingJob with RecordDeletedRuns never runs a scheduled time
// twice, and never fails a sync.
func TestPropertyLostWrites(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		start := drawStart(t)
		cj := drawCronJob(t, start)
		fixed := Options{AdoptExistingJob: true, RecordDeletedRuns: true}
		opts := rapid.SampledFrom([]Options{{}, fixed}).Draw(t, "options")
		var jobs []simJob
		started := map[time.Time]int{}
		created := 0
		now := start
		for step := 0; step < 100; step++ {
			var listed []*vcjob.Job
			for _, j := range jobs {
				listed = append(listed, j.at(now))
			}
			d := DecideWith(cj, listed, now, opts)
			if opts == fixed && d.Err != nil {
				t.Fatalf("a sync fails: %v", d.Err)
			}
			lose := false
			for i := 0; i < len(d.Calls); i++ {
				switch c := d.Calls[i]; c.Verb {
				case VerbDelete:
					jobs = slices.DeleteFunc(jobs, func(j simJob) bool { return j.job.Name == c.Name })
				case VerbCreate:
					created++
					job := c.Job.DeepCopy()
					job.Namespace, job.UID, job.CreationTimestamp = c.Namespace, types.UID(fmt.Sprintf("uid-%d", created)), metav1.NewTime(now)
					jobs = append(jobs, simJob{job: job, finishAt: now.Add(time.Duration(rapid.IntRange(1, 3*3600).Draw(t, "runsFor")) * time.Second), outcome: vcjob.Completed})
					started[d.Due.UTC()]++
					if started[d.Due.UTC()] > 1 && opts == fixed {
						t.Fatalf("%s runs a second time", d.Due)
					}
					d = d.Answer(i, Answer{Job: job})
					lose = rapid.Bool().Draw(t, "lose the status write")
				case VerbUpdate:
					if lose {
						d = d.Answer(i, Answer{Err: errors.New("lost")})
					}
				}
			}
			if d.WriteStatus && !lose {
				cj.Status = d.Status
			}
			next := now.Add(time.Duration(rapid.IntRange(1, 6*3600).Draw(t, "nextSync")) * time.Second)
			if d.RequeueAfter != nil && now.Add(*d.RequeueAfter).Before(next) {
				next = now.Add(*d.RequeueAfter)
			}
			now = next
		}
	})
}
