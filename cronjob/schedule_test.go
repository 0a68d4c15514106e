package cronjob

import (
	"errors"
	"testing"
	"time"

	"github.com/robfig/cron/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/record"
)

func TestUnmetTimes(t *testing.T) {
	for _, tc := range []struct {
		name         string
		schedule     string
		cj           *vcjob.CronJob
		now          time.Time
		withDeadline bool

		earliest time.Time
		latest   *time.Time
		missed   missed
		err      string
	}{
		{
			name: "none yet", schedule: every5, cj: cronJob(every5), now: t0005.Add(-time.Second),
			earliest: created,
		},
		{
			name: "the first time", schedule: every5, cj: cronJob(every5), now: t0005,
			earliest: created, latest: &t0005,
		},
		{
			name: "a few missed: the latest", schedule: every5, cj: cronJob(every5, withLastSchedule(t0005)), now: at("2026-01-05T00:31:00Z"),
			earliest: t0005, latest: timePtr(at("2026-01-05T00:30:00Z")), missed: fewMissed,
		},
		{
			name: "more than 100 missed", schedule: "* * * * *", cj: cronJob("* * * * *", withLastSchedule(t0000)), now: at("2026-01-05T01:41:00Z"),
			earliest: t0000, latest: timePtr(at("2026-01-05T01:41:00Z")), missed: manyMissed,
		},
		{
			name: "exactly 100 estimated is few", schedule: "* * * * *", cj: cronJob("* * * * *", withLastSchedule(t0000)), now: at("2026-01-05T01:40:59Z"),
			earliest: t0000, latest: timePtr(at("2026-01-05T01:40:00Z")), missed: fewMissed,
		},
		{
			name: "@every far behind lands on the grid of its first time after the last run", schedule: "@every 7m",
			cj:       cronJob("@every 7m", withLastSchedule(at("2026-01-05T00:00:20Z"))),
			now:      at("2026-01-05T00:00:20Z").Add(1003 * time.Minute),
			earliest: at("2026-01-05T00:00:20Z"), latest: timePtr(at("2026-01-05T00:00:20Z").Add(143 * 7 * time.Minute)), missed: manyMissed,
		},
		{
			name: "the starting deadline moves the earliest time up", schedule: every5,
			cj: cronJob(every5, withLastSchedule(t0005), withDeadline(120)), now: at("2026-01-05T00:31:00Z"), withDeadline: true,
			earliest: at("2026-01-05T00:29:00Z"), latest: timePtr(at("2026-01-05T00:30:00Z")),
		},
		{
			name: "the starting deadline is ignored for the requeue", schedule: every5,
			cj: cronJob(every5, withLastSchedule(t0005), withDeadline(120)), now: at("2026-01-05T00:31:00Z"),
			earliest: t0005, latest: timePtr(at("2026-01-05T00:30:00Z")), missed: fewMissed,
		},
		{
			name: "a negative deadline puts the earliest time after now", schedule: every5,
			cj: cronJob(every5, withLastSchedule(t0005), withDeadline(-60)), now: t0015, withDeadline: true,
			earliest: t0015.Add(time.Minute),
		},
		{
			name: "a weekday schedule over a weekend: Volcano's estimate jumps past Friday's run and finds none", schedule: "0 9 * * 1-5",
			cj:       cronJob("0 9 * * 1-5", withLastSchedule(at("2026-01-05T09:00:00Z"))),
			now:      at("2026-01-12T08:00:00Z"),
			earliest: at("2026-01-05T09:00:00Z"), missed: fewMissed,
		},
		{
			name: "31 February never comes", schedule: "0 0 31 2 *", cj: cronJob("0 0 31 2 *"), now: t0005,
			earliest: created, err: "less than 1 second",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sched, err := cron.ParseStandard("TZ=UTC " + tc.schedule)
			require.NoError(t, err)
			u, err := unmetTimes(tc.cj, sched, tc.now, tc.withDeadline)
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
			} else {
				assert.NoError(t, err)
			}
			assert.True(t, tc.earliest.Equal(u.earliest), "earliest %s, want %s", u.earliest, tc.earliest)
			if tc.latest == nil {
				assert.Nil(t, u.latest, "latest")
			} else if assert.NotNil(t, u.latest, "latest") {
				assert.True(t, tc.latest.Equal(*u.latest), "latest %s, want %s", u.latest, tc.latest)
			}
			assert.Equal(t, tc.missed, u.missed, "missed")
		})
	}
}

func TestRequeueAfter(t *testing.T) {
	for _, tc := range []struct {
		name     string
		schedule string
		cj       *vcjob.CronJob
		now      time.Time
		want     time.Duration
	}{
		{"from the creation when nothing was missed", every5, cronJob(every5), t0005.Add(-time.Minute), time.Minute + delta},
		{"from the latest time when runs were missed", every5, cronJob(every5, withLastSchedule(t0005)), at("2026-01-05T00:31:00Z"), 4*time.Minute + delta},
		{"from now when runs were missed but the estimate found none", "0 9 * * 1-5",
			cronJob("0 9 * * 1-5", withLastSchedule(at("2026-01-05T09:00:00Z"))), at("2026-01-12T08:00:00Z"), time.Hour + delta},
		{"from now when the schedule misbehaves: 31 February has no next time", "0 0 31 2 *", cronJob("0 0 31 2 *"), t0005,
			time.Time{}.Add(delta).Sub(t0005)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sched, err := cron.ParseStandard("TZ=UTC " + tc.schedule)
			require.NoError(t, err)
			got := requeueAfter(tc.cj, sched, tc.now)
			require.NotNil(t, got)
			assert.Equal(t, tc.want, *got)
		})
	}
}

func TestParseStandard(t *testing.T) {
	kolkata, err := time.LoadLocation("Asia/Kolkata")
	require.NoError(t, err)
	for _, tc := range []struct {
		spec     string
		location *time.Location // nil: not a SpecSchedule
		err      string
		panics   bool
	}{
		{spec: "0 2 * * *", location: kolkata},
		{spec: "@daily", location: kolkata},
		{spec: "TZ=Local 0 2 * * *", location: kolkata},
		{spec: "TZ=UTC 0 2 * * *", location: time.UTC},
		{spec: "TZ= 0 2 * * *", location: time.UTC},
		{spec: "CRON_TZ=Asia/Kolkata 0 2 * * *", location: kolkata},
		{spec: "@every 90m"},
		{spec: "TZ=Nowhere/Land 0 2 * * *", err: "provided bad location"},
		{spec: "61 * * * *", err: "end of range (61) above maximum (59)"},
		{spec: "", err: "empty spec string"},
		{spec: "TZ=UTC", err: "slice bounds out of range [:-1]", panics: true},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			sched, err := parseStandard(tc.spec, kolkata)
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				assert.Equal(t, tc.panics, errors.Is(err, ErrPanic))
				return
			}
			require.NoError(t, err)
			spec, ok := sched.(*cron.SpecSchedule)
			if tc.location == nil {
				assert.False(t, ok, "an @every schedule has no zone")
				return
			}
			require.True(t, ok)
			assert.Equal(t, tc.location.String(), spec.Location.String())
		})
	}
}

func TestLoadZone(t *testing.T) {
	kolkata, err := time.LoadLocation("Asia/Kolkata")
	require.NoError(t, err)
	got, err := loadZone("Local", kolkata)
	require.NoError(t, err)
	assert.Equal(t, kolkata, got, "Local is the controller's zone, never the machine's")
	got, err = loadZone("", kolkata)
	require.NoError(t, err)
	assert.Equal(t, time.UTC, got)
	_, err = loadZone("utc", kolkata)
	assert.ErrorContains(t, err, "unknown time zone utc")
}

// RefuseMachineZones refuses timeZone "" and "Local" as unknown zones are
// refused; Volcano takes them.
func TestRefuseMachineZones(t *testing.T) {
	for _, zone := range []string{"", "Local"} {
		t.Run(zone, func(t *testing.T) {
			cj := cronJob(every5, withZone(zone))
			d := Decide(cj, nil, t0005)
			assert.NoError(t, d.Err)
			assert.NotNil(t, d.JobToCreate())

			d = DecideWith(cj, nil, t0005, Options{RefuseMachineZones: true})
			assert.ErrorContains(t, d.Err, "spec.timeZone")
			assert.Nil(t, d.JobToCreate())
			if assert.Len(t, d.Events, 1) {
				assert.Equal(t, record.Warning, d.Events[0].Type)
				assert.Equal(t, "InvalidTimeZone", d.Events[0].Reason)
				assert.True(t, contains(d.Events[0].Message, `Invalid time zone "`+zone+`"`, "controller's own zone"), d.Events[0].Message)
			}
		})
	}
	d := DecideWith(cronJob(every5), nil, t0005, Options{RefuseMachineZones: true})
	assert.NoError(t, d.Err, "an unset timeZone is not refused")
}

// lastUpTo finds what walking the schedule from a known time finds. Not in
// Australia/Lord_Howe, whose clocks move by half an hour: there robfig/cron's
// walk depends on where it starts (from 00:00 on the day the clocks go back
// it skips the next day's 00:00, from noon it does not), so no search can
// match every walk; maxWalk's doc says so.
func TestPropertyLastUpToIsTheWalk(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		zone := rapid.SampledFrom([]string{"UTC", "America/New_York", "Europe/London"}).Draw(t, "zone")
		sched, err := cron.ParseStandard("TZ=" + zone + " " + drawSchedule(t))
		if err != nil {
			t.Fatal(err)
		}
		known := sched.Next(drawStart(t))
		now := known.Add(time.Duration(rapid.Int64Range(0, 40*24*3600).Draw(t, "after")) * time.Second)
		walked := known
		for next := sched.Next(walked); !next.IsZero() && !next.After(now); next = sched.Next(walked) {
			walked = next
		}
		if got := lastUpTo(sched, known, now); !got.Equal(walked) {
			t.Fatalf("lastUpTo %s, the walk %s", got, walked)
		}
	})
}

// A cronjob without a creation time: Volcano's estimate lands centuries
// back (the time since year 1 does not fit a time.Duration) and its walk
// takes minutes; Decide finds the same run at once.
func TestDecideWithoutCreationTime(t *testing.T) {
	cj := cronJob(every5, func(cj *vcjob.CronJob) { cj.CreationTimestamp = metav1.Time{} })
	start := time.Now()
	d := Decide(cj, nil, t0005.Add(time.Minute))
	assert.Less(t, time.Since(start), 10*time.Second)
	require.NotNil(t, d.Due)
	assert.True(t, d.Due.Equal(t0005), "due %s", d.Due)
}
