package validation

import (
	"strings"
	"testing"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/manifest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestValidCronJobHasNoErrors(t *testing.T) {
	assert.Empty(t, ValidateCronJob(validCronJob()))
}

func TestValidateCronJob(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(cj *vcjob.CronJob)
		want   []wantErr
		detail string // when set, in the first error
	}{
		// metadata
		{"no name", func(cj *vcjob.CronJob) { cj.Name = "" },
			[]wantErr{{field.ErrorTypeRequired, "metadata.name"}}, "name or generateName"},
		{"generateName stands in for the name", func(cj *vcjob.CronJob) { cj.Name, cj.GenerateName = "", "nightly-" },
			[]wantErr{}, ""},
		{"name of 52 characters", func(cj *vcjob.CronJob) {
			cj.Name = strings.Repeat("a", 52)
			cj.Spec.JobTemplate.Spec.Tasks = nil // no pods, whose names would be too long
		}, []wantErr{{field.ErrorTypeRequired, "spec.jobTemplate.spec.tasks"}}, ""},
		{"name of 53 characters", func(cj *vcjob.CronJob) { cj.Name = strings.Repeat("a", 53) },
			[]wantErr{{field.ErrorTypeInvalid, "metadata.name"}}, "no more than 52"},
		{"generateName too long with the random suffix", func(cj *vcjob.CronJob) { cj.Name, cj.GenerateName = "", strings.Repeat("a", 48) },
			[]wantErr{{field.ErrorTypeInvalid, "metadata.generateName"}}, "no more than 52"},
		{"name not qualified", func(cj *vcjob.CronJob) { cj.Name = "-nightly" },
			[]wantErr{{field.ErrorTypeInvalid, "metadata.name"}}, "alphanumeric"},

		// schedule and zones
		{"no schedule", func(cj *vcjob.CronJob) { cj.Spec.Schedule = "" },
			[]wantErr{{field.ErrorTypeRequired, "spec.schedule"}}, ""},
		{"bad schedule", func(cj *vcjob.CronJob) { cj.Spec.Schedule = "every night" },
			[]wantErr{{field.ErrorTypeInvalid, "spec.schedule"}}, "schedule is not a valid cron expression"},
		{"descriptor", func(cj *vcjob.CronJob) { cj.Spec.Schedule = "@hourly" }, []wantErr{}, ""},
		// Volcano accepts it (lint.LintCronJob warns).
		{"schedule that never fires", func(cj *vcjob.CronJob) { cj.Spec.Schedule = "0 0 31 4 *" }, []wantErr{}, ""},
		{"TZ prefix", func(cj *vcjob.CronJob) { cj.Spec.Schedule = "TZ=Europe/Paris 30 2 * * *" },
			[]wantErr{{field.ErrorTypeInvalid, "spec.schedule"}}, "should not contain TZ or CRON_TZ"},
		{"CRON_TZ prefix", func(cj *vcjob.CronJob) { cj.Spec.Schedule = "CRON_TZ=Europe/Atlantis 30 2 * * *" },
			[]wantErr{{field.ErrorTypeInvalid, "spec.schedule"}}, "should not contain TZ or CRON_TZ"},
		{"timeZone", func(cj *vcjob.CronJob) { cj.Spec.TimeZone = new("Asia/Kolkata") }, []wantErr{}, ""},
		{"unknown timeZone", func(cj *vcjob.CronJob) { cj.Spec.TimeZone = new("Asia/Atlantis") },
			[]wantErr{{field.ErrorTypeInvalid, "spec.timeZone"}}, "invalid timeZone"},
		{"unknown timeZone and bad schedule: both reported", func(cj *vcjob.CronJob) {
			cj.Spec.TimeZone = new("Asia/Atlantis")
			cj.Spec.Schedule = "61 * * * *"
		}, []wantErr{{field.ErrorTypeInvalid, "spec.schedule"}, {field.ErrorTypeInvalid, "spec.timeZone"}}, ""},
		{"timeZone with a . element, though it loads", func(cj *vcjob.CronJob) { cj.Spec.TimeZone = new("Asia/./Shanghai") },
			[]wantErr{{field.ErrorTypeInvalid, "spec.timeZone"}}, "unknown timeZone"},
		{"timeZone with a .. element", func(cj *vcjob.CronJob) { cj.Spec.TimeZone = new("Asia/../Asia/Shanghai") },
			[]wantErr{{field.ErrorTypeInvalid, "spec.timeZone"}}, "unknown timeZone"},
		{"timeZone Local", func(cj *vcjob.CronJob) { cj.Spec.TimeZone = new("local") },
			[]wantErr{{field.ErrorTypeInvalid, "spec.timeZone"}}, "can't be Local"},
		{"empty timeZone", func(cj *vcjob.CronJob) { cj.Spec.TimeZone = new("") },
			[]wantErr{{field.ErrorTypeInvalid, "spec.timeZone"}}, "empty"},

		// numbers and enums
		{"negative deadline", func(cj *vcjob.CronJob) { cj.Spec.StartingDeadlineSeconds = new(int64(-1)) },
			[]wantErr{{field.ErrorTypeInvalid, "spec.startingDeadlineSeconds"}}, "greater than or equal to 0"},
		{"zero deadline", func(cj *vcjob.CronJob) { cj.Spec.StartingDeadlineSeconds = new(int64(0)) }, []wantErr{}, ""},
		{"negative successful limit", func(cj *vcjob.CronJob) { cj.Spec.SuccessfulJobsHistoryLimit = new(int32(-1)) },
			[]wantErr{{field.ErrorTypeInvalid, "spec.successfulJobsHistoryLimit"}}, ""},
		{"negative failed limit", func(cj *vcjob.CronJob) { cj.Spec.FailedJobsHistoryLimit = new(int32(-3)) },
			[]wantErr{{field.ErrorTypeInvalid, "spec.failedJobsHistoryLimit"}}, ""},
		{"zero limits", func(cj *vcjob.CronJob) {
			cj.Spec.SuccessfulJobsHistoryLimit, cj.Spec.FailedJobsHistoryLimit = new(int32(0)), new(int32(0))
		}, []wantErr{}, ""},
		{"unknown concurrency policy", func(cj *vcjob.CronJob) { cj.Spec.ConcurrencyPolicy = "Queue" },
			[]wantErr{{field.ErrorTypeNotSupported, "spec.concurrencyPolicy"}}, `"Allow", "Forbid", "Replace"`},
		{"empty concurrency policy (SetCronJobDefaults makes it Allow)", func(cj *vcjob.CronJob) { cj.Spec.ConcurrencyPolicy = "" },
			[]wantErr{{field.ErrorTypeRequired, "spec.concurrencyPolicy"}}, ""},

		// the template: only the CRD schema's rules, as Volcano's CronJob
		// webhook does not validate it as a Job (lint.LintCronJob does)
		{"template without tasks", func(cj *vcjob.CronJob) { cj.Spec.JobTemplate.Spec.Tasks = nil },
			[]wantErr{{field.ErrorTypeRequired, "spec.jobTemplate.spec.tasks"}}, ""},
		{"template task minAvailable above replicas", func(cj *vcjob.CronJob) {
			cj.Spec.JobTemplate.Spec.Tasks[0].MinAvailable = new(int32(3))
		}, []wantErr{}, ""},
		{"template task with negative replicas", func(cj *vcjob.CronJob) {
			cj.Spec.JobTemplate.Spec.Tasks[0].Replicas = -1
		}, []wantErr{{field.ErrorTypeInvalid, "spec.jobTemplate.spec.tasks[0].replicas"}}, ""},
		{"template task name not a DNS label", func(cj *vcjob.CronJob) {
			cj.Spec.JobTemplate.Spec.Tasks[0].Name = "Worker"
		}, []wantErr{{field.ErrorTypeInvalid, "spec.jobTemplate.spec.tasks[0].name"}}, ""},
		{"template duplicate task names", func(cj *vcjob.CronJob) {
			cj.Spec.JobTemplate.Spec.Tasks = append(cj.Spec.JobTemplate.Spec.Tasks, cj.Spec.JobTemplate.Spec.Tasks[0])
		}, []wantErr{}, ""},
		{"template container without an image", func(cj *vcjob.CronJob) {
			cj.Spec.JobTemplate.Spec.Tasks[0].Template.Spec.Containers[0].Image = ""
		}, []wantErr{}, ""},
		{"template unnamed task is defaulted, as at creation", func(cj *vcjob.CronJob) {
			cj.Spec.JobTemplate.Spec.Tasks[0].Name = ""
		}, []wantErr{}, ""},
		{"template unknown plugin", func(cj *vcjob.CronJob) {
			cj.Spec.JobTemplate.Spec.Plugins = map[string][]string{"magic": nil}
		}, []wantErr{}, ""},
		{"pod names too long for the job name", func(cj *vcjob.CronJob) {
			cj.Name = strings.Repeat("a", 40)
			cj.Spec.JobTemplate.Spec.Tasks[0].Name = strings.Repeat("w", 12)
		}, []wantErr{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cj := validCronJob()
			tc.mutate(cj)
			errs := ValidateCronJob(cj)
			assert.ElementsMatch(t, tc.want, keysOf(errs), "errors: %v", errs)
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
	assert.ElementsMatch(t, []wantErr{
		{field.ErrorTypeRequired, "metadata.name"},
		{field.ErrorTypeInvalid, "spec.schedule"},
		{field.ErrorTypeInvalid, "spec.startingDeadlineSeconds"},
		{field.ErrorTypeNotSupported, "spec.concurrencyPolicy"},
		{field.ErrorTypeInvalid, "spec.jobTemplate.spec.tasks[0].maxRetry"},
	}, keysOf(errs), "errors: %v", errs)
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

// A task's template left out or empty is admitted: the CRD's schema
// requires none, and Volcano's CronJob webhook does not validate the
// template as a Job (every run's Job then fails Volcano's Job webhook,
// which lint.LintCronJob reports). A template given as null is one left
// out (TestValidateCronJobNullTaskTemplate).
func TestValidateCronJobTaskWithoutTemplate(t *testing.T) {
	for name, template := range map[string]*corev1.PodTemplateSpec{
		"left out": nil,
		"empty":    {},
	} {
		t.Run(name, func(t *testing.T) {
			cj := validCronJob()
			task := vcjob.TaskSpec{Name: "worker", Replicas: 1}
			if template != nil {
				task.Template = *template
			}
			cj.Spec.JobTemplate.Spec.Tasks = append(cj.Spec.JobTemplate.Spec.Tasks, task)
			errs := ValidateCronJob(cj)
			assert.Empty(t, errs)
			assert.Equal(t, errs, ValidateCronJob(cj.DeepCopy()), "a copy validates alike")
		})
	}
}

// A task template given as null (`template:` with nothing under it, or
// `template: null`) decodes as the template left out, as an API server
// with the CronJob CRD stores it, and the cronjob is admitted: Volcano's
// CronJob webhook does not validate the template as a Job.
func TestValidateCronJobNullTaskTemplate(t *testing.T) {
	doc := func(template string) []byte {
		return []byte(`apiVersion: batch.volcano.sh/v1alpha1
kind: CronJob
metadata: {name: nightly, namespace: ml}
spec:
  schedule: "@hourly"
  jobTemplate:
    spec:
      tasks:
      - name: main
        replicas: 1
        template: {spec: {containers: [{name: main, image: busybox}]}}
      - name: worker
        replicas: 1
` + template)
	}
	for name, template := range map[string]string{
		"null":              "        template:\n",
		"null, written out": "        template: null\n",
	} {
		t.Run(name, func(t *testing.T) {
			cj, err := manifest.DecodeCronJob(doc(template))
			require.NoError(t, err)
			assert.Equal(t, corev1.PodTemplateSpec{}, cj.Spec.JobTemplate.Spec.Tasks[1].Template)
			vcjob.SetCronJobDefaults(cj)
			assert.Empty(t, ValidateCronJob(cj))
		})
	}
}
