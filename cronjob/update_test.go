package cronjob

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/record"
)

// OnUpdate is Volcano's updateCronJob: a resync does nothing, a schedule
// or zone change queues the key by the new schedule, anything else at once.
func TestOnUpdate(t *testing.T) {
	version := func(rv string) func(*vcjob.CronJob) { return func(cj *vcjob.CronJob) { cj.ResourceVersion = rv } }
	zone := func(z string) func(*vcjob.CronJob) { return func(cj *vcjob.CronJob) { cj.Spec.TimeZone = &z } }
	now := at("2026-01-05T00:07:00Z")
	for _, tc := range []struct {
		name     string
		old, new *vcjob.CronJob
		want     Update
	}{
		{"resync", cronJob(every5, version("1")), cronJob(every5, version("1")), Update{}},
		{"spec change, same schedule", cronJob(every5, version("1")),
			cronJob(every5, version("2"), func(cj *vcjob.CronJob) { cj.Spec.Suspend = new(true) }), Update{Enqueue: true}},
		// Never run: counted from the creation (00:00:30), the new
		// schedule's first time is 00:10.
		{"schedule change", cronJob(every5, version("1")), cronJob("*/10 * * * *", version("2")),
			Update{Enqueue: true, After: 3*time.Minute + delta}},
		{"schedule not due yet", cronJob(every5, version("1")), cronJob("0 1 * * *", version("2")),
			Update{Enqueue: true, After: 53*time.Minute + delta}},
		{"zone change", cronJob("0 1 * * *", version("1")), cronJob("0 1 * * *", version("2"), zone("Europe/Paris")),
			// 01:00 in Paris is 00:00 UTC: the next one is tomorrow's.
			Update{Enqueue: true, After: 24*time.Hour - 7*time.Minute + delta}},
		{"zone that does not load is left out", cronJob("0 1 * * *", version("1")), cronJob("0 1 * * *", version("2"), zone("Mars/Base")),
			Update{Enqueue: true, After: 53*time.Minute + delta}},
		{"unparseable", cronJob(every5, version("1")), cronJob("61 * * * *", version("2")),
			Update{Events: []record.Event{unparseableSchedule("61 * * * *")}}},
		{"bare zone prefix (Volcano panics)", cronJob(every5, version("1")), cronJob("TZ=UTC", version("2")),
			Update{Events: []record.Event{unparseableSchedule("TZ=UTC")}}},
		{"nil", nil, cronJob(every5), Update{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, OnUpdate(tc.old, tc.new, now, Options{}))
		})
	}
}

// The update's requeue is the one the sync of the new cronjob asks for.
func TestOnUpdateAgreesWithDecide(t *testing.T) {
	now := at("2026-01-05T00:07:00Z")
	for _, schedule := range []string{"*/10 * * * *", "0 1 * * *", "@every 90m", "@hourly"} {
		old, cj := cronJob(every5), cronJob(schedule)
		old.ResourceVersion, cj.ResourceVersion = "1", "2"
		cj.Status.LastScheduleTime = nil
		u := OnUpdate(old, cj, now, Options{})
		d := Decide(cj, nil, now)
		if assert.NotNil(t, d.RequeueAfter, schedule) && d.Skipped == SkipNotDue {
			assert.Equal(t, *d.RequeueAfter, u.After, schedule)
		}
	}
}
