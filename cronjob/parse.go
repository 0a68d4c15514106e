package cronjob

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"github.com/vcjob/vcjob"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// +k8s:deepcopy-gen=false

// Schedule is a CronJob's parsed schedule and the time zone it runs in.
type Schedule struct {
	// Schedule gives the first activation strictly after a time (the zero
	// time when there is none within five years).
	cron.Schedule
	// Location is the zone the schedule is read in: the schedule's own
	// TZ=/CRON_TZ= prefix, else spec.timeZone, else UTC.
	Location *time.Location
}

// ParseSchedule parses spec.schedule with robfig/cron's standard parser
// (5 fields, or a descriptor such as @hourly or @every 90m) in its time
// zone. A "TZ=<zone> " or "CRON_TZ=<zone> " prefix in the schedule wins over
// spec.timeZone; with neither the schedule runs in UTC, never in the
// machine's local zone. A schedule that can never fire (30 February) is
// refused too. A non-nil error is a *field.Error naming spec.schedule or
// spec.timeZone.
func ParseSchedule(spec *vcjob.CronJobSpec) (Schedule, error) {
	if spec == nil {
		spec = &vcjob.CronJobSpec{}
	}
	sched, err := parseSchedule(spec.Schedule, spec.TimeZone)
	if err != nil {
		return Schedule{}, err
	}
	return sched, nil
}

// parseSchedule is ParseSchedule with the *field.Error type kept
// (ParseSchedule returns error, so that a nil result is a nil error).
func parseSchedule(raw string, timeZone *string) (Schedule, *field.Error) {
	schedulePath := field.NewPath("spec", "schedule")
	if strings.TrimSpace(raw) == "" {
		return Schedule{}, field.Required(schedulePath, "a cron schedule such as \"0 2 * * *\" or \"@hourly\" is required")
	}

	var zone, parseable string
	zonePath, zoneValue := schedulePath, raw
	if rest, ok := cutZonePrefix(raw); ok {
		// robfig/cron takes the zone up to the first space (and panics
		// when there is none).
		name, _, found := strings.Cut(rest, " ")
		if !found {
			return Schedule{}, field.Invalid(schedulePath, raw,
				"a TZ= or CRON_TZ= prefix must be followed by a space and the schedule")
		}
		zone, parseable = name, raw
	} else {
		zone = "UTC"
		if timeZone != nil {
			zone = *timeZone
			zonePath, zoneValue = field.NewPath("spec", "timeZone"), zone
		}
		parseable = "TZ=" + zone + " " + raw
	}
	loc, err := loadNamedZone(zone)
	if err != nil {
		return Schedule{}, field.Invalid(zonePath, zoneValue, err.Error())
	}

	sched, err := cron.ParseStandard(parseable)
	if err != nil {
		return Schedule{}, field.Invalid(schedulePath, raw, "not a valid cron schedule: "+err.Error())
	}
	// robfig/cron searches five years ahead: from 1970 that includes a 29
	// February (1972), so only a date that never exists finds nothing.
	if sched.Next(time.Unix(0, 0).UTC()).IsZero() {
		return Schedule{}, field.Invalid(schedulePath, raw, "the schedule never fires (no such date)")
	}
	return Schedule{Schedule: sched, Location: loc}, nil
}

// cutZonePrefix splits "TZ=<zone> <schedule>" (or CRON_TZ=) after the "=",
// as robfig/cron reads it.
func cutZonePrefix(schedule string) (rest string, ok bool) {
	for _, prefix := range []string{"TZ=", "CRON_TZ="} {
		if rest, ok := strings.CutPrefix(schedule, prefix); ok {
			return rest, true
		}
	}
	return "", false
}

// loadNamedZone loads an IANA zone. Empty and "Local" are refused: both mean the
// machine's own zone to the time package, so the schedule would depend on
// where the controller runs.
func loadNamedZone(name string) (*time.Location, error) {
	switch {
	case name == "":
		return nil, fmt.Errorf("the time zone name is empty (leave timeZone unset for UTC)")
	case strings.EqualFold(name, "Local"):
		return nil, fmt.Errorf("%q is the machine's own zone: name an IANA time zone such as America/New_York", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("cannot load time zone %q: %v", name, err)
	}
	return loc, nil
}
