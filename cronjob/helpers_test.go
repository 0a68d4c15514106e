package cronjob

import (
	"time"
	_ "time/tzdata" // the zone tests must not depend on the machine's zoneinfo

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"
)

// at parses an RFC 3339 time.
func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

// cronJob is a defaulted cronjob "nightly" in namespace "ml", created at
// created, running schedule in UTC with the given options applied.
func cronJob(schedule string, created time.Time, opts ...func(*vcjob.CronJob)) *vcjob.CronJob {
	cj := &vcjob.CronJob{
		TypeMeta: metav1.TypeMeta{APIVersion: vcjob.APIVersion, Kind: vcjob.CronJobKind},
		ObjectMeta: metav1.ObjectMeta{
			Name: "nightly", Namespace: "ml", UID: "cj-uid",
			CreationTimestamp: metav1.NewTime(created),
		},
		Spec: vcjob.CronJobSpec{
			Schedule: schedule,
			JobTemplate: vcjob.JobTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Labels:      map[string]string{"team": "ml"},
					Annotations: map[string]string{"note": "from the template"},
				},
				Spec: vcjob.JobSpec{Queue: "batch", Tasks: []vcjob.TaskSpec{{Name: "worker", Replicas: 2}}},
			},
		},
	}
	vcjob.SetCronJobDefaults(cj)
	for _, opt := range opts {
		opt(cj)
	}
	return cj
}

func withPolicy(p vcjob.ConcurrencyPolicy) func(*vcjob.CronJob) {
	return func(cj *vcjob.CronJob) { cj.Spec.ConcurrencyPolicy = p }
}

func withDeadline(seconds int64) func(*vcjob.CronJob) {
	return func(cj *vcjob.CronJob) { cj.Spec.StartingDeadlineSeconds = &seconds }
}

func withZone(zone string) func(*vcjob.CronJob) {
	return func(cj *vcjob.CronJob) { cj.Spec.TimeZone = &zone }
}

func withLastSchedule(t time.Time) func(*vcjob.CronJob) {
	return func(cj *vcjob.CronJob) { cj.Status.LastScheduleTime = &metav1.Time{Time: t} }
}

func withSuspend() func(*vcjob.CronJob) {
	return func(cj *vcjob.CronJob) { cj.Spec.Suspend = new(true) }
}

func withLimits(successful, failed int32) func(*vcjob.CronJob) {
	return func(cj *vcjob.CronJob) {
		cj.Spec.SuccessfulJobsHistoryLimit, cj.Spec.FailedJobsHistoryLimit = &successful, &failed
	}
}

// withActive lists jobs in status.active, by name and UID.
func withActive(jobs ...JobState) func(*vcjob.CronJob) {
	return func(cj *vcjob.CronJob) {
		for _, j := range jobs {
			cj.Status.Active = append(cj.Status.Active, ref(j))
		}
	}
}

func ref(j JobState) corev1.ObjectReference {
	return corev1.ObjectReference{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind, Namespace: "ml", Name: j.Name, UID: j.UID}
}

// job is a job of the cronjob named after its scheduled time, created then.
func job(scheduled time.Time, phase vcjob.JobPhase) JobState {
	name := JobName("nightly", scheduled)
	return JobState{
		Name: name, Namespace: "ml", UID: types.UID("uid-" + name),
		CreationTimestamp: scheduled, Phase: phase, ScheduledTime: scheduled,
	}
}

func finishedAt(j JobState, t time.Time) JobState {
	j.FinishedAt = t
	return j
}

func names(refs []corev1.ObjectReference) []string {
	out := []string{}
	for _, r := range refs {
		out = append(out, r.Name)
	}
	return out
}

func timePtr(t time.Time) *time.Time { return &t }
