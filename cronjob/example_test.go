package cronjob_test

import (
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/cronjob"
	"github.com/vcjob/vcjob/manifest"
)

const nightly = `apiVersion: batch.volcano.sh/v1alpha1
kind: CronJob
metadata: {name: nightly, namespace: ml, uid: cj-1, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  schedule: "30 2 * * *"
  timeZone: America/New_York
  concurrencyPolicy: Forbid
  jobTemplate:
    spec:
      tasks: [{name: worker, replicas: 1}]
status:
  lastScheduleTime: "2026-01-04T07:30:00Z"
  active: [{kind: Job, namespace: ml, name: nightly-29458530, uid: u1}]
`

// One sync of a nightly cronjob whose previous run is still going: Forbid
// holds the new run back until it finishes.
func ExampleDecide() {
	cj, err := manifest.DecodeCronJob([]byte(nightly))
	if err != nil {
		panic(err)
	}
	yesterday := &vcjob.Job{ObjectMeta: metav1.ObjectMeta{
		Name: "nightly-29458530", Namespace: "ml", UID: "u1",
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cj, vcjob.SchemeGroupVersion.WithKind("CronJob"))},
	}}
	yesterday.Status.State.Phase = vcjob.Running

	now := time.Date(2026, 1, 5, 7, 30, 0, 0, time.UTC) // 02:30 in New York
	d := cronjob.Decide(cj, []*vcjob.Job{yesterday}, now)
	fmt.Println("due:", d.Due.Format(time.RFC3339), "skipped:", d.Skipped, "requeue after:", *d.RequeueAfter)
	fmt.Println(d.Events[0])

	yesterday.Status.State.Phase = vcjob.Completed // an hour later it finishes
	d = cronjob.Decide(cj, []*vcjob.Job{yesterday}, now.Add(time.Hour))
	for _, c := range d.Calls {
		fmt.Println(c)
	}
	for _, e := range d.Events {
		fmt.Println(e)
	}
	fmt.Println("scheduled:", d.JobToCreate().Annotations[vcjob.CronJobScheduledTimeKey], "requeue after:", *d.RequeueAfter)
	// Output:
	// due: 2026-01-05T02:30:00-05:00 skipped: forbid-concurrent requeue after: 24h0m0.1s
	// Warning ForbidConcurrent Skipping job creation because another job is already running
	// create jobs ml/nightly-29459970
	// update cronjobs/status ml/nightly
	// Normal SawCompletedJob Saw completed job: nightly-29458530 in active, remove
	// Normal SuccessfulCreate Created job nightly-29459970 for CronJob ml/nightly
	// scheduled: 2026-01-05T02:30:00-05:00 requeue after: 23h0m0.1s
}

// A controller makes the calls one by one and answers the decision when
// the API server says something the lister did not foresee: here the
// create is refused, so Volcano records FailedCreate, writes no status
// and fails the sync.
func ExampleDecision_Answer() {
	cj, err := manifest.DecodeCronJob([]byte(nightly))
	if err != nil {
		panic(err)
	}
	cj.Status = vcjob.CronJobStatus{}
	now := time.Date(2026, 1, 5, 7, 30, 0, 0, time.UTC)

	d := cronjob.Decide(cj, nil, now)
	for i := 0; i < len(d.Calls); i++ {
		if d.Calls[i].Verb == cronjob.VerbCreate {
			d = d.Answer(i, cronjob.Answer{Err: errors.New(`admission webhook "validatejob.volcano.sh" denied the request`)})
		}
	}
	fmt.Println(len(d.Calls), "call; status written:", d.WriteStatus, "requeue:", d.RequeueAfter)
	fmt.Println(d.Events[0])
	fmt.Println("error:", d.Err)
	// Output:
	// 1 call; status written: false requeue: <nil>
	// Warning FailedCreate Failed to create job: admission webhook "validatejob.volcano.sh" denied the request
	// error: create job ml/nightly-29459970: admission webhook "validatejob.volcano.sh" denied the request
}
