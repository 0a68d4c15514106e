package cronjob

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vcjob/vcjob"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestParseCronSchedule(t *testing.T) {
	from := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC) // a Wednesday; New York is UTC-4, Tokyo UTC+9
	for _, tc := range []struct {
		name     string
		schedule string
		timeZone *string
		wantZone string
		wantNext time.Time // first activation after from
	}{
		{"five fields, no zone: UTC", "30 2 * * *", nil, "UTC",
			time.Date(2026, 7, 1, 2, 30, 0, 0, time.UTC)},
		{"timeZone", "30 2 * * *", new("America/New_York"), "America/New_York",
			time.Date(2026, 7, 1, 6, 30, 0, 0, time.UTC)},
		{"TZ= prefix wins over timeZone", "TZ=Asia/Tokyo 30 2 * * *", new("America/New_York"), "Asia/Tokyo",
			time.Date(2026, 7, 1, 17, 30, 0, 0, time.UTC)},
		{"CRON_TZ= prefix", "CRON_TZ=Asia/Tokyo 30 2 * * *", nil, "Asia/Tokyo",
			time.Date(2026, 7, 1, 17, 30, 0, 0, time.UTC)},
		{"@hourly", "@hourly", nil, "UTC", time.Date(2026, 7, 1, 1, 0, 0, 0, time.UTC)},
		{"@daily in a zone", "@daily", new("America/New_York"), "America/New_York",
			time.Date(2026, 7, 1, 4, 0, 0, 0, time.UTC)},
		{"@weekly", "@weekly", nil, "UTC", time.Date(2026, 7, 5, 0, 0, 0, 0, time.UTC)},
		{"@every", "@every 90m", nil, "UTC", time.Date(2026, 7, 1, 1, 30, 0, 0, time.UTC)},
		{"day-of-week list", "0 9 * * 1-5", nil, "UTC", time.Date(2026, 7, 1, 9, 0, 0, 0, time.UTC)},
		{"29 February fires", "0 0 29 2 *", nil, "UTC", time.Date(2028, 2, 29, 0, 0, 0, 0, time.UTC)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sched, err := ParseSchedule(&vcjob.CronJobSpec{Schedule: tc.schedule, TimeZone: tc.timeZone})
			require.NoError(t, err)
			assert.Equal(t, tc.wantZone, sched.Location.String())
			assert.True(t, tc.wantNext.Equal(sched.Next(from)), "next %s, want %s", sched.Next(from), tc.wantNext)
		})
	}
}

func TestParseCronScheduleErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		schedule string
		timeZone *string
		want     cronErr
		detail   string
	}{
		{"empty", "", nil, cronErr{field.ErrorTypeRequired, "spec.schedule"}, "required"},
		{"blank", "   ", nil, cronErr{field.ErrorTypeRequired, "spec.schedule"}, "required"},
		{"six fields", "0 30 2 * * *", nil, cronErr{field.ErrorTypeInvalid, "spec.schedule"}, "expected exactly 5 fields"},
		{"out of range", "61 * * * *", nil, cronErr{field.ErrorTypeInvalid, "spec.schedule"}, "above maximum"},
		{"unknown descriptor", "@fortnightly", nil, cronErr{field.ErrorTypeInvalid, "spec.schedule"}, "unrecognized descriptor"},
		{"never fires", "0 0 30 2 *", nil, cronErr{field.ErrorTypeInvalid, "spec.schedule"}, "never fires"},
		{"unknown timeZone", "@hourly", new("Mars/Olympus_Mons"), cronErr{field.ErrorTypeInvalid, "spec.timeZone"}, "unknown time zone"},
		{"empty timeZone", "@hourly", new(""), cronErr{field.ErrorTypeInvalid, "spec.timeZone"}, "empty"},
		{"Local timeZone", "@hourly", new("Local"), cronErr{field.ErrorTypeInvalid, "spec.timeZone"}, "machine's own zone"},
		{"unknown prefix zone", "TZ=Mars/Olympus_Mons @hourly", nil, cronErr{field.ErrorTypeInvalid, "spec.schedule"}, "unknown time zone"},
		{"prefix Local", "CRON_TZ=local @hourly", nil, cronErr{field.ErrorTypeInvalid, "spec.schedule"}, "machine's own zone"},
		{"prefix without a schedule", "TZ=UTC", nil, cronErr{field.ErrorTypeInvalid, "spec.schedule"}, "followed by a space"},
		{"prefix with a tab", "TZ=UTC\t@hourly", nil, cronErr{field.ErrorTypeInvalid, "spec.schedule"}, "followed by a space"},
		{"prefix with nothing after the space", "TZ=UTC ", nil, cronErr{field.ErrorTypeInvalid, "spec.schedule"}, "not a valid cron schedule"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSchedule(&vcjob.CronJobSpec{Schedule: tc.schedule, TimeZone: tc.timeZone})
			var fe *field.Error
			require.True(t, errors.As(err, &fe), "want a *field.Error, got %v", err)
			assert.Equal(t, tc.want, cronErr{fe.Type, fe.Field})
			assert.Contains(t, fe.Error(), tc.detail)
		})
	}
}

func TestParseCronScheduleNilSpec(t *testing.T) {
	_, err := ParseSchedule(nil)
	assert.ErrorContains(t, err, "spec.schedule: Required value")
}

// FuzzParseSchedule: any schedule and time zone may be refused, none may
// panic (robfig/cron panics on a bare "TZ=UTC"), and a schedule accepted
// answers Next.
//
//	go test -run '^$' -fuzz FuzzParseSchedule -fuzztime 30s ./cronjob
func FuzzParseSchedule(f *testing.F) {
	for _, seed := range [][2]string{
		{"30 2 * * *", "America/New_York"},
		{"TZ=Asia/Tokyo @every 90m", ""},
		{"TZ=UTC", ""},
		{"CRON_TZ=Local 0 0 30 2 *", ""},
		{"@yearly", "../../etc/passwd"},
		{"*/0 * * * *", "UTC"},
	} {
		f.Add(seed[0], seed[1])
	}
	from := time.Date(2026, 3, 8, 6, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, schedule, zone string) {
		spec := &vcjob.CronJobSpec{Schedule: schedule}
		if zone != "" {
			spec.TimeZone = &zone
		}
		if sched, err := ParseSchedule(spec); err == nil {
			sched.Next(from)
		}
	})
}

// cronErr is what a test pins of a validation error: its type and path.
type cronErr struct {
	Type  field.ErrorType
	Field string
}

func cronErrs(errs field.ErrorList) []cronErr {
	out := []cronErr{}
	for _, e := range errs {
		out = append(out, cronErr{e.Type, e.Field})
	}
	return out
}
