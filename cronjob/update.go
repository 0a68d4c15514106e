package cronjob

import (
	"strings"
	"time"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/record"
)

// Update is what Volcano's CronJob informer's update handler does with a
// change of a cronjob: whether it queues the cronjob's key, how long from
// now, and the Events it records on the new cronjob.
type Update struct {
	// Enqueue: queue the cronjob's key, at once when After is zero or
	// less, else after After.
	Enqueue bool
	After   time.Duration
	// Events are recorded on the new cronjob (UnParseableCronJobSchedule).
	Events []record.Event
}

// OnUpdate is Volcano's CronJob update handler (updateCronJob) for a
// change from old to new seen at now, a pure function as Decide is:
//   - the same resourceVersion (a resync): nothing;
//   - a schedule or time zone that changed: the new schedule is read as
//     the sync reads it, without its UnsupportedSchedule warning (a
//     timeZone that does not load is left out, where the sync fails), and
//     the key is queued after the time the sync would requeue at (the
//     schedule time after the latest one since the last run, plus
//     NextScheduleDelta); a schedule that does not parse records
//     UnParseableCronJobSchedule and queues nothing;
//   - any other change: the key is queued at once.
//
// Volcano's handler panics where robfig/cron's parser does (a bare
// "TZ=<zone>" schedule; the process restarts); here that schedule does
// not parse. opts.Local is the controller's zone, as for DecideWith.
func OnUpdate(old, new *vcjob.CronJob, now time.Time, opts Options) Update {
	if old == nil || new == nil || old.ResourceVersion == new.ResourceVersion {
		return Update{}
	}
	if old.Spec.Schedule == new.Spec.Schedule && equalZone(old.Spec.TimeZone, new.Spec.TimeZone) {
		return Update{Enqueue: true}
	}
	sched, err := parseStandard(handlerSchedule(new, opts.local()), opts.local())
	if err != nil {
		return Update{Events: []record.Event{unparseableSchedule(new.Spec.Schedule)}}
	}
	return Update{Enqueue: true, After: *requeueAfter(new, sched, now)}
}

// handlerSchedule is the schedule as Volcano's formatSchedule writes it
// for the update handler: as written when it holds "TZ" or its timeZone
// does not load, else behind "TZ=<timeZone> ".
func handlerSchedule(cj *vcjob.CronJob, local *time.Location) string {
	spec := cj.Spec.Schedule
	if strings.Contains(spec, "TZ") || cj.Spec.TimeZone == nil {
		return spec
	}
	if _, err := loadZone(*cj.Spec.TimeZone, local); err != nil {
		return spec
	}
	return "TZ=" + *cj.Spec.TimeZone + " " + spec
}

func equalZone(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
