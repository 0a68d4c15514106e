package cronjob

import (
	"strings"
	"time"
	_ "time/tzdata" // the zone tests must not depend on the machine's zoneinfo

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/record"
)

// at parses an RFC 3339 time.
func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

// The tests' clock: cronjob "nightly" in namespace "ml" is created a little
// after midnight on a Monday and runs every five minutes unless told
// otherwise.
const every5 = "*/5 * * * *"

var (
	created = at("2026-01-05T00:00:30Z")
	t0000   = at("2026-01-05T00:00:00Z")
	t0005   = at("2026-01-05T00:05:00Z")
	t0010   = at("2026-01-05T00:10:00Z")
	t0015   = at("2026-01-05T00:15:00Z")
	delta   = NextScheduleDelta
)

// cronJob is cronjob "nightly" (UID cj-uid) in namespace "ml", created at
// created, with the history limits the API server defaults and the given
// changes applied. Its spec is what the API server stores: no other
// defaulting (concurrencyPolicy is "", which is Allow).
func cronJob(schedule string, opts ...func(*vcjob.CronJob)) *vcjob.CronJob {
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
			SuccessfulJobsHistoryLimit: new(int32(3)),
			FailedJobsHistoryLimit:     new(int32(1)),
		},
	}
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

func withLastSuccessful(t time.Time) func(*vcjob.CronJob) {
	return func(cj *vcjob.CronJob) { cj.Status.LastSuccessfulTime = &metav1.Time{Time: t} }
}

func withSuspend() func(*vcjob.CronJob) {
	return func(cj *vcjob.CronJob) { cj.Spec.Suspend = new(true) }
}

func withDeleting() func(*vcjob.CronJob) {
	return func(cj *vcjob.CronJob) { cj.DeletionTimestamp = &metav1.Time{Time: created} }
}

func withLimits(successful, failed *int32) func(*vcjob.CronJob) {
	return func(cj *vcjob.CronJob) {
		cj.Spec.SuccessfulJobsHistoryLimit, cj.Spec.FailedJobsHistoryLimit = successful, failed
	}
}

// withActive lists references in status.active.
func withActive(refs ...corev1.ObjectReference) func(*vcjob.CronJob) {
	return func(cj *vcjob.CronJob) { cj.Status.Active = append(cj.Status.Active, refs...) }
}

// ref is the status.active entry of a job in namespace ml.
func ref(name, uid string) corev1.ObjectReference {
	return corev1.ObjectReference{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind, Namespace: "ml", Name: name, UID: types.UID(uid)}
}

// refOf is the status.active entry of a job.
func refOf(j *vcjob.Job) corev1.ObjectReference {
	return corev1.ObjectReference{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind, Namespace: j.Namespace, Name: j.Name, UID: j.UID}
}

// job is a job the cronjob controls, named after its scheduled time and
// created then, with UID uid-<name>, in phase.
func job(scheduled time.Time, phase vcjob.JobPhase, opts ...func(*vcjob.Job)) *vcjob.Job {
	name := JobName("nightly", scheduled)
	j := &vcjob.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "ml", UID: types.UID("uid-" + name),
			CreationTimestamp: metav1.NewTime(scheduled),
			Annotations:       map[string]string{vcjob.CronJobScheduledTimeKey: scheduled.Format(time.RFC3339)},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: vcjob.APIVersion, Kind: vcjob.CronJobKind, Name: "nightly", UID: "cj-uid",
				Controller: new(true), BlockOwnerDeletion: new(true),
			}},
		},
		Status: vcjob.JobStatus{State: vcjob.JobState{Phase: phase}},
	}
	for _, opt := range opts {
		opt(j)
	}
	return j
}

// named is a job of the cronjob with another name and UID.
func named(name string, phase vcjob.JobPhase, opts ...func(*vcjob.Job)) *vcjob.Job {
	j := job(created, phase, opts...)
	j.Name, j.UID = name, types.UID("uid-"+name)
	delete(j.Annotations, vcjob.CronJobScheduledTimeKey)
	return j
}

func finishedAt(t time.Time) func(*vcjob.Job) {
	return func(j *vcjob.Job) { j.Status.State.LastTransitionTime = metav1.NewTime(t) }
}

func createdAt(t time.Time) func(*vcjob.Job) {
	return func(j *vcjob.Job) { j.CreationTimestamp = metav1.NewTime(t) }
}

func inNamespace(ns string) func(*vcjob.Job) {
	return func(j *vcjob.Job) { j.Namespace = ns }
}

// ownedBy replaces the job's owner references.
func ownedBy(refs ...metav1.OwnerReference) func(*vcjob.Job) {
	return func(j *vcjob.Job) { j.OwnerReferences = refs }
}

func controllerRef(apiVersion, kind, name, uid string) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: types.UID(uid), Controller: new(true)}
}

func jobs(js ...*vcjob.Job) []*vcjob.Job { return js }

func names(refs []corev1.ObjectReference) []string {
	out := []string{}
	for _, r := range refs {
		out = append(out, r.Name)
	}
	return out
}

func callStrings(calls []Call) []string {
	out := []string{}
	for _, c := range calls {
		out = append(out, c.String())
	}
	return out
}

// reasons are the events as "Type Reason".
func reasons(events []record.Event) []string {
	out := []string{}
	for _, e := range events {
		out = append(out, e.Type+" "+e.Reason)
	}
	return out
}

func requeue(d time.Duration) *time.Duration { return &d }

func timePtr(t time.Time) *time.Time { return &t }

// contains reports whether every part is in s.
func contains(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
