package cronjob

import (
	"maps"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

// JobName is the name of the job for the run scheduled at t:
// <cronjob>-<t in unix minutes>. The same run always gets the same name, so
// that the name works as a lock against starting it twice.
func JobName(cronJob string, scheduled time.Time) string {
	return cronJob + "-" + strconv.FormatInt(scheduled.Unix()/60, 10)
}

// jobFor is the job Volcano creates for the run scheduled at t, exactly as
// it passes it to Create: the name, the template's labels and annotations
// (both always set, empty when the template has none) with the scheduled
// time added as an RFC 3339 annotation, a controller reference to the
// cronjob, and the template's spec. It has no namespace (the create's
// namespace is the cronjob's), no apiVersion or kind.
//
// The annotation is in spec.timeZone; without one it is in UTC, even
// though the schedule then runs in the controller's zone (Volcano loads
// the zone "" for an unset timeZone). Volcano writes it when its
// CronVolcanoJobSupport feature gate is on, as it was where the vectors
// were recorded.
func jobFor(cj *vcjob.CronJob, scheduled time.Time, local *time.Location) *vcjob.Job {
	tmpl := &cj.Spec.JobTemplate
	labels := make(map[string]string, len(tmpl.Labels))
	maps.Copy(labels, tmpl.Labels)
	annotations := make(map[string]string, len(tmpl.Annotations)+1)
	maps.Copy(annotations, tmpl.Annotations)
	// The zone loaded before the schedule was read; UTC is only a
	// fallback that cannot be reached.
	var name string
	if cj.Spec.TimeZone != nil {
		name = *cj.Spec.TimeZone
	}
	zone, err := loadZone(name, local)
	if err != nil {
		zone = time.UTC
	}
	annotations[vcjob.CronJobScheduledTimeKey] = scheduled.In(zone).Format(time.RFC3339)
	job := &vcjob.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name:            JobName(cj.Name, scheduled),
			Labels:          labels,
			Annotations:     annotations,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cj, vcjob.SchemeGroupVersion.WithKind(vcjob.CronJobKind))},
		},
	}
	tmpl.Spec.DeepCopyInto(&job.Spec)
	return job
}
