package jobinfo_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/jobinfo"
)

// An Info counts its pods as they come and go, and lends snapshots that
// stay as they were while it moves on.
func ExampleInfo_Lease() {
	job := &vcjob.Job{ObjectMeta: metav1.ObjectMeta{Name: "train"},
		Spec: vcjob.JobSpec{Tasks: []vcjob.TaskSpec{{Name: "worker", Replicas: 3}}}}
	pod := func(i int, phase corev1.PodPhase) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: vcjob.PodName("train", "worker", i),
			Annotations: map[string]string{vcjob.TaskSpecKey: "worker"}}, Status: corev1.PodStatus{Phase: phase}}
	}
	ji, _ := jobinfo.New(job, pod(0, corev1.PodRunning), pod(1, corev1.PodPending))

	snap := ji.Lease()
	_ = ji.AddPod(pod(1, corev1.PodRunning)) // a new object: pods are never changed in place
	fmt.Println("snapshot running:", snap.Task("worker").Counts().Phases.Running)
	snap.Release() // from here on ji changes its maps in place

	c := ji.Task("worker").Counts()
	fmt.Println("running:", c.Phases.Running, "missing:", job.Spec.Tasks[0].Replicas-c.InRange)
	// Output:
	// snapshot running: 1
	// running: 2 missing: 1
}
