package cache_test

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"
)

func i32(v int32) *int32 { return &v }

func testJob(name string, rv string) *vcjob.Job {
	return &vcjob.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name), ResourceVersion: rv},
		Spec: vcjob.JobSpec{MinAvailable: 3, Tasks: []vcjob.TaskSpec{
			{Name: "w", Replicas: 2, MaxRetry: 2},
			{Name: "ps", Replicas: 1},
		}},
	}
}

// testPod is a pod of job in task at index, as the controller creates it.
func testPod(job, task string, index int, phase corev1.PodPhase) *corev1.Pod {
	yes := true
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: vcjob.PodName(job, task, index), Namespace: "ns", UID: types.UID("uid-" + vcjob.PodName(job, task, index)),
			ResourceVersion: "1",
			Labels:          map[string]string{vcjob.TaskIndexKey: strconv.Itoa(index)},
			Annotations: map[string]string{
				vcjob.JobNameKey: job, vcjob.TaskSpecKey: task, vcjob.JobVersionKey: "1", vcjob.TaskIndexKey: strconv.Itoa(index),
			},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind, Name: job, UID: types.UID("uid-" + job), Controller: &yes}},
		},
		Status: corev1.PodStatus{Phase: phase},
	}
}

// next is pod with a new resourceVersion and the changes applied.
func next(pod *corev1.Pod, change func(*corev1.Pod)) *corev1.Pod {
	p := pod.DeepCopy()
	rv, _ := strconv.Atoi(p.ResourceVersion)
	p.ResourceVersion = strconv.Itoa(rv + 1)
	change(p)
	return p
}
