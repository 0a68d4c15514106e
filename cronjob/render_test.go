package cronjob

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

func TestJobName(t *testing.T) {
	for _, tc := range []struct {
		scheduled time.Time
		want      string
	}{
		{at("2026-01-06T00:00:00Z"), "nightly-29460960"},
		{at("2026-01-06T00:00:59Z"), "nightly-29460960"}, // minutes, truncated
		{at("2026-01-06T09:00:00+09:00"), "nightly-29460960"},
		{at("1970-01-01T00:01:00Z"), "nightly-1"},
	} {
		assert.Equal(t, tc.want, JobName("nightly", tc.scheduled), "%s", tc.scheduled)
	}
}

func TestRenderJob(t *testing.T) {
	cj := cronJob(every5, created)
	cj.Spec.JobTemplate.Annotations[vcjob.CronJobScheduledTimeKey] = "stale"
	ny, err := time.LoadLocation("America/New_York")
	require.NoError(t, err)
	scheduled := at("2026-07-04T16:00:00Z")

	job := renderJob(cj, scheduled, ny)

	assert.Equal(t, metav1.TypeMeta{APIVersion: "batch.volcano.sh/v1alpha1", Kind: "Job"}, job.TypeMeta)
	assert.Equal(t, JobName("nightly", scheduled), job.Name)
	assert.Equal(t, "ml", job.Namespace)
	assert.Equal(t, map[string]string{"team": "ml"}, job.Labels)
	assert.Equal(t, map[string]string{
		"note":                        "from the template",
		vcjob.CronJobScheduledTimeKey: "2026-07-04T12:00:00-04:00",
	}, job.Annotations)
	assert.Equal(t, []metav1.OwnerReference{{
		APIVersion: "batch.volcano.sh/v1alpha1", Kind: "CronJob", Name: "nightly", UID: "cj-uid",
		Controller: new(true), BlockOwnerDeletion: new(true),
	}}, job.OwnerReferences)
	assert.Equal(t, cj.Spec.JobTemplate.Spec, job.Spec)
	assert.True(t, IsControlledBy(job, cj))

	// The job shares nothing with the template.
	job.Labels["team"] = "changed"
	job.Spec.Tasks[0].Name = "changed"
	assert.Equal(t, "ml", cj.Spec.JobTemplate.Labels["team"])
	assert.Equal(t, "worker", cj.Spec.JobTemplate.Spec.Tasks[0].Name)
	assert.Equal(t, "stale", cj.Spec.JobTemplate.Annotations[vcjob.CronJobScheduledTimeKey])
}

func TestRenderJobWithoutTemplateMetadata(t *testing.T) {
	cj := cronJob(every5, created)
	cj.Spec.JobTemplate.ObjectMeta = metav1.ObjectMeta{}
	job := renderJob(cj, t0005, time.UTC)
	assert.Nil(t, job.Labels)
	assert.Equal(t, map[string]string{vcjob.CronJobScheduledTimeKey: "2026-01-05T00:05:00Z"}, job.Annotations)
}
