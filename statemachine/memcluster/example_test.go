package memcluster_test

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/manifest"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
	"github.com/vcjob/vcjob/validation"
)

const jobYAML = `
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
          restartPolicy: Never
          containers: [{name: pytorch, image: pytorch:2}]
`

// The README's embedding example: decode, default, validate, then resolve
// each request and run it through the state machine on the in-memory
// cluster, playing the scheduler (admit the PodGroup) and the kubelet (fail
// a pod) in between.
func Example() {
	job, err := manifest.DecodeJob([]byte(jobYAML)) // strict: unknown fields are errors
	if err != nil {
		panic(err)
	}
	vcjob.SetDefaults(job) // what Volcano's mutating webhook writes
	if errs := validation.ValidateJob(job); len(errs) > 0 {
		panic(errs.ToAggregate()) // field paths, every problem at once
	}
	now := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	cluster := memcluster.New(now) // or your client-backed statemachine.Cluster
	cluster.PutJob(job)

	// One controller step: resolve a request, execute the action.
	step := func(req request.Request) {
		req.Namespace, req.JobName = job.Namespace, job.Name
		ji, err := cluster.JobInfo(job.Namespace, job.Name)
		if err != nil {
			panic(err)
		}
		d := policy.Resolve(ji.Job, req) // action, delay, target and the rule that decided
		if d.Delay == 0 {                // else a controller queues it (package delay)
			if _, err := statemachine.Execute(context.Background(), cluster, ji, d.Action, d.Target); err != nil {
				panic(err)
			}
		}
		fmt.Printf("%-9s -> %-10s by %-34s phase %s\n", req.Event, d.Action, d.Rule, cluster.Job(job.Namespace, job.Name).Status.State.Phase)
	}
	step(request.Request{Event: vcjob.OutOfSyncEvent}) // a new job: its PodGroup is created, no pods yet
	cluster.SetPodGroupPhase("ml", podgroup.Name(job), podgroup.PhaseInqueue)
	step(request.Request{Event: vcjob.OutOfSyncEvent}) // the gang is admitted: the pods are created
	if _, err := cluster.FailPod("ml", "mnist-ddp-worker-1", 137); err != nil {
		panic(err)
	}
	step(request.Request{Event: vcjob.PodFailedEvent, TaskName: "worker", PodName: "mnist-ddp-worker-1", ExitCode: 137})
	fmt.Println("created:", len(cluster.Journal.Created), "deleted:", cluster.Journal.Deleted)
	// Output:
	// OutOfSync -> SyncJob    by internal event                     phase Pending
	// OutOfSync -> SyncJob    by internal event                     phase Pending
	// PodFailed -> RestartPod by task "worker" policy 0 (exit code) phase Restarting
	// created: 2 deleted: [mnist-ddp-worker-1]
}
