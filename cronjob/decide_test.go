package cronjob

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

// decideCase pins every part of a decision.
type decideCase struct {
	name string
	cj   *vcjob.CronJob
	jobs []JobState
	now  time.Time

	due          *time.Time
	create       string // the created job's name, "" for none
	skipped      SkipReason
	delete       []string
	active       []string
	lastSchedule *time.Time
	requeue      time.Duration
	warnings     []string // one substring per warning, in order
}

func runDecideCases(t *testing.T, cases []decideCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.cj.DeepCopy()
			d := Decide(tc.cj, tc.jobs, tc.now)
			assert.Equal(t, before, tc.cj, "Decide must not modify the cronjob")

			if tc.due == nil {
				assert.Nil(t, d.Due, "due")
			} else if assert.NotNil(t, d.Due, "due") {
				assert.True(t, tc.due.Equal(*d.Due), "due %s, want %s", d.Due, tc.due)
			}
			if tc.create == "" {
				assert.Nil(t, d.Create, "create")
			} else if assert.NotNil(t, d.Create, "create") {
				assert.Equal(t, tc.create, d.Create.Name)
			}
			assert.Equal(t, tc.skipped, d.Skipped, "skipped")
			assert.Equal(t, tc.delete, d.Delete, "delete")
			if tc.active == nil {
				tc.active = []string{}
			}
			assert.Equal(t, tc.active, names(d.Status.Active), "active")
			if tc.lastSchedule == nil {
				assert.Nil(t, d.Status.LastScheduleTime, "lastScheduleTime")
			} else if assert.NotNil(t, d.Status.LastScheduleTime, "lastScheduleTime") {
				assert.True(t, tc.lastSchedule.Equal(d.Status.LastScheduleTime.Time), "lastScheduleTime %s, want %s", d.Status.LastScheduleTime, tc.lastSchedule)
			}
			assert.Equal(t, tc.requeue, d.RequeueAfter, "requeueAfter")
			if assert.Len(t, d.Warnings, len(tc.warnings), "warnings: %q", d.Warnings) {
				for i, w := range tc.warnings {
					assert.Contains(t, d.Warnings[i], w)
				}
			}
		})
	}
}

const every5 = "*/5 * * * *"

var (
	created = at("2026-01-05T00:00:30Z") // a Monday
	t0000   = at("2026-01-05T00:00:00Z")
	t0005   = at("2026-01-05T00:05:00Z")
	t0010   = at("2026-01-05T00:10:00Z")
	t0015   = at("2026-01-05T00:15:00Z")
	delta   = NextScheduleDelta
)

func TestDecideSchedule(t *testing.T) {
	runDecideCases(t, []decideCase{
		{
			name: "first run after creation",
			cj:   cronJob(every5, created), now: t0005,
			due: &t0005, create: JobName("nightly", t0005),
			active: []string{JobName("nightly", t0005)}, lastSchedule: &t0005,
			requeue: 5*time.Minute + delta,
		},
		{
			name: "nothing due yet",
			cj:   cronJob(every5, created), now: t0005.Add(-time.Second),
			skipped: SkipNotDue, requeue: time.Second + delta,
		},
		{
			name: "created in the future: nothing due before it",
			cj:   cronJob(every5, t0015), now: t0010,
			skipped: SkipNotDue, requeue: 10*time.Minute + delta,
		},
		{
			name: "missed runs: only the latest starts",
			cj:   cronJob(every5, created, withLastSchedule(t0005)), now: at("2026-01-05T00:17:10Z"),
			due: &t0015, create: JobName("nightly", t0015),
			active: []string{JobName("nightly", t0015)}, lastSchedule: &t0015,
			requeue: 2*time.Minute + 50*time.Second + delta,
		},
		{
			name: "the run just started is not due again",
			cj:   cronJob(every5, created, withLastSchedule(t0015)), now: at("2026-01-05T00:15:00.1Z"),
			skipped: SkipNotDue, lastSchedule: &t0015,
			requeue: 5*time.Minute - 100*time.Millisecond + delta,
		},
		{
			name: "startingDeadlineSeconds cuts every missed run",
			cj:   cronJob(every5, created, withLastSchedule(t0005), withDeadline(60)), now: at("2026-01-05T00:17:10Z"),
			skipped: SkipDeadlinePassed, lastSchedule: &t0005,
			requeue: 2*time.Minute + 50*time.Second + delta,
		},
		{
			name: "startingDeadlineSeconds keeps a run missed by less",
			cj:   cronJob(every5, created, withLastSchedule(t0005), withDeadline(180)), now: at("2026-01-05T00:17:10Z"),
			due: &t0015, create: JobName("nightly", t0015),
			active: []string{JobName("nightly", t0015)}, lastSchedule: &t0015,
			requeue: 2*time.Minute + 50*time.Second + delta,
		},
		{
			name: "startingDeadlineSeconds at the boundary: a run exactly deadline ago is cut",
			cj:   cronJob(every5, created, withLastSchedule(t0005), withDeadline(130)), now: at("2026-01-05T00:17:10Z"),
			skipped: SkipDeadlinePassed, lastSchedule: &t0005,
			requeue: 2*time.Minute + 50*time.Second + delta,
		},
		{
			// As in Kubernetes: the earliest time considered is now itself,
			// and a schedule time is always after it.
			name: "startingDeadlineSeconds 0 never starts a run",
			cj:   cronJob(every5, created, withDeadline(0)), now: t0005,
			skipped: SkipDeadlinePassed, requeue: 5*time.Minute + delta,
		},
		{
			name: "startingDeadlineSeconds with nothing missed is just not due",
			cj:   cronJob(every5, created, withLastSchedule(t0005), withDeadline(60)), now: at("2026-01-05T00:07:00Z"),
			skipped: SkipNotDue, lastSchedule: &t0005, requeue: 3*time.Minute + delta,
		},
		{
			name: "a huge startingDeadlineSeconds is no deadline",
			cj:   cronJob(every5, created, withDeadline(1<<62)), now: t0010,
			due: &t0010, create: JobName("nightly", t0010),
			active: []string{JobName("nightly", t0010)}, lastSchedule: &t0010, requeue: 5*time.Minute + delta,
		},
		{
			name: "exactly 100 missed runs: no warning",
			cj:   cronJob("* * * * *", t0000), now: at("2026-01-05T01:40:30Z"),
			due: timePtr(at("2026-01-05T01:40:00Z")), create: JobName("nightly", at("2026-01-05T01:40:00Z")),
			active: []string{JobName("nightly", at("2026-01-05T01:40:00Z"))}, lastSchedule: timePtr(at("2026-01-05T01:40:00Z")),
			requeue: 30*time.Second + delta,
		},
		{
			name: "more than 100 missed runs: the latest starts, with a warning",
			cj:   cronJob("* * * * *", t0000), now: at("2026-01-05T01:41:30Z"),
			due: timePtr(at("2026-01-05T01:41:00Z")), create: JobName("nightly", at("2026-01-05T01:41:00Z")),
			active: []string{JobName("nightly", at("2026-01-05T01:41:00Z"))}, lastSchedule: timePtr(at("2026-01-05T01:41:00Z")),
			requeue:  30*time.Second + delta,
			warnings: []string{"more than 100 start times were missed since 2026-01-05T00:00:00Z"},
		},
		{
			name: "years of missed weekday runs: the last one, a Friday, starts",
			cj:   cronJob("0 9 * * 1-5", at("2020-01-01T00:00:00Z")), now: at("2026-01-05T08:00:00Z"),
			due: timePtr(at("2026-01-02T09:00:00Z")), create: JobName("nightly", at("2026-01-02T09:00:00Z")),
			active: []string{JobName("nightly", at("2026-01-02T09:00:00Z"))}, lastSchedule: timePtr(at("2026-01-02T09:00:00Z")),
			requeue:  time.Hour + delta,
			warnings: []string{"more than 100 start times were missed"},
		},
		{
			name: "a deadline keeps the missed count down",
			cj:   cronJob("* * * * *", t0000, withDeadline(300)), now: at("2026-01-05T03:00:30Z"),
			due: timePtr(at("2026-01-05T03:00:00Z")), create: JobName("nightly", at("2026-01-05T03:00:00Z")),
			active: []string{JobName("nightly", at("2026-01-05T03:00:00Z"))}, lastSchedule: timePtr(at("2026-01-05T03:00:00Z")),
			requeue: 30*time.Second + delta,
		},
		{
			name: "descriptor schedule",
			cj:   cronJob("@hourly", created), now: at("2026-01-05T01:00:00.5Z"),
			due: timePtr(at("2026-01-05T01:00:00Z")), create: JobName("nightly", at("2026-01-05T01:00:00Z")),
			active: []string{JobName("nightly", at("2026-01-05T01:00:00Z"))}, lastSchedule: timePtr(at("2026-01-05T01:00:00Z")),
			requeue: time.Hour - 500*time.Millisecond + delta,
		},
		{
			name: "@every counts from the creation time",
			cj:   cronJob("@every 90m", created), now: at("2026-01-05T01:31:00Z"),
			due: timePtr(at("2026-01-05T01:30:30Z")), create: JobName("nightly", at("2026-01-05T01:30:30Z")),
			active: []string{JobName("nightly", at("2026-01-05T01:30:30Z"))}, lastSchedule: timePtr(at("2026-01-05T01:30:30Z")),
			requeue: 89*time.Minute + 30*time.Second + delta,
		},
	})
}

func TestDecideSuspendAndInvalidSpecs(t *testing.T) {
	finished := job(t0005, vcjob.Completed)
	runDecideCases(t, []decideCase{
		{
			name: "suspended: nothing starts, but the status and history are kept up",
			cj:   cronJob(every5, created, withSuspend(), withLastSchedule(t0005), withActive(finished), withLimits(0, 0)),
			jobs: []JobState{finished}, now: at("2026-01-05T00:12:00Z"),
			skipped: SkipSuspended, delete: []string{finished.Name}, lastSchedule: &t0005,
		},
		{
			name: "unparseable schedule",
			cj:   cronJob("every five minutes", created), now: t0010,
			skipped: SkipInvalidSpec, warnings: []string{`spec.schedule: Invalid value: "every five minutes"`},
		},
		{
			name: "unknown time zone",
			cj:   cronJob(every5, created, withZone("Europe/Atlantis")), now: t0010,
			skipped: SkipInvalidSpec, warnings: []string{`spec.timeZone: Invalid value: "Europe/Atlantis": cannot load time zone "Europe/Atlantis": unknown time zone`},
		},
		{
			name: "unknown time zone in the schedule",
			cj:   cronJob("TZ=Europe/Atlantis "+every5, created), now: t0010,
			skipped: SkipInvalidSpec, warnings: []string{`spec.schedule: Invalid value: "TZ=Europe/Atlantis */5 * * * *": cannot load time zone "Europe/Atlantis"`},
		},
		{
			name: "schedule that never fires",
			cj:   cronJob("0 0 30 2 *", created), now: t0010,
			skipped: SkipInvalidSpec, warnings: []string{"never fires"},
		},
		{
			name: "negative startingDeadlineSeconds",
			cj:   cronJob(every5, created, withDeadline(-10)), now: t0010,
			skipped: SkipInvalidSpec, warnings: []string{"spec.startingDeadlineSeconds: Invalid value: -10"},
		},
		{
			name: "invalid spec: the status is still kept up",
			cj:   cronJob("nope", created, withActive(finished)), jobs: []JobState{finished}, now: t0010,
			skipped: SkipInvalidSpec, warnings: []string{"spec.schedule"},
		},
		{
			name: "cronjob being deleted",
			cj: cronJob(every5, created, func(cj *vcjob.CronJob) {
				cj.DeletionTimestamp = &metav1.Time{Time: t0005}
			}), now: t0010,
			skipped: SkipDeleting,
		},
	})
}

func TestDecideConcurrency(t *testing.T) {
	running05 := job(t0005, vcjob.Running)
	running00 := job(t0000, vcjob.Pending)
	new10 := JobName("nightly", t0010)
	runDecideCases(t, []decideCase{
		{
			name: "Allow starts beside the active jobs",
			cj:   cronJob(every5, created, withLastSchedule(t0005), withActive(running05)),
			jobs: []JobState{running05}, now: t0010,
			due: &t0010, create: new10, active: []string{running05.Name, new10}, lastSchedule: &t0010,
			requeue: 5*time.Minute + delta,
		},
		{
			name: "Forbid starts nothing while a job is active",
			cj:   cronJob(every5, created, withPolicy(vcjob.ForbidConcurrent), withLastSchedule(t0005), withActive(running05)),
			jobs: []JobState{running05}, now: t0010,
			due: &t0010, skipped: SkipForbidConcurrent, active: []string{running05.Name}, lastSchedule: &t0005,
			requeue: 5*time.Minute + delta,
		},
		{
			name: "Forbid starts once the active job finished",
			cj:   cronJob(every5, created, withPolicy(vcjob.ForbidConcurrent), withLastSchedule(t0005), withActive(running05)),
			jobs: []JobState{job(t0005, vcjob.Failed)}, now: t0010,
			due: &t0010, create: new10, active: []string{new10}, lastSchedule: &t0010,
			requeue: 5*time.Minute + delta,
		},
		{
			name: "Forbid starts a held-back run late when the blocker finishes before the next",
			cj:   cronJob(every5, created, withPolicy(vcjob.ForbidConcurrent), withLastSchedule(t0005), withActive(running05)),
			jobs: []JobState{job(t0005, vcjob.Completed)}, now: at("2026-01-05T00:13:00Z"),
			due: &t0010, create: new10, active: []string{new10}, lastSchedule: &t0010,
			requeue: 2*time.Minute + delta,
		},
		{
			name: "Replace deletes every active job and starts",
			cj: cronJob(every5, created, withPolicy(vcjob.ReplaceConcurrent), withLastSchedule(t0005),
				withActive(running00, running05)),
			jobs: []JobState{running00, running05}, now: t0010,
			due: &t0010, create: new10, delete: []string{running00.Name, running05.Name},
			active: []string{new10}, lastSchedule: &t0010, requeue: 5*time.Minute + delta,
		},
		{
			name: "Replace with nothing active just starts",
			cj:   cronJob(every5, created, withPolicy(vcjob.ReplaceConcurrent), withLastSchedule(t0005)),
			jobs: []JobState{job(t0005, vcjob.Aborted)}, now: t0010,
			due: &t0010, create: new10, active: []string{new10}, lastSchedule: &t0010, requeue: 5*time.Minute + delta,
		},
		{
			name: "Replace keeps finished jobs to the history limits",
			cj: cronJob(every5, created, withPolicy(vcjob.ReplaceConcurrent), withLastSchedule(t0005),
				withActive(running05), withLimits(0, 3)),
			jobs: []JobState{job(t0000, vcjob.Completed), running05}, now: t0010,
			due: &t0010, create: new10, delete: []string{JobName("nightly", t0000), running05.Name},
			active: []string{new10}, lastSchedule: &t0010, requeue: 5*time.Minute + delta,
		},
	})
}

func TestDecideExistingJob(t *testing.T) {
	running05 := job(t0005, vcjob.Running)
	runDecideCases(t, []decideCase{
		{
			name: "the due run's job exists but is not listed (lost status write): adopted, not created",
			cj:   cronJob(every5, created, withLastSchedule(t0005)),
			jobs: []JobState{job(t0010, vcjob.Running)}, now: at("2026-01-05T00:10:05Z"),
			due: &t0010, skipped: SkipAlreadyExists, active: []string{JobName("nightly", t0010)}, lastSchedule: &t0010,
			requeue: 4*time.Minute + 55*time.Second + delta,
		},
		{
			name: "the due run's job exists and finished: not created again, not listed",
			cj:   cronJob(every5, created, withLastSchedule(t0005)),
			jobs: []JobState{job(t0010, vcjob.Completed)}, now: at("2026-01-05T00:11:00Z"),
			due: &t0010, skipped: SkipAlreadyExists, lastSchedule: &t0010, requeue: 4*time.Minute + delta,
		},
		{
			name: "a job annotated with the due time, under another name",
			cj:   cronJob(every5, created, withLastSchedule(t0005)),
			jobs: []JobState{{Name: "manual", UID: "m", Phase: vcjob.Running, ScheduledTime: t0010}}, now: t0010,
			due: &t0010, skipped: SkipAlreadyExists, active: []string{"manual"}, lastSchedule: &t0010,
			requeue: 5*time.Minute + delta,
		},
		{
			name: "already listed and existing: nothing changes",
			cj:   cronJob(every5, created, withLastSchedule(t0005), withActive(job(t0010, vcjob.Running))),
			jobs: []JobState{job(t0010, vcjob.Running)}, now: t0010,
			due: &t0010, skipped: SkipAlreadyExists, active: []string{JobName("nightly", t0010)}, lastSchedule: &t0010,
			requeue: 5*time.Minute + delta,
		},
		{
			name: "Replace does not delete anything for a run whose job exists",
			cj: cronJob(every5, created, withPolicy(vcjob.ReplaceConcurrent), withLastSchedule(t0005),
				withActive(running05)),
			jobs: []JobState{running05, job(t0010, vcjob.Pending)}, now: t0010,
			due: &t0010, skipped: SkipAlreadyExists, active: []string{running05.Name, JobName("nightly", t0010)},
			lastSchedule: &t0010, requeue: 5*time.Minute + delta,
		},
		{
			// The only evidence of the 00:05 run is about to be deleted:
			// lastScheduleTime records it, or resuming would start it again.
			name: "deleting the job of a run the status lost records the run",
			cj:   cronJob(every5, created, withSuspend(), withLimits(0, 0)),
			jobs: []JobState{job(t0005, vcjob.Completed)}, now: at("2026-01-05T00:06:00Z"),
			skipped: SkipSuspended, delete: []string{JobName("nightly", t0005)}, lastSchedule: &t0005,
		},
		{
			name: "deleting an older run's job leaves lastScheduleTime alone",
			cj:   cronJob(every5, created, withLimits(0, 0), withLastSchedule(t0005)),
			jobs: []JobState{job(t0000, vcjob.Failed)}, now: at("2026-01-05T00:06:00Z"),
			skipped: SkipNotDue, delete: []string{JobName("nightly", t0000)}, lastSchedule: &t0005,
			requeue: 4*time.Minute + delta,
		},
		{
			name: "Forbid adopts the due run's job rather than skipping",
			cj:   cronJob(every5, created, withPolicy(vcjob.ForbidConcurrent), withLastSchedule(t0005), withActive(running05)),
			jobs: []JobState{running05, job(t0010, vcjob.Running)}, now: t0010,
			due: &t0010, skipped: SkipAlreadyExists, active: []string{running05.Name, JobName("nightly", t0010)},
			lastSchedule: &t0010, requeue: 5*time.Minute + delta,
		},
	})
}

func TestDecideActiveList(t *testing.T) {
	running05 := job(t0005, vcjob.Running)
	new10 := JobName("nightly", t0010)
	runDecideCases(t, []decideCase{
		{
			name: "every finished phase leaves the active list",
			cj: cronJob(every5, created, withLastSchedule(t0005), withLimits(9, 9), withActive(
				job(at("2026-01-05T00:01:00Z"), vcjob.Completed), job(at("2026-01-05T00:02:00Z"), vcjob.Failed),
				job(at("2026-01-05T00:03:00Z"), vcjob.Terminated), job(at("2026-01-05T00:04:00Z"), vcjob.Aborted),
				running05)),
			jobs: []JobState{
				job(at("2026-01-05T00:01:00Z"), vcjob.Completed), job(at("2026-01-05T00:02:00Z"), vcjob.Failed),
				job(at("2026-01-05T00:03:00Z"), vcjob.Terminated), job(at("2026-01-05T00:04:00Z"), vcjob.Aborted),
				running05,
			},
			now: at("2026-01-05T00:07:00Z"), skipped: SkipNotDue,
			active: []string{running05.Name}, lastSchedule: &t0005, requeue: 3*time.Minute + delta,
		},
		{
			name: "phases that are not finished stay, an empty phase too",
			cj: cronJob(every5, created, withLastSchedule(t0005), withActive(
				job(at("2026-01-05T00:01:00Z"), ""), job(at("2026-01-05T00:02:00Z"), vcjob.Restarting),
				job(at("2026-01-05T00:03:00Z"), vcjob.Completing), job(at("2026-01-05T00:04:00Z"), vcjob.Aborting))),
			jobs: []JobState{
				job(at("2026-01-05T00:01:00Z"), ""), job(at("2026-01-05T00:02:00Z"), vcjob.Restarting),
				job(at("2026-01-05T00:03:00Z"), vcjob.Completing), job(at("2026-01-05T00:04:00Z"), vcjob.Aborting),
			},
			now: at("2026-01-05T00:07:00Z"), skipped: SkipNotDue,
			active: []string{
				JobName("nightly", at("2026-01-05T00:01:00Z")), JobName("nightly", at("2026-01-05T00:02:00Z")),
				JobName("nightly", at("2026-01-05T00:03:00Z")), JobName("nightly", at("2026-01-05T00:04:00Z")),
			},
			lastSchedule: &t0005, requeue: 3*time.Minute + delta,
		},
		{
			name: "a listed job that no longer exists leaves the list, and Forbid starts",
			cj:   cronJob(every5, created, withPolicy(vcjob.ForbidConcurrent), withLastSchedule(t0005), withActive(running05)),
			now:  t0010,
			due:  &t0010, create: new10, active: []string{new10}, lastSchedule: &t0010, requeue: 5*time.Minute + delta,
		},
		{
			name: "a listed job recreated under its name (another UID) leaves the list",
			cj:   cronJob(every5, created, withLastSchedule(t0005), withActive(running05)),
			jobs: []JobState{{Name: running05.Name, UID: "someone-elses", Phase: vcjob.Running}}, now: at("2026-01-05T00:06:00Z"),
			skipped: SkipNotDue, lastSchedule: &t0005, requeue: 4*time.Minute + delta,
			warnings: []string{"job " + running05.Name + " is not finished but not in status.active"},
		},
		{
			name: "a running job the controller did not start is reported, not adopted",
			cj:   cronJob(every5, created, withLastSchedule(t0005)),
			jobs: []JobState{{Name: "stray", UID: "s", Phase: vcjob.Running}}, now: t0010,
			due: &t0010, create: new10, active: []string{new10}, lastSchedule: &t0010, requeue: 5*time.Minute + delta,
			warnings: []string{"job stray is not finished but not in status.active"},
		},
		{
			name: "jobs in another namespace are ignored",
			cj:   cronJob(every5, created, withLastSchedule(t0005)),
			jobs: []JobState{{Name: new10, Namespace: "other", UID: "o", Phase: vcjob.Running}}, now: t0010,
			due: &t0010, create: new10, active: []string{new10}, lastSchedule: &t0010, requeue: 5*time.Minute + delta,
			warnings: []string{`job other/` + new10 + ` is not in the cronjob's namespace "ml": ignored`},
		},
	})
}

func TestDecideNilCronJob(t *testing.T) {
	d := Decide(nil, nil, t0000)
	assert.Equal(t, SkipInvalidSpec, d.Skipped)
	assert.Nil(t, d.Create)
	assert.Equal(t, []string{"no cronjob was given"}, d.Warnings)
}

func TestDecideFillsInTheUIDOfAReference(t *testing.T) {
	running := job(t0005, vcjob.Running)
	cj := cronJob(every5, created, withLastSchedule(t0005))
	cj.Status.Active = append(cj.Status.Active, ref(JobState{Name: running.Name}))
	d := Decide(cj, []JobState{running}, at("2026-01-05T00:06:00Z"))
	require.Len(t, d.Status.Active, 1)
	assert.Equal(t, running.UID, d.Status.Active[0].UID)
}

func TestDecideLastSuccessfulTime(t *testing.T) {
	done := func(scheduled, finished time.Time, phase vcjob.JobPhase) JobState {
		return finishedAt(job(scheduled, phase), finished)
	}
	before := metav1.NewTime(at("2026-01-05T00:03:00Z"))
	for _, tc := range []struct {
		name    string
		current *metav1.Time
		jobs    []JobState
		want    *time.Time
	}{
		{"no job finished", nil, []JobState{job(t0005, vcjob.Running)}, nil},
		{"a Completed job sets it", nil, []JobState{done(t0000, at("2026-01-05T00:02:00Z"), vcjob.Completed)},
			timePtr(at("2026-01-05T00:02:00Z"))},
		{"the latest Completed job wins", nil, []JobState{
			done(t0005, at("2026-01-05T00:08:00Z"), vcjob.Completed),
			done(t0000, at("2026-01-05T00:09:00Z"), vcjob.Completed),
			done(t0010, at("2026-01-05T00:11:00Z"), vcjob.Failed),
		}, timePtr(at("2026-01-05T00:09:00Z"))},
		{"an older Completed job does not move it back", &before,
			[]JobState{done(t0000, at("2026-01-05T00:02:00Z"), vcjob.Completed)}, timePtr(before.Time)},
		{"Failed, Terminated and Aborted jobs do not count", nil, []JobState{
			done(t0000, at("2026-01-05T00:02:00Z"), vcjob.Failed),
			done(t0005, at("2026-01-05T00:06:00Z"), vcjob.Terminated),
			done(t0010, at("2026-01-05T00:11:00Z"), vcjob.Aborted),
		}, nil},
		{"a Completed job without a finish time does not count", nil, []JobState{job(t0000, vcjob.Completed)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cj := cronJob(every5, created, withLastSchedule(t0010), withLimits(9, 9))
			cj.Status.LastSuccessfulTime = tc.current
			d := Decide(cj, tc.jobs, at("2026-01-05T00:12:00Z"))
			if tc.want == nil {
				assert.Nil(t, d.Status.LastSuccessfulTime)
			} else if assert.NotNil(t, d.Status.LastSuccessfulTime) {
				assert.True(t, tc.want.Equal(d.Status.LastSuccessfulTime.Time), "got %s, want %s", d.Status.LastSuccessfulTime, tc.want)
			}
		})
	}
}

func TestDecideRendersTheJob(t *testing.T) {
	cj := cronJob("TZ=Asia/Tokyo 0 9 * * *", created, withZone("America/New_York"))
	d := Decide(cj, nil, at("2026-01-06T00:00:10Z"))
	require.NotNil(t, d.Create)
	require.NotNil(t, d.Due)
	// 09:00 in Tokyo (the schedule's own zone wins over timeZone) is 00:00 UTC.
	assert.True(t, at("2026-01-06T00:00:00Z").Equal(*d.Due))
	assert.Equal(t, "Asia/Tokyo", d.Due.Location().String())
	assert.Equal(t, "2026-01-06T09:00:00+09:00", d.Create.Annotations[vcjob.CronJobScheduledTimeKey])
	assert.Equal(t, "nightly-29460960", d.Create.Name)
	assert.Equal(t, 24*time.Hour-10*time.Second+delta, d.RequeueAfter)
}
