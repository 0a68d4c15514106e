package cronjob

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/record"
)

// syncCase pins every part of a decision.
type syncCase struct {
	name string
	cj   *vcjob.CronJob
	jobs []*vcjob.Job
	now  time.Time
	opts Options
	// answers, by call index, replace what the lister predicts.
	answers map[int]Answer

	calls          []string // "<verb> <resource> <namespace>/<name>"
	events         []record.Event
	active         []string // status.active as the sync leaves it, by name
	lastSchedule   *time.Time
	lastSuccessful *time.Time
	write          bool
	requeue        *time.Duration
	err            string // a part of the error, "" for none
	panics         bool
	due            *time.Time
	skipped        SkipReason
}

func runSyncCases(t *testing.T, cases []syncCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.cj.DeepCopy()
			var jobsBefore []*vcjob.Job
			for _, j := range tc.jobs {
				jobsBefore = append(jobsBefore, j.DeepCopy())
			}
			d := DecideWith(tc.cj, tc.jobs, tc.now, tc.opts)
			for i := range len(d.Calls) {
				if a, ok := tc.answers[i]; ok {
					d = d.Answer(i, a)
				}
			}
			assert.Equal(t, before, tc.cj, "the cronjob must not change")
			assert.Equal(t, jobsBefore, tc.jobs, "the jobs must not change")

			if tc.calls == nil {
				tc.calls = []string{}
			}
			assert.Equal(t, tc.calls, callStrings(d.Calls), "calls")
			assert.Equal(t, tc.events, d.Events, "events")
			if tc.active == nil {
				tc.active = []string{}
			}
			assert.Equal(t, tc.active, names(d.Status.Active), "status.active")
			assertTime(t, "status.lastScheduleTime", tc.lastSchedule, d.Status.LastScheduleTime)
			assertTime(t, "status.lastSuccessfulTime", tc.lastSuccessful, d.Status.LastSuccessfulTime)
			assert.Equal(t, tc.write, d.WriteStatus, "status written")
			if tc.requeue == nil {
				assert.Nil(t, d.RequeueAfter, "requeue")
			} else if assert.NotNil(t, d.RequeueAfter, "requeue") {
				assert.Equal(t, *tc.requeue, *d.RequeueAfter, "requeue")
			}
			switch {
			case tc.err == "" && !tc.panics:
				assert.NoError(t, d.Err)
			case assert.Error(t, d.Err):
				assert.ErrorContains(t, d.Err, tc.err)
				assert.Equal(t, tc.panics, errors.Is(d.Err, ErrPanic), "a panic: %v", d.Err)
			}
			if tc.due == nil {
				assert.Nil(t, d.Due, "due")
			} else if assert.NotNil(t, d.Due, "due") {
				assert.True(t, tc.due.Equal(*d.Due), "due %s, want %s", d.Due, tc.due)
			}
			assert.Equal(t, tc.skipped, d.Skipped, "skipped")
		})
	}
}

// assertTime compares status times as written: a pointer to the zero time
// is written as null.
func assertTime(t *testing.T, what string, want *time.Time, got *metav1.Time) {
	t.Helper()
	unset := got == nil || got.IsZero()
	if want == nil {
		assert.True(t, unset, "%s: got %v, want none", what, got)
		return
	}
	if assert.False(t, unset, "%s: got none, want %s", what, want) {
		assert.True(t, want.Equal(got.Time), "%s: got %v, want %s", what, got, want)
	}
}

func TestDecideSchedule(t *testing.T) {
	n0005, n0015 := JobName("nightly", t0005), JobName("nightly", t0015)
	tokyo9 := at("2026-01-06T09:00:00+09:00")
	runSyncCases(t, []syncCase{
		{
			name: "the first run after the creation starts",
			cj:   cronJob(every5), now: t0005,
			calls:  []string{"create jobs ml/" + n0005, "update cronjobs/status ml/nightly"},
			events: []record.Event{successfulCreate(n0005, "ml/nightly")},
			active: []string{n0005}, lastSchedule: &t0005, write: true,
			requeue: requeue(5*time.Minute + delta), due: &t0005,
		},
		{
			name: "nothing due yet: requeue at the next time, nothing written",
			cj:   cronJob(every5), now: t0005.Add(-time.Second),
			requeue: requeue(time.Second + delta), skipped: SkipNotDue,
		},
		{
			name: "created in the future: nothing runs before the creation",
			cj:   cronJob(every5, func(cj *vcjob.CronJob) { cj.CreationTimestamp.Time = t0015 }), now: t0010,
			requeue: requeue(10*time.Minute + delta), skipped: SkipNotDue,
		},
		{
			name: "missed runs: only the latest starts",
			cj:   cronJob(every5, withLastSchedule(t0005)), now: at("2026-01-05T00:17:10Z"),
			calls:  []string{"create jobs ml/" + n0015, "update cronjobs/status ml/nightly"},
			events: []record.Event{successfulCreate(n0015, "ml/nightly")},
			active: []string{n0015}, lastSchedule: &t0015, write: true,
			requeue: requeue(2*time.Minute + 50*time.Second + delta), due: &t0015,
		},
		{
			name: "startingDeadlineSeconds cuts every missed run; the requeue ignores it",
			cj:   cronJob(every5, withLastSchedule(t0005), withDeadline(60)), now: at("2026-01-05T00:17:10Z"),
			lastSchedule: &t0005, requeue: requeue(2*time.Minute + 50*time.Second + delta), skipped: SkipNotDue,
		},
		{
			name: "startingDeadlineSeconds keeps a run missed by less",
			cj:   cronJob(every5, withLastSchedule(t0005), withDeadline(180)), now: at("2026-01-05T00:17:10Z"),
			calls:  []string{"create jobs ml/" + n0015, "update cronjobs/status ml/nightly"},
			events: []record.Event{successfulCreate(n0015, "ml/nightly")},
			active: []string{n0015}, lastSchedule: &t0015, write: true,
			requeue: requeue(2*time.Minute + 50*time.Second + delta), due: &t0015,
		},
		{
			name: "a negative startingDeadlineSeconds puts the earliest time in the future: nothing is due",
			cj:   cronJob(every5, withLastSchedule(t0005), withDeadline(-600)), now: at("2026-01-05T00:17:10Z"),
			lastSchedule: &t0005, requeue: requeue(2*time.Minute + 50*time.Second + delta), skipped: SkipNotDue,
		},
		{
			name: "suspended: the jobs are seen to, no schedule is read, no requeue",
			cj:   cronJob("not a schedule", withSuspend(), withActive(ref("gone", "uid-gone"))), now: t0005,
			calls:  []string{"update cronjobs/status ml/nightly"},
			events: []record.Event{staleReferenceGone("gone", "uid-gone")},
			write:  true, skipped: SkipSuspended,
		},
		{
			name: "being deleted: the sync does nothing at all",
			cj:   cronJob(every5, withDeleting(), withActive(ref("gone", "uid-gone"))), now: t0005,
			active: []string{"gone"}, skipped: SkipDeleting,
		},
		{
			name: "the due run's job name is in status.active already: not started again",
			cj:   cronJob(every5, withActive(ref(n0005, "uid-"+n0005)), withPolicy(vcjob.ForbidConcurrent)), now: t0005,
			jobs:    jobs(job(t0005, vcjob.Running)),
			active:  []string{n0005},
			requeue: requeue(5*time.Minute + delta), due: &t0005, skipped: SkipAlreadyScheduled,
		},
		{
			name: "more than 100 missed times: a warning, and the latest still starts",
			cj:   cronJob("* * * * *", withLastSchedule(t0000)), now: at("2026-01-05T02:00:30Z"),
			calls: []string{"create jobs ml/" + JobName("nightly", at("2026-01-05T02:00:00Z")), "update cronjobs/status ml/nightly"},
			events: []record.Event{
				tooManyMissedTimes(),
				successfulCreate(JobName("nightly", at("2026-01-05T02:00:00Z")), "ml/nightly"),
			},
			active: []string{JobName("nightly", at("2026-01-05T02:00:00Z"))}, lastSchedule: timePtr(at("2026-01-05T02:00:00Z")), write: true,
			requeue: requeue(30*time.Second + delta), due: timePtr(at("2026-01-05T02:00:00Z")),
		},
		{
			name: "an unparseable schedule fails the sync without an event",
			cj:   cronJob("61 * * * *"), now: t0005,
			err: "spec.schedule", skipped: SkipFailed,
		},
		{
			name: "a schedule of one time a year that never exists (31 February): InvalidSchedule",
			cj:   cronJob("0 0 31 2 *"), now: t0005,
			events: []record.Event{invalidSchedule(errors.New("time difference between two schedules is less than 1 second"))},
			err:    "less than 1 second", skipped: SkipFailed,
		},
		{
			name: "an unknown time zone: InvalidTimeZone, the sync fails",
			cj:   cronJob(every5, withZone("Mars/Olympus_Mons")), now: t0005,
			events: []record.Event{invalidTimeZone("Mars/Olympus_Mons", errors.New("unknown time zone Mars/Olympus_Mons"))},
			err:    "Mars/Olympus_Mons", skipped: SkipFailed,
		},
		{
			name: "a zone in the schedule: UnsupportedSchedule, and the schedule's zone wins over timeZone",
			cj:   cronJob("CRON_TZ=Asia/Tokyo 0 9 * * *", withZone("America/New_York")), now: at("2026-01-06T00:00:30Z"),
			calls: []string{"create jobs ml/" + JobName("nightly", tokyo9), "update cronjobs/status ml/nightly"},
			events: []record.Event{
				unsupportedSchedule("CRON_TZ=Asia/Tokyo 0 9 * * *"),
				successfulCreate(JobName("nightly", tokyo9), "ml/nightly"),
			},
			active: []string{JobName("nightly", tokyo9)}, lastSchedule: &tokyo9, write: true,
			requeue: requeue(24*time.Hour - 30*time.Second + delta), due: &tokyo9,
		},
		{
			name: "a schedule that is only a zone prefix makes Volcano's parser panic: a failed sync",
			cj:   cronJob("TZ=UTC"), now: t0005,
			events: []record.Event{unsupportedSchedule("TZ=UTC")},
			panics: true, err: "slice bounds out of range [:-1]", skipped: SkipFailed,
		},
		{
			name: "RejectBareZonePrefix: the same schedule fails as unparseable",
			cj:   cronJob("TZ=UTC"), now: t0005, opts: Options{RejectBareZonePrefix: true},
			events: []record.Event{unsupportedSchedule("TZ=UTC")},
			err:    "must be followed by a space", skipped: SkipFailed,
		},
		{
			name: "an invalid time zone is checked before the schedule, even one that names its own",
			cj:   cronJob("TZ=UTC", withZone("utc")), now: t0005,
			events: []record.Event{invalidTimeZone("utc", errors.New("unknown time zone utc"))},
			err:    "utc", skipped: SkipFailed,
		},
	})
}

// Without a timeZone a schedule runs in the controller's zone (UTC by
// default, Options.Local otherwise); the scheduled-timestamp annotation is
// in UTC all the same.
func TestDecideLocalZone(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	require.NoError(t, err)
	cj := cronJob("0 2 * * *", func(cj *vcjob.CronJob) { cj.CreationTimestamp.Time = at("2026-01-04T00:00:00Z") })
	now := at("2026-01-05T08:00:00Z")

	d := Decide(cj, nil, now)
	require.NotNil(t, d.JobToCreate())
	assert.Equal(t, JobName("nightly", at("2026-01-05T02:00:00Z")), d.JobToCreate().Name)

	d = DecideWith(cj, nil, now, Options{Local: ny})
	require.NotNil(t, d.JobToCreate())
	due := at("2026-01-05T02:00:00-05:00")
	assert.Equal(t, JobName("nightly", due), d.JobToCreate().Name)
	assert.Equal(t, "2026-01-05T07:00:00Z", d.JobToCreate().Annotations[vcjob.CronJobScheduledTimeKey])
	assert.Equal(t, ny, d.Due.Location())

	// timeZone "Local" is the controller's zone too, and so is its
	// annotation; timeZone "" is UTC.
	d = DecideWith(cronJob("0 2 * * *", withZone("Local"), func(cj *vcjob.CronJob) { cj.CreationTimestamp.Time = at("2026-01-04T00:00:00Z") }), nil, now, Options{Local: ny})
	require.NotNil(t, d.JobToCreate())
	assert.Equal(t, "2026-01-05T02:00:00-05:00", d.JobToCreate().Annotations[vcjob.CronJobScheduledTimeKey])
	d = DecideWith(cronJob("0 2 * * *", withZone(""), func(cj *vcjob.CronJob) { cj.CreationTimestamp.Time = at("2026-01-04T00:00:00Z") }), nil, now, Options{Local: ny})
	require.NotNil(t, d.JobToCreate())
	assert.Equal(t, "2026-01-05T02:00:00Z", d.JobToCreate().Annotations[vcjob.CronJobScheduledTimeKey])
}

func TestDecideNoCronJob(t *testing.T) {
	d := Decide(nil, nil, t0005)
	assert.Error(t, d.Err)
	assert.Equal(t, SkipFailed, d.Skipped)
	assert.Empty(t, d.Calls)
}
