package cronjob

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/vcjob/vcjob"
)

// NextScheduleDelta is added to every requeue, as Volcano (and Kubernetes)
// do, so that a controller woken by its timer finds the schedule time
// passed even when its clock runs slightly behind.
const NextScheduleDelta = 100 * time.Millisecond

// MaxMissedSchedules: more missed schedule times than this, by Volcano's
// estimate, is a TooManyMissedTimes warning (the controller was down, or a
// clock is wrong). The run still starts.
const MaxMissedSchedules = 100

// ErrPanic is wrapped by the error of a sync during which Volcano's
// controller panics. A panicking sync is a failed one: nothing after the
// panic happens. In Volcano the panic also ends the controller process
// (client-go's crash handler re-panics), and it panics again on the next
// sync of the cronjob.
var ErrPanic = errors.New("the sync panics in Volcano")

// loadZone loads a time zone as time.LoadLocation does ("" is UTC), with
// "Local" read as the controller's zone rather than the machine's.
func loadZone(name string, local *time.Location) (*time.Location, error) {
	if name == "Local" {
		return local, nil
	}
	return time.LoadLocation(name)
}

// checkTimeZone is the check of spec.timeZone that comes before the
// schedule's: a zone that does not load fails the sync.
func (s *syncer) checkTimeZone() error {
	tz := s.cj.Spec.TimeZone
	if tz == nil {
		return nil
	}
	_, err := loadZone(*tz, s.opts.local())
	if err == nil && s.opts.RefuseMachineZones && (*tz == "" || *tz == "Local") {
		err = fmt.Errorf("%q stands for the controller's own zone (%s, here): name a fixed zone such as America/New_York", *tz, s.opts.local())
	}
	if err != nil {
		s.record(invalidTimeZone(*tz, err))
		return fmt.Errorf("spec.timeZone: %w", err)
	}
	return nil
}

// loadSchedule parses the schedule as Volcano does: a schedule holding
// "TZ" anywhere is taken as written (with an UnsupportedSchedule warning,
// and timeZone ignored); otherwise a timeZone that loads is put in front
// of it as "TZ=<zone> ". robfig/cron's standard parser then reads it: five
// fields or a descriptor (@hourly, @every 90m), in the zone of its TZ= or
// CRON_TZ= prefix, else in the controller's zone.
func (s *syncer) loadSchedule() (cron.Schedule, error) {
	spec := s.cj.Spec.Schedule
	if strings.Contains(spec, "TZ") {
		s.record(unsupportedSchedule(spec))
		if s.opts.RejectBareZonePrefix && bareZonePrefix(spec) {
			return nil, fmt.Errorf("spec.schedule %q: a TZ= or CRON_TZ= prefix must be followed by a space and the schedule", spec)
		}
	} else if tz := s.cj.Spec.TimeZone; tz != nil {
		// checkTimeZone has loaded it.
		spec = "TZ=" + *tz + " " + spec
	}
	sched, err := parseStandard(spec, s.opts.local())
	if err != nil {
		return nil, fmt.Errorf("spec.schedule %q: %w", s.cj.Spec.Schedule, err)
	}
	return sched, nil
}

// bareZonePrefix: a TZ= or CRON_TZ= prefix with no space after it.
func bareZonePrefix(spec string) bool {
	return (strings.HasPrefix(spec, "TZ=") || strings.HasPrefix(spec, "CRON_TZ=")) && !strings.Contains(spec, " ")
}

// parseStandard is robfig/cron's ParseStandard, with a schedule in the
// machine's zone (no prefix, or TZ=Local) moved to local, and a panic of
// the parser returned as an error wrapping ErrPanic.
func parseStandard(spec string, local *time.Location) (sched cron.Schedule, err error) {
	defer func() {
		if r := recover(); r != nil {
			sched, err = nil, fmt.Errorf("%w: robfig/cron's parser: %v", ErrPanic, r)
		}
	}()
	sched, err = cron.ParseStandard(spec)
	if err != nil {
		return nil, err
	}
	if spec, ok := sched.(*cron.SpecSchedule); ok && spec.Location == time.Local {
		spec.Location = local
	}
	return sched, nil
}

// scheduleZone is the zone a schedule runs in; an @every schedule has
// none of its own and counts in the controller's.
func scheduleZone(sched cron.Schedule, local *time.Location) *time.Location {
	if spec, ok := sched.(*cron.SpecSchedule); ok {
		return spec.Location
	}
	return local
}

// missed is how many schedule times Volcano estimates were missed.
type missed int

const (
	noneMissed missed = iota
	fewMissed
	manyMissed
)

// unmet is what the schedule says about the times after the earliest time
// considered.
type unmet struct {
	// earliest is the time after which schedule times count: the last
	// scheduled run, else the cronjob's creation, and with the starting
	// deadline never before now − deadline.
	earliest time.Time
	// latest is the most recent schedule time after earliest and not
	// after now, nil when there is none.
	latest *time.Time
	missed missed
}

// unmetTimes finds the most recent schedule time not yet run, as Volcano
// does: it takes the first two schedule times after the earliest time
// considered, estimates from their distance how many times were missed up
// to now, jumps to one period before the last of them and walks the
// schedule from there to now. The jump makes it land on the grid the
// estimate lays (for @every, counted from the first time after the
// earliest), not on every schedule time. Two schedule times less than a
// second apart, or none at all (31 February), are an error.
func unmetTimes(cj *vcjob.CronJob, sched cron.Schedule, now time.Time, withDeadline bool) (unmet, error) {
	u := unmet{earliest: cj.CreationTimestamp.Time}
	if last := cj.Status.LastScheduleTime; last != nil {
		u.earliest = last.Time
	}
	if deadline := cj.Spec.StartingDeadlineSeconds; withDeadline && deadline != nil {
		// Duration arithmetic as Volcano's: a deadline beyond 292 years
		// wraps, and a negative one lies in the future.
		if limit := now.Add(-time.Second * time.Duration(*deadline)); limit.After(u.earliest) {
			u.earliest = limit
		}
	}
	first := sched.Next(u.earliest)
	second := sched.Next(first)
	switch {
	case now.Before(first):
		return u, nil
	case now.Before(second):
		u.latest = &first
		return u, nil
	}

	period := int64(second.Sub(first).Round(time.Second).Seconds())
	if period < 1 {
		return u, errors.New("time difference between two schedules is less than 1 second")
	}
	count := int64(now.Sub(first).Seconds())/period + 1
	var latest time.Time
	from := first.Add(time.Duration((count-2)*period) * time.Second)
	steps := 0
	for t := sched.Next(from); !t.IsZero() && !t.After(now); t = sched.Next(t) {
		latest = t
		if steps++; steps == maxWalk {
			latest = lastUpTo(sched, t, now)
			break
		}
	}
	switch {
	case count > MaxMissedSchedules:
		u.missed = manyMissed
	case count > 0:
		u.missed = fewMissed
	}
	if !latest.IsZero() {
		u.latest = &latest
	}
	return u, nil
}

// maxWalk bounds the walk to now. Volcano's estimate lands within two
// periods of now, so its walk is short, except when the time since the
// first schedule time exceeds what a time.Duration holds (292 years: a
// cronjob without a creation time, which no API server stores): the
// estimate then lands centuries back, and Volcano walks for minutes. Past
// maxWalk steps lastUpTo searches back from now instead; it finds the
// walk's time but in a zone whose clocks move by half an hour, where
// robfig/cron's walk itself depends on where it starts.
const maxWalk = 10000

// lastUpTo is the last schedule time not after now, given one known not to
// be: what walking the schedule from known finds, without the walk. An
// @every schedule's times are known + k·delay; other schedules are
// searched back from now in doubling steps, then walked forward.
func lastUpTo(sched cron.Schedule, known, now time.Time) time.Time {
	if every, ok := sched.(cron.ConstantDelaySchedule); ok {
		return known.Add(now.Sub(known) / every.Delay * every.Delay)
	}
	from := known
	for back := time.Second; back > 0 && now.Add(-back).After(known); back *= 2 {
		if t := sched.Next(now.Add(-back)); !t.IsZero() && !t.After(now) {
			from = t
			break
		}
	}
	for {
		next := sched.Next(from)
		if next.IsZero() || next.After(now) {
			return from
		}
		from = next
	}
}

// requeueAfter is how long until the schedule time after the most recent
// one since the last run (the starting deadline aside), plus
// NextScheduleDelta. When the schedule misbehaves it counts from now; when
// times were missed but none is found, from now as well. It may be
// negative (a schedule with no next time).
func requeueAfter(cj *vcjob.CronJob, sched cron.Schedule, now time.Time) *time.Duration {
	from := now
	u, err := unmetTimes(cj, sched, now, false)
	switch {
	case err != nil:
	case u.latest != nil:
		from = *u.latest
	case u.missed == noneMissed:
		from = u.earliest
	}
	d := sched.Next(from).Add(NextScheduleDelta).Sub(now)
	return &d
}
