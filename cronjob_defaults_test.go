package vcjob

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSetCronJobDefaults(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   CronJobSpec
		want CronJobSpec
	}{
		{
			name: "empty spec gets every default",
			in:   CronJobSpec{},
			want: CronJobSpec{ConcurrencyPolicy: AllowConcurrent, Suspend: new(false),
				SuccessfulJobsHistoryLimit: new(int32(3)), FailedJobsHistoryLimit: new(int32(1))},
		},
		{
			name: "set fields are kept, zero limits included",
			in: CronJobSpec{ConcurrencyPolicy: ForbidConcurrent, Suspend: new(true),
				SuccessfulJobsHistoryLimit: new(int32(0)), FailedJobsHistoryLimit: new(int32(7))},
			want: CronJobSpec{ConcurrencyPolicy: ForbidConcurrent, Suspend: new(true),
				SuccessfulJobsHistoryLimit: new(int32(0)), FailedJobsHistoryLimit: new(int32(7))},
		},
		{
			name: "schedule, zone, deadline and template are left alone",
			in:   CronJobSpec{Schedule: "@hourly", TimeZone: new("UTC"), StartingDeadlineSeconds: new(int64(30))},
			want: CronJobSpec{Schedule: "@hourly", TimeZone: new("UTC"), StartingDeadlineSeconds: new(int64(30)),
				ConcurrencyPolicy: AllowConcurrent, Suspend: new(false),
				SuccessfulJobsHistoryLimit: new(int32(3)), FailedJobsHistoryLimit: new(int32(1))},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cj := &CronJob{Spec: tc.in}
			SetCronJobDefaults(cj)
			assert.Equal(t, tc.want, cj.Spec)

			again := cj.DeepCopy()
			SetCronJobDefaults(again)
			assert.Equal(t, cj, again, "defaulting twice changes nothing the second time")
		})
	}
}

func TestSetCronJobDefaultsLeavesTemplateAlone(t *testing.T) {
	cj := validCronJob()
	cj.Spec.JobTemplate.Spec.Tasks[0].Name = ""
	SetCronJobDefaults(cj)
	assert.Empty(t, cj.Spec.JobTemplate.Spec.Tasks[0].Name, "job defaults apply to each created job, not the template")
	assert.Empty(t, cj.Spec.JobTemplate.Spec.Queue)
}

func TestSetCronJobDefaultsNil(t *testing.T) {
	assert.NotPanics(t, func() { SetCronJobDefaults(nil) })
}

func TestSetCronJobDefaultsDoesNotShareLimits(t *testing.T) {
	a, b := &CronJob{}, &CronJob{}
	SetCronJobDefaults(a)
	SetCronJobDefaults(b)
	*a.Spec.SuccessfulJobsHistoryLimit = 10
	assert.Equal(t, int32(3), *b.Spec.SuccessfulJobsHistoryLimit)
}
