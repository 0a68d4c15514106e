package plugins_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/plugins"
)

func ExampleRegistry_Build() {
	job := &vcjob.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "ddp", Namespace: "ml"},
		Spec: vcjob.JobSpec{
			Plugins: map[string][]string{"pytorch": {"--port=29500"}, "svc": nil},
			Tasks: []vcjob.TaskSpec{
				{Name: "master", Replicas: 1, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "trainer"}}}}},
				{Name: "worker", Replicas: 2, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "trainer"}}}}},
			},
		},
	}
	ps, err := plugins.NewRegistry().Build(job)
	if err != nil {
		panic(err)
	}
	for _, p := range ps {
		objs, err := p.OnJobAdd(job)
		if err != nil {
			panic(err)
		}
		for _, o := range objs.Apply {
			fmt.Printf("%s applies %T\n", p.Name(), o)
		}
	}
	fmt.Println(job.Status.ControlledResources)

	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "ddp-worker-1", Annotations: map[string]string{vcjob.TaskSpecKey: "worker"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "trainer"}}},
	}
	for _, p := range ps {
		if err := p.OnPodCreate(pod, job); err != nil {
			panic(err)
		}
	}
	fmt.Println(pod.Spec.Hostname + "." + pod.Spec.Subdomain)
	for _, e := range pod.Spec.Containers[0].Env {
		if e.ValueFrom == nil {
			fmt.Printf("%s=%s\n", e.Name, e.Value)
		} else {
			fmt.Printf("%s from ConfigMap %s\n", e.Name, e.ValueFrom.ConfigMapKeyRef.Name)
		}
	}
	// Output:
	// svc applies *v1.ConfigMap
	// svc applies *v1.Service
	// svc applies *v1.NetworkPolicy
	// map[plugin-pytorch:pytorch plugin-svc:svc]
	// ddp-worker-1.ddp
	// MASTER_ADDR=ddp-master-0.ddp
	// MASTER_PORT=29500
	// WORLD_SIZE=3
	// RANK=2
	// VC_MASTER_HOSTS from ConfigMap ddp-svc
	// VC_MASTER_NUM from ConfigMap ddp-svc
	// VC_WORKER_HOSTS from ConfigMap ddp-svc
	// VC_WORKER_NUM from ConfigMap ddp-svc
}
