package cronjob

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

func TestJobName(t *testing.T) {
	assert.Equal(t, "nightly-29459525", JobName("nightly", t0005))
	// The same instant in any zone is the same run.
	ny, _ := time.LoadLocation("America/New_York")
	assert.Equal(t, JobName("nightly", t0005), JobName("nightly", t0005.In(ny)))
}

// The job Volcano passes to Create, field by field.
func TestJobFor(t *testing.T) {
	cj := cronJob(every5, withZone("America/New_York"))
	want := &vcjob.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name:   "nightly-29459525",
			Labels: map[string]string{"team": "ml"},
			Annotations: map[string]string{
				"note":                        "from the template",
				vcjob.CronJobScheduledTimeKey: "2026-01-04T19:05:00-05:00",
			},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: vcjob.APIVersion, Kind: vcjob.CronJobKind, Name: "nightly", UID: "cj-uid",
				Controller: new(true), BlockOwnerDeletion: new(true),
			}},
		},
		Spec: cj.Spec.JobTemplate.Spec,
	}
	got := jobFor(cj, t0005, time.UTC)
	assert.Equal(t, want, got)

	got.Spec.Tasks[0].Replicas = 9
	got.Labels["team"] = "changed"
	assert.Equal(t, int32(2), cj.Spec.JobTemplate.Spec.Tasks[0].Replicas, "the spec is a copy")
	assert.Equal(t, "ml", cj.Spec.JobTemplate.Labels["team"], "the labels are a copy")

	// A template without labels or annotations still gives both maps;
	// without a timeZone the annotation is in UTC.
	bare := cronJob(every5)
	bare.Spec.JobTemplate.ObjectMeta = metav1.ObjectMeta{}
	got = jobFor(bare, t0005, time.FixedZone("controller", 3600))
	assert.Equal(t, map[string]string{}, got.Labels)
	assert.Equal(t, map[string]string{vcjob.CronJobScheduledTimeKey: "2026-01-05T00:05:00Z"}, got.Annotations)
}
