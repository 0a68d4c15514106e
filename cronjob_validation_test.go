package vcjob

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestValidCronJobHasNoErrors(t *testing.T) {
	assert.Empty(t, ValidateCronJob(validCronJob()))
}

func TestValidateCronJob(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(cj *CronJob)
		want   []cronErr
		detail string // when set, in the first error
	}{
		// metadata
		{"no name", func(cj *CronJob) { cj.Name = "" },
			[]cronErr{{field.ErrorTypeRequired, "metadata.name"}}, "name or generateName"},
		{"generateName stands in for the name", func(cj *CronJob) { cj.Name, cj.GenerateName = "", "nightly-" },
			[]cronErr{}, ""},
		{"name of 52 characters", func(cj *CronJob) {
			cj.Name = strings.Repeat("a", 52)
			cj.Spec.JobTemplate.Spec.Tasks = nil // no pods, whose names would be too long
		}, []cronErr{{field.ErrorTypeRequired, "spec.jobTemplate.spec.tasks"}}, ""},
		{"name of 53 characters", func(cj *CronJob) { cj.Name = strings.Repeat("a", 53) },
			[]cronErr{{field.ErrorTypeInvalid, "metadata.name"}}, "no more than 52"},
		{"generateName too long with the random suffix", func(cj *CronJob) { cj.Name, cj.GenerateName = "", strings.Repeat("a", 48) },
			[]cronErr{{field.ErrorTypeInvalid, "metadata.generateName"}}, "no more than 52"},
		{"name not qualified", func(cj *CronJob) { cj.Name = "-nightly" },
			[]cronErr{{field.ErrorTypeInvalid, "metadata.name"}}, "alphanumeric"},

		// schedule and zones
		{"no schedule", func(cj *CronJob) { cj.Spec.Schedule = "" },
			[]cronErr{{field.ErrorTypeRequired, "spec.schedule"}}, ""},
		{"bad schedule", func(cj *CronJob) { cj.Spec.Schedule = "every night" },
			[]cronErr{{field.ErrorTypeInvalid, "spec.schedule"}}, "not a valid cron schedule"},
		{"descriptor", func(cj *CronJob) { cj.Spec.Schedule = "@hourly" }, []cronErr{}, ""},
		{"schedule that never fires", func(cj *CronJob) { cj.Spec.Schedule = "0 0 31 4 *" },
			[]cronErr{{field.ErrorTypeInvalid, "spec.schedule"}}, "never fires"},
		{"TZ prefix", func(cj *CronJob) { cj.Spec.Schedule = "TZ=Europe/Paris 30 2 * * *" }, []cronErr{}, ""},
		{"unknown TZ prefix", func(cj *CronJob) { cj.Spec.Schedule = "CRON_TZ=Europe/Atlantis 30 2 * * *" },
			[]cronErr{{field.ErrorTypeInvalid, "spec.schedule"}}, "unknown time zone"},
		{"timeZone", func(cj *CronJob) { cj.Spec.TimeZone = new("Asia/Kolkata") }, []cronErr{}, ""},
		{"unknown timeZone", func(cj *CronJob) { cj.Spec.TimeZone = new("Asia/Atlantis") },
			[]cronErr{{field.ErrorTypeInvalid, "spec.timeZone"}}, "unknown time zone"},
		{"unknown timeZone and bad schedule: both reported", func(cj *CronJob) {
			cj.Spec.TimeZone = new("Asia/Atlantis")
			cj.Spec.Schedule = "61 * * * *"
		}, []cronErr{{field.ErrorTypeInvalid, "spec.timeZone"}, {field.ErrorTypeInvalid, "spec.schedule"}}, "unknown time zone"},
		{"unknown timeZone under a TZ prefix is still an error", func(cj *CronJob) {
			cj.Spec.TimeZone = new("Asia/Atlantis")
			cj.Spec.Schedule = "TZ=UTC 30 2 * * *"
		}, []cronErr{{field.ErrorTypeInvalid, "spec.timeZone"}}, ""},
		{"empty timeZone", func(cj *CronJob) { cj.Spec.TimeZone = new("") },
			[]cronErr{{field.ErrorTypeInvalid, "spec.timeZone"}}, "empty"},

		// numbers and enums
		{"negative deadline", func(cj *CronJob) { cj.Spec.StartingDeadlineSeconds = new(int64(-1)) },
			[]cronErr{{field.ErrorTypeInvalid, "spec.startingDeadlineSeconds"}}, "greater than or equal to 0"},
		{"zero deadline", func(cj *CronJob) { cj.Spec.StartingDeadlineSeconds = new(int64(0)) }, []cronErr{}, ""},
		{"negative successful limit", func(cj *CronJob) { cj.Spec.SuccessfulJobsHistoryLimit = new(int32(-1)) },
			[]cronErr{{field.ErrorTypeInvalid, "spec.successfulJobsHistoryLimit"}}, ""},
		{"negative failed limit", func(cj *CronJob) { cj.Spec.FailedJobsHistoryLimit = new(int32(-3)) },
			[]cronErr{{field.ErrorTypeInvalid, "spec.failedJobsHistoryLimit"}}, ""},
		{"zero limits", func(cj *CronJob) {
			cj.Spec.SuccessfulJobsHistoryLimit, cj.Spec.FailedJobsHistoryLimit = new(int32(0)), new(int32(0))
		}, []cronErr{}, ""},
		{"unknown concurrency policy", func(cj *CronJob) { cj.Spec.ConcurrencyPolicy = "Queue" },
			[]cronErr{{field.ErrorTypeNotSupported, "spec.concurrencyPolicy"}}, `"Allow", "Forbid", "Replace"`},
		{"empty concurrency policy is Allow", func(cj *CronJob) { cj.Spec.ConcurrencyPolicy = "" }, []cronErr{}, ""},

		// the template, as the job each run creates
		{"template without tasks", func(cj *CronJob) { cj.Spec.JobTemplate.Spec.Tasks = nil },
			[]cronErr{{field.ErrorTypeRequired, "spec.jobTemplate.spec.tasks"}}, ""},
		{"template task minAvailable above replicas", func(cj *CronJob) {
			cj.Spec.JobTemplate.Spec.Tasks[0].MinAvailable = new(int32(3))
		}, []cronErr{
			{field.ErrorTypeInvalid, "spec.jobTemplate.spec.minAvailable"}, // defaulted to the sum of the tasks'
			{field.ErrorTypeInvalid, "spec.jobTemplate.spec.tasks[0].minAvailable"},
		}, ""},
		{"template unnamed task is defaulted, as at creation", func(cj *CronJob) {
			cj.Spec.JobTemplate.Spec.Tasks[0].Name = ""
		}, []cronErr{}, ""},
		{"template unknown plugin", func(cj *CronJob) {
			cj.Spec.JobTemplate.Spec.Plugins = map[string][]string{"magic": nil}
		}, []cronErr{{field.ErrorTypeNotSupported, "spec.jobTemplate.spec.plugins[magic]"}}, ""},
		{"pod names too long for the job name", func(cj *CronJob) {
			cj.Name = strings.Repeat("a", 40)
			cj.Spec.JobTemplate.Spec.Tasks[0].Name = strings.Repeat("w", 12)
		}, []cronErr{{field.ErrorTypeInvalid, "spec.jobTemplate.spec.tasks[0].name"}}, "pod name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cj := validCronJob()
			tc.mutate(cj)
			errs := ValidateCronJob(cj)
			assert.ElementsMatch(t, tc.want, cronErrs(errs), "errors: %v", errs)
			if tc.detail != "" && assert.NotEmpty(t, errs) {
				assert.Contains(t, errs[0].Error(), tc.detail)
			}
		})
	}
}

func TestValidateCronJobCollectsEveryError(t *testing.T) {
	cj := validCronJob()
	cj.Name = ""
	cj.Spec.Schedule = "nope"
	cj.Spec.StartingDeadlineSeconds = new(int64(-5))
	cj.Spec.ConcurrencyPolicy = "Sometimes"
	cj.Spec.JobTemplate.Spec.Tasks[0].MaxRetry = -1
	errs := ValidateCronJob(cj)
	assert.ElementsMatch(t, []cronErr{
		{field.ErrorTypeRequired, "metadata.name"},
		{field.ErrorTypeInvalid, "spec.schedule"},
		{field.ErrorTypeInvalid, "spec.startingDeadlineSeconds"},
		{field.ErrorTypeNotSupported, "spec.concurrencyPolicy"},
		{field.ErrorTypeInvalid, "spec.jobTemplate.spec.tasks[0].maxRetry"},
	}, cronErrs(errs), "errors: %v", errs)
}

func TestValidateCronJobDoesNotModifyIt(t *testing.T) {
	cj := validCronJob()
	cj.Spec.JobTemplate.Spec.Tasks[0].Name = ""
	before := cj.DeepCopy()
	ValidateCronJob(cj)
	assert.Equal(t, before, cj, "the template is defaulted on a copy")
}

func TestValidateCronJobNil(t *testing.T) {
	errs := ValidateCronJob(nil)
	require.Len(t, errs, 1)
	assert.Equal(t, field.ErrorTypeRequired, errs[0].Type)
}
