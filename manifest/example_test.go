package manifest_test

import (
	"fmt"

	"github.com/vcjob/vcjob/manifest"
)

func ExampleDecodeJob_unknownField() {
	_, err := manifest.DecodeJob([]byte(`
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
	// line 10: job "typo": spec.tasks[0].template.spec.containers[0].imag: unknown field
}
