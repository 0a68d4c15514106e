package cronjob

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

func TestJobStateOf(t *testing.T) {
	j := &vcjob.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name: "nightly-1", Namespace: "ml", UID: "u",
			CreationTimestamp: metav1.NewTime(t0005),
			Annotations:       map[string]string{vcjob.CronJobScheduledTimeKey: "2026-01-04T19:05:00-05:00"},
		},
		Status: vcjob.JobStatus{State: vcjob.JobState{Phase: vcjob.Completed, LastTransitionTime: metav1.NewTime(t0010)}},
	}
	got := JobStateOf(j)
	assert.Equal(t, "nightly-1", got.Name)
	assert.Equal(t, "ml", got.Namespace)
	assert.Equal(t, "u", string(got.UID))
	assert.True(t, t0005.Equal(got.CreationTimestamp))
	assert.Equal(t, vcjob.Completed, got.Phase)
	assert.True(t, t0005.Equal(got.ScheduledTime), "annotation read: %s", got.ScheduledTime)
	assert.True(t, t0010.Equal(got.FinishedAt))

	j.Annotations[vcjob.CronJobScheduledTimeKey] = "yesterday"
	assert.True(t, JobStateOf(j).ScheduledTime.IsZero(), "an unreadable annotation reads as absent")
	delete(j.Annotations, vcjob.CronJobScheduledTimeKey)
	assert.True(t, JobStateOf(j).ScheduledTime.IsZero())
}

func TestIsControlledBy(t *testing.T) {
	cj := cronJob(every5, created)
	owned := renderJob(cj, t0005, cj.CreationTimestamp.Location())
	for _, tc := range []struct {
		name   string
		mutate func(j *vcjob.Job, cj *vcjob.CronJob)
		want   bool
	}{
		{"its own job", func(*vcjob.Job, *vcjob.CronJob) {}, true},
		{"a cronjob without a UID yet matches by name", func(_ *vcjob.Job, cj *vcjob.CronJob) { cj.UID = "" }, true},
		{"another cronjob of the same name (other UID)", func(_ *vcjob.Job, cj *vcjob.CronJob) { cj.UID = "other" }, false},
		{"another cronjob", func(_ *vcjob.Job, cj *vcjob.CronJob) { cj.Name = "weekly" }, false},
		{"another namespace", func(j *vcjob.Job, _ *vcjob.CronJob) { j.Namespace = "other" }, false},
		{"a Kubernetes CronJob", func(j *vcjob.Job, _ *vcjob.CronJob) { j.OwnerReferences[0].APIVersion = "batch/v1" }, false},
		{"not the controller", func(j *vcjob.Job, _ *vcjob.CronJob) { j.OwnerReferences[0].Controller = new(false) }, false},
		{"no owner", func(j *vcjob.Job, _ *vcjob.CronJob) { j.OwnerReferences = nil }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, c := owned.DeepCopy(), cj.DeepCopy()
			tc.mutate(j, c)
			assert.Equal(t, tc.want, IsControlledBy(j, c))
		})
	}
}

func TestReconcileActive(t *testing.T) {
	running, done := job(t0000, vcjob.Running), job(t0005, vcjob.Completed)
	jobs := []JobState{running, done, {Name: "stray", UID: "s", Phase: vcjob.Pending}}
	idx := indexJobs(jobs)

	kept, unexpected := reconcileActive([]corev1.ObjectReference{
		ref(done),                         // finished: dropped
		ref(JobState{Name: "missing"}),    // gone: dropped
		ref(JobState{Name: running.Name}), // by name, UID filled in
		ref(running),                      // listed twice: once is enough
	}, jobs, idx)
	assert.Equal(t, []corev1.ObjectReference{ref(running)}, kept)
	assert.Equal(t, []string{"stray"}, unexpected)
}

// TestNilJobs: a nil job has the zero state and no controller.
func TestNilJobs(t *testing.T) {
	if got := JobStateOf(nil); got != (JobState{}) {
		t.Errorf("JobStateOf(nil) = %+v", got)
	}
	if IsControlledBy(nil, &vcjob.CronJob{}) || IsControlledBy(&vcjob.Job{}, nil) {
		t.Error("a nil job or cronjob controls or is controlled")
	}
}
