package vcjob_test

import (
	"fmt"

	"github.com/vcjob/vcjob"
)

func ExampleValidateJob() {
	manifest := []byte(`
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
	job, err := vcjob.DecodeJob(manifest) // strict YAML or JSON
	if err != nil {
		fmt.Println(err)
		return
	}
	vcjob.SetDefaults(job) // what Volcano's mutating webhook writes
	fmt.Println("queue:", job.Spec.Queue, "maxRetry:", job.Spec.MaxRetry)
	for _, e := range vcjob.ValidateJob(job) {
		fmt.Println(e)
	}
	// Output:
	// queue: default maxRetry: 3
	// spec.tasks[1].name: Duplicate value: "worker"
}

func ExampleDecodeJob_unknownField() {
	_, err := vcjob.DecodeJob([]byte(`
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: typo}
spec:
  tasks:
    - name: worker
      template:
        spec:
          containers: [{name: main, imagePullPolicy: Always, imag: busybox}]
`))
	fmt.Println(err)
	// Output:
	// vcjob: document at line 1: job "typo": strict decoding error: unknown field "spec.tasks[0].template.spec.containers[0].imag"
}
