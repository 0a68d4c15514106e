package job

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

// Which status writes may wait. The job controller's tests
// (statuses_test.go there) run the held-back writes on a worker.
func TestCoalescingRule(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(1500 * time.Millisecond))
	base := func(phase vcjob.JobPhase) vcjob.JobStatus {
		return vcjob.JobStatus{
			State: vcjob.JobState{Phase: phase, LastTransitionTime: t0}, MinAvailable: 2, Version: 3, RetryCount: 1,
			Running: 1, Pending: 1,
			TaskStatusCount:     map[string]vcjob.TaskState{"worker": {Phase: map[corev1.PodPhase]int32{corev1.PodRunning: 1, corev1.PodPending: 1}}},
			ControlledResources: map[string]string{"plugin-svc": "svc"},
			Conditions:          []vcjob.JobCondition{{Status: vcjob.Pending, LastTransitionTime: &t0}, {Status: phase, LastTransitionTime: &t0}},
		}
	}
	cases := []struct {
		name   string
		phase  vcjob.JobPhase
		change func(*vcjob.JobStatus)
		want   bool
	}{
		{"finished job's kill bumps the version", vcjob.Completed, func(s *vcjob.JobStatus) { s.Version++ }, true},
		{"finished job's kill recounts", vcjob.Failed, func(s *vcjob.JobStatus) { s.Version++; s.Running = 0; s.Terminating = 1 }, true},
		{"running job's counts move", vcjob.Running, func(s *vcjob.JobStatus) {
			s.Running, s.Pending = 2, 0
			s.TaskStatusCount = map[string]vcjob.TaskState{"worker": {Phase: map[corev1.PodPhase]int32{corev1.PodRunning: 2}}}
		}, true},
		{"a sync stamps the state and its condition", vcjob.Running, func(s *vcjob.JobStatus) {
			s.Running = 2
			s.State.LastTransitionTime = t1
			s.Conditions = []vcjob.JobCondition{s.Conditions[0], {Status: vcjob.Running, LastTransitionTime: &t1}}
		}, true},
		{"phase changes", vcjob.Running, func(s *vcjob.JobStatus) { s.State.Phase = vcjob.Completed }, false},
		{"finished phase changes", vcjob.Completed, func(s *vcjob.JobStatus) { s.State.Phase = vcjob.Running }, false},
		{"running job's version bumps", vcjob.Running, func(s *vcjob.JobStatus) { s.Version++ }, false},
		{"retryCount moves", vcjob.Restarting, func(s *vcjob.JobStatus) { s.RetryCount++ }, false},
		{"a condition is added", vcjob.Running, func(s *vcjob.JobStatus) {
			s.Conditions = append(s.Conditions, vcjob.JobCondition{Status: vcjob.Restarting, LastTransitionTime: &t1})
		}, false},
		{"a condition changes its phase", vcjob.Running, func(s *vcjob.JobStatus) {
			s.Conditions = []vcjob.JobCondition{{Status: vcjob.Restarting, LastTransitionTime: &t0}, s.Conditions[1]}
		}, false},
		{"minAvailable moves", vcjob.Running, func(s *vcjob.JobStatus) { s.MinAvailable = 1 }, false},
		{"a plugin records itself", vcjob.Pending, func(s *vcjob.JobStatus) { s.ControlledResources["plugin-ssh"] = "ssh" }, false},
		{"state reason changes", vcjob.Running, func(s *vcjob.JobStatus) { s.State.Reason = "why" }, false},
		{"running duration set", vcjob.Running, func(s *vcjob.JobStatus) { s.RunningDuration = &metav1.Duration{Duration: time.Second} }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			old := base(c.phase)
			next := *old.DeepCopy()
			c.change(&next)
			if got := coalescing(&old, &next); got != c.want {
				t.Errorf("coalescing = %v, want %v", got, c.want)
			}
		})
	}
}
