package testjob

import (
	"testing"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/manifest"
)

// YAML is the job's manifest.
const YAML = `apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: demo
  namespace: ns
spec:
  minAvailable: 2
  maxRetry: 2
  policies:
  - event: PodPending
    action: AbortJob
    timeout: 50ms
  tasks:
  - name: worker
    replicas: 2
    template:
      spec:
        containers:
        - name: c
          image: busybox
`

// New is the job, defaulted, with UID job-uid and resourceVersion 1, in
// phase (its status.minAvailable set when the phase is).
func New(t testing.TB, phase vcjob.JobPhase) *vcjob.Job {
	t.Helper()
	job, err := manifest.DecodeJob([]byte(YAML))
	if err != nil {
		t.Fatal(err)
	}
	vcjob.SetDefaults(job)
	job.UID, job.ResourceVersion = "job-uid", "1"
	job.Status.State.Phase = phase
	if phase != "" {
		job.Status.MinAvailable = job.Spec.MinAvailable
	}
	return job
}
