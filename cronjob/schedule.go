package cronjob

import (
	"fmt"
	"math"
	"time"

	"github.com/robfig/cron/v3"
)

// NextScheduleDelta is added to every RequeueAfter, as Kubernetes does, so
// that a controller woken by its timer finds the schedule time passed even
// when its clock runs slightly behind.
const NextScheduleDelta = 100 * time.Millisecond

// MaxMissedSchedules: more schedule times than this between the earliest
// time considered and now is reported as a warning (the controller was
// down, or a clock is wrong).
const MaxMissedSchedules = 100

// maxDeadlineSeconds is the largest startingDeadlineSeconds that fits in a
// time.Duration; larger deadlines are no deadline at all.
const maxDeadlineSeconds = math.MaxInt64 / int64(time.Second)

// window is what the schedule says about (earliest, now].
type window struct {
	// latest is the most recent schedule time in the window, zero when the
	// window holds none.
	latest time.Time
	// count is how many schedule times the window holds, counted up to
	// MaxMissedSchedules+1.
	count int
}

// scheduleWindow finds the schedule times after earliest and not after now.
// It fails for a schedule that never fires or whose next two times are less
// than a second apart, as Kubernetes does.
func scheduleWindow(s cron.Schedule, earliest, now time.Time) (window, error) {
	t1 := s.Next(earliest)
	if t1.IsZero() {
		return window{}, fmt.Errorf("the schedule has no time after %s", earliest.UTC().Format(time.RFC3339))
	}
	if t2 := s.Next(t1); !t2.IsZero() && t2.Sub(t1) < time.Second {
		return window{}, fmt.Errorf("two schedule times are less than a second apart (%s and %s)",
			t1.UTC().Format(time.RFC3339Nano), t2.UTC().Format(time.RFC3339Nano))
	}
	if t1.After(now) {
		return window{}, nil
	}

	w := window{latest: t1, count: 1}
	for {
		next := s.Next(w.latest)
		if next.IsZero() || next.After(now) {
			return w, nil
		}
		w.latest = next
		if w.count++; w.count > MaxMissedSchedules {
			w.latest = latestUpTo(s, w.latest, now)
			return w, nil
		}
	}
}

// latestUpTo returns the last schedule time not after now, given a schedule
// time known not to be after it. Rather than walk every time since known
// (decades of minutes, when a clock is wrong), it looks back from now in
// doubling steps until a step holds a schedule time, then walks forward
// from there.
//
// An @every schedule counts from its previous time rather than the clock,
// so its times are known + k·delay and are computed, not searched.
func latestUpTo(s cron.Schedule, known, now time.Time) time.Time {
	span := now.Sub(known)
	if every, ok := s.(cron.ConstantDelaySchedule); ok {
		return known.Add(span / every.Delay * every.Delay)
	}
	from := known
	for back := time.Second; back < span; back *= 2 {
		if t := s.Next(now.Add(-back)); !t.IsZero() && !t.After(now) {
			from = t
			break
		}
		if back > span/2 {
			break
		}
	}
	for {
		next := s.Next(from)
		if next.IsZero() || next.After(now) {
			return from
		}
		from = next
	}
}

// earliestConsidered is the time after which schedule times count as
// missed: the last scheduled run, else the cronjob's creation, and with a
// starting deadline never earlier than now − deadline.
func earliestConsidered(lastSchedule *time.Time, created time.Time, deadlineSeconds *int64, now time.Time) time.Time {
	earliest := created
	if lastSchedule != nil {
		earliest = *lastSchedule
	}
	if deadlineSeconds != nil && *deadlineSeconds <= maxDeadlineSeconds {
		if limit := now.Add(-time.Duration(*deadlineSeconds) * time.Second); limit.After(earliest) {
			earliest = limit
		}
	}
	return earliest
}

// requeueAfter is how long until the schedule time after the most recent
// one since earliest (the last run, else the creation time), plus
// NextScheduleDelta, as Kubernetes computes it: for @every schedules the
// next time counts from the last scheduled time, not from now. 0 when the
// schedule has no next time.
func requeueAfter(s cron.Schedule, earliest, now time.Time) time.Duration {
	from := earliest
	if w, err := scheduleWindow(s, earliest, now); err != nil {
		from = now
	} else if !w.latest.IsZero() {
		from = w.latest
	}
	next := s.Next(from)
	if next.IsZero() {
		return 0
	}
	return next.Sub(now) + NextScheduleDelta
}
