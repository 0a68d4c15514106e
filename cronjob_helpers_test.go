package vcjob

import (
	_ "time/tzdata" // the zone tests must not depend on the machine's zoneinfo

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// cronManifest is a complete CronJob manifest: nightly at 02:30 New York
// time, one 2-pod task.
const cronManifest = `apiVersion: batch.volcano.sh/v1alpha1
kind: CronJob
metadata:
  name: nightly
  namespace: ml
spec:
  schedule: "30 2 * * *"
  timeZone: America/New_York
  startingDeadlineSeconds: 600
  concurrencyPolicy: Forbid
  successfulJobsHistoryLimit: 5
  failedJobsHistoryLimit: 2
  jobTemplate:
    metadata:
      labels:
        team: ml
    spec:
      minAvailable: 2
      schedulerName: volcano
      tasks:
        - name: worker
          replicas: 2
          template:
            spec:
              restartPolicy: Never
              containers:
                - name: main
                  image: busybox
                  resources:
                    requests:
                      cpu: "1"
`

// validCronJob is a defaulted cronjob that passes validation.
func validCronJob() *CronJob {
	cj := &CronJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: APIVersion, Kind: CronJobKind},
		ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "ml"},
		Spec: CronJobSpec{
			Schedule: "30 2 * * *",
			JobTemplate: JobTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"team": "ml"}},
				Spec: JobSpec{Tasks: []TaskSpec{{
					Name:     "worker",
					Replicas: 2,
					Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
						Name:  "main",
						Image: "busybox",
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU: resource.MustParse("1"),
						}},
					}}}},
				}}},
			},
		},
	}
	SetCronJobDefaults(cj)
	return cj
}
