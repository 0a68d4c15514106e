package cronjob

import (
	"testing"
	"time"

	"github.com/robfig/cron/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vcjob/vcjob"
)

// fixedSchedule fires at the given times only.
type fixedSchedule []time.Time

func (s fixedSchedule) Next(t time.Time) time.Time {
	for _, at := range s {
		if at.After(t) {
			return at
		}
	}
	return time.Time{}
}

func mustParse(t *testing.T, schedule string) cron.Schedule {
	t.Helper()
	s, err := cron.ParseStandard(schedule)
	require.NoError(t, err)
	return s
}

func TestScheduleWindow(t *testing.T) {
	for _, tc := range []struct {
		name      string
		schedule  cron.Schedule
		earliest  time.Time
		now       time.Time
		latest    time.Time // zero for none
		count     int
		wantError string
	}{
		{"nothing due", mustParse(t, "*/5 * * * *"), t0000, at("2026-01-05T00:04:59Z"), time.Time{}, 0, ""},
		{"earliest itself is not due", mustParse(t, "*/5 * * * *"), t0005, t0005, time.Time{}, 0, ""},
		{"due exactly at now", mustParse(t, "*/5 * * * *"), t0000, t0005, t0005, 1, ""},
		{"three missed", mustParse(t, "*/5 * * * *"), t0000, at("2026-01-05T00:17:00Z"), t0015, 3, ""},
		{"the count stops above the maximum", mustParse(t, "* * * * *"), t0000, at("2026-01-06T00:00:00Z"),
			at("2026-01-06T00:00:00Z"), MaxMissedSchedules + 1, ""},
		{"decades of minutes", mustParse(t, "* * * * *"), at("1990-01-01T00:00:00Z"), at("2026-01-05T12:34:56Z"),
			at("2026-01-05T12:34:00Z"), MaxMissedSchedules + 1, ""},
		{"dense runs, then a long gap", mustParse(t, "* 0 1 1 *"), at("2020-01-01T00:00:00Z"), at("2025-12-31T00:00:00Z"),
			at("2025-01-01T00:59:00Z"), MaxMissedSchedules + 1, ""},
		{"never fires", fixedSchedule{}, t0000, t0005, time.Time{}, 0, "no time after 2026-01-05T00:00:00Z"},
		{"two times less than a second apart", fixedSchedule{t0005, t0005.Add(500 * time.Millisecond)}, t0000, t0010,
			time.Time{}, 0, "less than a second apart"},
		{"a last time with none after it", fixedSchedule{t0005}, t0000, t0010, t0005, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := scheduleWindow(tc.schedule, tc.earliest, tc.now)
			if tc.wantError != "" {
				assert.ErrorContains(t, err, tc.wantError)
				return
			}
			require.NoError(t, err)
			assert.True(t, tc.latest.Equal(w.latest), "latest %s, want %s", w.latest, tc.latest)
			assert.Equal(t, tc.count, w.count)
		})
	}
}

// latestUpTo must agree with walking every schedule time.
func TestLatestUpToAgreesWithAWalk(t *testing.T) {
	for _, tc := range []struct {
		schedule string
		span     time.Duration // how far back the known time is
	}{
		{"* * * * *", 5 * 24 * time.Hour},
		{"0 9 * * 1-5", 3 * 365 * 24 * time.Hour},
		{"*/7 3-5 * * *", 400 * 24 * time.Hour},
		{"0 0 29 2 *", 9 * 365 * 24 * time.Hour},
		{"@every 97m", 400 * 24 * time.Hour},
		{"@every 1s", 2 * time.Hour},
		{"TZ=America/New_York 30 2 * * *", 3 * 365 * 24 * time.Hour},
	} {
		s := mustParse(t, tc.schedule)
		for _, now := range []time.Time{at("2020-03-01T00:00:00Z"), at("2024-02-29T00:00:01Z"), at("2026-03-08T07:00:00.5Z")} {
			known := s.Next(now.Add(-tc.span))
			walked := known
			for next := s.Next(walked); !next.After(now); next = s.Next(next) {
				walked = next
			}
			got := latestUpTo(s, known, now)
			assert.True(t, walked.Equal(got), "%s up to %s: %s, want %s", tc.schedule, now, got, walked)
		}
	}
}

func TestEarliestConsidered(t *testing.T) {
	now := at("2026-01-05T01:00:00Z")
	for _, tc := range []struct {
		name     string
		last     *time.Time
		deadline *int64
		want     time.Time
	}{
		{"creation time", nil, nil, created},
		{"last schedule time", &t0010, nil, t0010},
		{"deadline later than the last run", &t0010, new(int64(60)), at("2026-01-05T00:59:00Z")},
		{"deadline earlier than the last run", &t0010, new(int64(3600)), t0010},
		{"deadline later than the creation", nil, new(int64(0)), now},
		{"deadline too large for a duration", nil, new(int64(1 << 62)), created},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, earliestConsidered(tc.last, created, tc.deadline, now))
		})
	}
}

func TestRequeueAfter(t *testing.T) {
	for _, tc := range []struct {
		name     string
		schedule cron.Schedule
		earliest time.Time
		now      time.Time
		want     time.Duration
	}{
		{"next time after now", mustParse(t, "*/5 * * * *"), t0005, at("2026-01-05T00:07:00Z"), 3*time.Minute + delta},
		{"earliest in the future", mustParse(t, "*/5 * * * *"), t0015, t0005, 15*time.Minute + delta},
		{"missed times: after the latest", mustParse(t, "*/5 * * * *"), t0000, at("2026-01-05T00:12:00Z"), 3*time.Minute + delta},
		{"@every counts from the latest time", mustParse(t, "@every 10m"), t0000, at("2026-01-05T00:12:00Z"), 8*time.Minute + delta},
		{"no next time", fixedSchedule{t0005}, t0000, t0010, 0},
		{"a broken schedule aims from now", fixedSchedule{t0010, t0010.Add(time.Millisecond)}, t0000, t0005, 5*time.Minute + delta},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, requeueAfter(tc.schedule, tc.earliest, tc.now))
		})
	}
}

// A 02:30 schedule in New York across the 2026 changes: on 8 March clocks
// jump from 02:00 to 03:00, so there is no 02:30 and no run; on 1 November
// they fall back from 02:00 to 01:00, and 02:30 happens once. A 01:30
// schedule runs twice on 1 November, as two jobs an hour apart.
func TestDecideDaylightSaving(t *testing.T) {
	ny := func(cj *vcjob.CronJob) { cj.Spec.TimeZone = new("America/New_York") }
	nightly := "30 2 * * *"
	mar7 := at("2026-03-07T02:30:00-05:00")
	mar9 := at("2026-03-09T02:30:00-04:00")
	oct31 := at("2026-10-31T02:30:00-04:00")
	nov1 := at("2026-11-01T02:30:00-05:00")
	first130 := at("2026-11-01T01:30:00-04:00")
	second130 := at("2026-11-01T01:30:00-05:00")
	runDecideCases(t, []decideCase{
		{
			name: "spring forward: no 02:30 on 8 March, next run on 9 March",
			cj:   cronJob(nightly, created, ny, withLastSchedule(mar7)), now: at("2026-03-08T03:30:00-04:00"),
			skipped: SkipNotDue, lastSchedule: &mar7,
			requeue: 23*time.Hour + delta, // 03:30 EDT to 02:30 EDT the next day
		},
		{
			name: "spring forward: the 9 March run",
			cj:   cronJob(nightly, created, ny, withLastSchedule(mar7)), now: mar9,
			due: &mar9, create: JobName("nightly", mar9), active: []string{JobName("nightly", mar9)}, lastSchedule: &mar9,
			requeue: 24*time.Hour + delta,
		},
		{
			name: "spring forward: the 7 March run waits 47 hours for the next",
			cj:   cronJob(nightly, created, ny, withLastSchedule(at("2026-03-06T02:30:00-05:00"))), now: mar7,
			due: &mar7, create: JobName("nightly", mar7), active: []string{JobName("nightly", mar7)}, lastSchedule: &mar7,
			requeue: 47*time.Hour + delta,
		},
		{
			name: "fall back: 02:30 runs once, 25 hours after the day before",
			cj:   cronJob(nightly, created, ny, withLastSchedule(oct31)), now: nov1,
			due: &nov1, create: JobName("nightly", nov1), active: []string{JobName("nightly", nov1)}, lastSchedule: &nov1,
			requeue: 24*time.Hour + delta,
		},
		{
			name: "fall back: 01:30 runs a first time (EDT)",
			cj:   cronJob("30 1 * * *", created, ny, withLastSchedule(at("2026-10-31T01:30:00-04:00"))), now: first130,
			due: &first130, create: JobName("nightly", first130), active: []string{JobName("nightly", first130)},
			lastSchedule: &first130, requeue: time.Hour + delta,
		},
		{
			name: "fall back: 01:30 runs a second time (EST), as another job",
			cj:   cronJob("30 1 * * *", created, ny, withLastSchedule(first130)), now: second130,
			due: &second130, create: JobName("nightly", second130), active: []string{JobName("nightly", second130)},
			lastSchedule: &second130, requeue: 24*time.Hour + delta,
		},
	})

	d := Decide(cronJob(nightly, created, ny, withLastSchedule(oct31)), nil, nov1)
	require.NotNil(t, d.Create)
	assert.Equal(t, "2026-11-01T02:30:00-05:00", d.Create.Annotations[vcjob.CronJobScheduledTimeKey])
	assert.NotEqual(t, JobName("nightly", first130), JobName("nightly", second130))
}
