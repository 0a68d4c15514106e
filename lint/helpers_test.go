package lint_test

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

func timeout(d time.Duration) *metav1.Duration { return &metav1.Duration{Duration: d} }

// job has task "worker" with its own policies and job-level policies; the
// cases below pick the ones they need.
func job(taskPolicies, jobPolicies []vcjob.LifecyclePolicy) *vcjob.Job {
	return &vcjob.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "uid-j"},
		Spec: vcjob.JobSpec{
			Tasks:    []vcjob.TaskSpec{{Name: "worker", Replicas: 2, Policies: taskPolicies}, {Name: "ps", Replicas: 1}},
			Policies: jobPolicies,
		},
		Status: vcjob.JobStatus{Version: 2},
	}
}
func code(c int32) *int32 { return &c }
