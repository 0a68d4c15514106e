package cronjob

import (
	"maps"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/vcjob/vcjob"
)

// JobName is the name of the job for the run scheduled at t:
// <cronjob>-<t as unix minutes>. The same run always gets the same name, so
// that the name works as a lock against starting it twice.
func JobName(cronJob string, scheduled time.Time) string {
	return cronJob + "-" + strconv.FormatInt(scheduled.Unix()/60, 10)
}

// renderJob is the job for the run scheduled at t: the template's labels,
// annotations and spec, the scheduled time as an RFC 3339 annotation in the
// schedule's zone, and a controller reference to the cronjob.
func renderJob(cj *vcjob.CronJob, scheduled time.Time, zone *time.Location) *vcjob.Job {
	cronJobKind := schema.GroupVersionKind{Group: vcjob.GroupName, Version: vcjob.Version, Kind: vcjob.CronJobKind}
	tmpl := cj.Spec.JobTemplate.DeepCopy()
	annotations := maps.Clone(tmpl.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[vcjob.CronJobScheduledTimeKey] = scheduled.In(zone).Format(time.RFC3339)
	return &vcjob.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind},
		ObjectMeta: metav1.ObjectMeta{
			Name:            JobName(cj.Name, scheduled),
			Namespace:       cj.Namespace,
			Labels:          tmpl.Labels,
			Annotations:     annotations,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cj, cronJobKind)},
		},
		Spec: tmpl.Spec,
	}
}
