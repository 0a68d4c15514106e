package validation_test

import (
	"fmt"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/manifest"
	"github.com/vcjob/vcjob/validation"
)

func ExampleValidateJob() {
	data := []byte(`
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: training
spec:
  minAvailable: 3
  policies:
    - event: PodEvicted
      action: RestartJob
  tasks:
    - name: worker
      replicas: 2
      template:
        spec:
          containers: [{name: main, image: busybox}]
    - name: worker
      replicas: 2
      template:
        spec:
          containers: [{name: main, image: busybox}]
`)
	job, err := manifest.DecodeJob(data) // strict YAML or JSON
	if err != nil {
		fmt.Println(err)
		return
	}
	vcjob.SetDefaults(job) // what Volcano's mutating webhook writes
	fmt.Println("queue:", job.Spec.Queue, "maxRetry:", job.Spec.MaxRetry)
	for _, e := range validation.ValidateJob(job) {
		fmt.Println(e)
	}
	// Output:
	// queue: default maxRetry: 3
	// spec.tasks[1].name: Duplicate value: "worker"
}
