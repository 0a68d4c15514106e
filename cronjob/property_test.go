package cronjob

import (
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/robfig/cron/v3"

	"github.com/vcjob/vcjob"
)

// simJob is a job in the simulated cluster.
type simJob struct {
	state    JobState // Phase is the final phase, reached at finishAt
	finishAt time.Time
}

func (j simJob) at(now time.Time) JobState {
	s := j.state
	if now.Before(j.finishAt) {
		s.Phase, s.FinishedAt = vcjob.Running, time.Time{}
	} else {
		s.FinishedAt = j.finishAt
	}
	return s
}

// sim is a cluster with one cronjob, run by applying Decide's decisions.
type sim struct {
	cj      *vcjob.CronJob
	jobs    []simJob
	started map[time.Time]string // scheduled time -> the job started for it
	created int
}

func (s *sim) states(now time.Time) []JobState {
	out := make([]JobState, 0, len(s.jobs))
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

func drawCronJob(t *rapid.T, created time.Time) *vcjob.CronJob {
	opts := []func(*vcjob.CronJob){
		withZone(rapid.SampledFrom([]string{"UTC", "America/New_York", "Europe/London", "Asia/Kolkata", "Australia/Lord_Howe"}).Draw(t, "zone")),
		withPolicy(rapid.SampledFrom(vcjob.ConcurrencyPolicies()).Draw(t, "policy")),
		withLimits(int32(rapid.IntRange(0, 3).Draw(t, "successfulLimit")), int32(rapid.IntRange(0, 3).Draw(t, "failedLimit"))),
	}
	if rapid.Bool().Draw(t, "has deadline") {
		opts = append(opts, withDeadline(rapid.Int64Range(0, 4*3600).Draw(t, "deadline")))
	}
	return cronJob(drawSchedule(t), created, opts...)
}

// The controller simulated by applying Decide's results, with jobs that
// finish after a while, spurious syncs, a user suspending and resuming, and
// (when lossy) status writes lost after a job was created: no decision ever
// starts two jobs for the same scheduled time, and under Forbid none starts
// a job while another is active.
func TestPropertySimulatedController(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		start := drawStart(t)
		end := start.Add(time.Duration(rapid.IntRange(12, 10*24).Draw(t, "hours")) * time.Hour)
		s := &sim{
			cj:      drawCronJob(t, start.Add(-time.Duration(rapid.IntRange(0, 48*60).Draw(t, "age"))*time.Minute)),
			started: map[time.Time]string{},
		}
		lossy := rapid.Bool().Draw(t, "lossy")
		sched, err := vcjob.ParseCronSchedule(&s.cj.Spec)
		if err != nil {
			t.Fatalf("drawn an invalid schedule: %v", err)
		}

		now := start
		var resumeAt time.Time // when the user resumes a suspended cronjob
		for step := 0; step < 200 && !now.After(end); step++ {
			if *s.cj.Spec.Suspend && !now.Before(resumeAt) {
				s.cj.Spec.Suspend = new(false)
			}
			states := s.states(now)
			d := Decide(s.cj, states, now)
			checkDecision(t, s, states, sched, d, now, lossy)
			s.apply(t, d, now, lossy)

			// Wake at the requeue time, when a job finishes, or earlier for
			// no reason (another event).
			var wakes []time.Time
			if d.RequeueAfter > 0 {
				wakes = append(wakes, now.Add(d.RequeueAfter))
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

func checkDecision(t *rapid.T, s *sim, states []JobState, sched vcjob.CronSchedule, d Decision, now time.Time, lossy bool) {
	if (d.Create == nil) == (d.Skipped == "") {
		t.Fatalf("create %v with skipped %q", d.Create != nil, d.Skipped)
	}
	if d.Due != nil {
		if d.Due.After(now) {
			t.Fatalf("due %s after now %s", d.Due, now)
		}
		_, every := sched.Schedule.(cron.ConstantDelaySchedule) // @every counts from its last time
		if !every && !sched.Next(d.Due.Add(-time.Second)).Equal(*d.Due) {
			t.Fatalf("due %s is not a schedule time", d.Due)
		}
		if dl := s.cj.Spec.StartingDeadlineSeconds; dl != nil && !d.Due.After(now.Add(-time.Duration(*dl)*time.Second)) {
			t.Fatalf("due %s is more than %ds before %s", d.Due, *dl, now)
		}
	}
	if d.RequeueAfter <= 0 && d.Skipped != SkipSuspended {
		t.Fatalf("no requeue after a %q decision", d.Skipped)
	}
	if old, new := s.cj.Status.LastScheduleTime, d.Status.LastScheduleTime; old != nil && (new == nil || new.Before(old)) {
		t.Fatalf("lastScheduleTime went back from %s to %v", old, new)
	}
	for i, name := range d.Delete {
		if !slices.ContainsFunc(states, func(j JobState) bool { return j.Name == name }) || slices.Contains(d.Delete[:i], name) {
			t.Fatalf("deletes %s, which does not exist or is deleted twice: %v", name, d.Delete)
		}
	}
	if d.Create == nil {
		return
	}

	if d.Due == nil || d.Create.Name != JobName(s.cj.Name, *d.Due) {
		t.Fatalf("created %s for due %v", d.Create.Name, d.Due)
	}
	if first, ok := s.started[d.Due.UTC()]; ok {
		t.Fatalf("a second job %s for %s, started before as %s", d.Create.Name, d.Due, first)
	}
	if slices.ContainsFunc(states, func(j JobState) bool { return j.Name == d.Create.Name }) {
		t.Fatalf("creates %s, which exists", d.Create.Name)
	}
	if s.cj.Spec.ConcurrencyPolicy == vcjob.ForbidConcurrent {
		for _, j := range states {
			listed := slices.ContainsFunc(s.cj.Status.Active, func(r corev1.ObjectReference) bool { return r.Name == j.Name })
			if !isFinished(j.Phase) && (listed || !lossy) {
				t.Fatalf("Forbid starts %s while %s (%s) is active", d.Create.Name, j.Name, j.Phase)
			}
		}
	}
	if s.cj.Spec.ConcurrencyPolicy == vcjob.ReplaceConcurrent && len(d.Status.Active) != 1 {
		t.Fatalf("Replace leaves %d jobs active", len(d.Status.Active))
	}
}

func (s *sim) apply(t *rapid.T, d Decision, now time.Time, lossy bool) {
	s.jobs = slices.DeleteFunc(s.jobs, func(j simJob) bool { return slices.Contains(d.Delete, j.state.Name) })
	if d.Create != nil {
		s.created++
		state := JobStateOf(d.Create)
		state.UID = types.UID(fmt.Sprintf("uid-%d", s.created))
		state.CreationTimestamp = now
		state.Phase = rapid.SampledFrom([]vcjob.JobPhase{vcjob.Completed, vcjob.Failed, vcjob.Terminated, vcjob.Aborted}).Draw(t, "outcome")
		s.jobs = append(s.jobs, simJob{state: state, finishAt: now.Add(time.Duration(rapid.IntRange(1, 8*3600).Draw(t, "runsFor")) * time.Second)})
		s.started[d.Due.UTC()] = d.Create.Name
		for i := range d.Status.Active {
			if d.Status.Active[i].Name == d.Create.Name && rapid.Bool().Draw(t, "record the UID") {
				d.Status.Active[i].UID = state.UID
			}
		}
	}
	if d.Create == nil || !lossy || !rapid.Bool().Draw(t, "lose the status write") {
		s.cj.Status = d.Status
	}

	// After the decision, the finished jobs are within the history limits.
	var successful, failed int32
	for _, j := range s.states(now) {
		switch {
		case !isFinished(j.Phase):
		case isSuccessful(j.Phase):
			successful++
		default:
			failed++
		}
	}
	if successful > *s.cj.Spec.SuccessfulJobsHistoryLimit || failed > *s.cj.Spec.FailedJobsHistoryLimit {
		t.Fatalf("history: %d successful and %d failed jobs kept, limits %d and %d", successful, failed,
			*s.cj.Spec.SuccessfulJobsHistoryLimit, *s.cj.Spec.FailedJobsHistoryLimit)
	}
}
