package memcluster_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
	"github.com/vcjob/vcjob/validation"
)

const manifest = `
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: mnist-ddp, namespace: ml, uid: u1}
spec:
  tasks:
    - name: worker
      replicas: 2
      policies:
        - exitCode: 137
          action: RestartPod
      template:
        spec:
          containers: [{name: pytorch, image: pytorch:2}]
`

// The README's embedding example: decode, default, validate, then resolve
// a request and run it through the state machine on the in-memory cluster.
func Example() {
	job, err := vcjob.DecodeJob([]byte(manifest))
	if err != nil {
		panic(err)
	}
	vcjob.SetDefaults(job)
	if errs := validation.ValidateJob(job); len(errs) > 0 {
		panic(errs.ToAggregate())
	}
	now := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	cluster := memcluster.New(now)
	cluster.PutJob(job)

	run := func(req vcjob.Request) {
		req.Namespace, req.JobName = "ml", job.Name
		ji, _ := cluster.JobInfo("ml", job.Name)
		d := policy.Resolve(ji.Job, req)
		if d.Delay == 0 {
			if _, err := statemachine.Execute(cluster, ji, d.Action, d.Target); err != nil {
				panic(err)
			}
		}
		fmt.Printf("%-9s -> %-10s by %-34s phase %s\n", req.Event, d.Action, d.Rule, cluster.Job("ml", job.Name).Status.State.Phase)
	}
	run(vcjob.Request{Event: vcjob.OutOfSyncEvent}) // the job is new
	cluster.SetPodGroupPhase("ml", podgroup.Name(job), podgroup.PhaseRunning)
	run(vcjob.Request{Event: vcjob.OutOfSyncEvent}) // the gang is admitted: pods are created
	for _, p := range cluster.Pods("ml", job.Name) {
		p.Status.Phase = corev1.PodRunning
		cluster.PutPod(p)
	}
	run(vcjob.Request{Event: vcjob.PodRunningEvent, TaskName: "worker", PodName: "mnist-ddp-worker-1"})
	run(vcjob.Request{Event: vcjob.PodFailedEvent, TaskName: "worker", PodName: "mnist-ddp-worker-1", ExitCode: 137})
	fmt.Println("deleted:", cluster.Journal.Deleted)
	// Output:
	// OutOfSync -> SyncJob    by internal event                     phase Pending
	// OutOfSync -> SyncJob    by internal event                     phase Pending
	// PodRunning -> SyncJob    by internal event                     phase Running
	// PodFailed -> RestartPod by task "worker" policy 0 (exit code) phase Restarting
	// deleted: [mnist-ddp-worker-1]
}
