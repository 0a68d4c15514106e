package cronjob_test

import (
	"fmt"
	"time"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/cronjob"
)

// One sync of a nightly cronjob whose previous run is still going: Forbid
// holds the new run back until it finishes.
func ExampleDecide() {
	cj, err := vcjob.DecodeCronJob([]byte(`apiVersion: batch.volcano.sh/v1alpha1
kind: CronJob
metadata: {name: nightly, namespace: ml, creationTimestamp: "2026-01-01T00:00:00Z"}
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
`))
	if err != nil {
		panic(err)
	}
	vcjob.SetCronJobDefaults(cj)
	yesterday := cronjob.JobState{Name: "nightly-29458530", UID: "u1", Phase: vcjob.Running}

	now := time.Date(2026, 1, 5, 7, 30, 0, 0, time.UTC) // 02:30 in New York
	d := cronjob.Decide(cj, []cronjob.JobState{yesterday}, now)
	fmt.Println("due:", d.Due.Format(time.RFC3339), "skipped:", d.Skipped)

	yesterday.Phase = vcjob.Completed // an hour later, it finishes
	d = cronjob.Decide(cj, []cronjob.JobState{yesterday}, now.Add(time.Hour))
	fmt.Println("create:", d.Create.Name, d.Create.Annotations[vcjob.CronJobScheduledTimeKey])
	fmt.Println("delete:", d.Delete, "requeue after:", d.RequeueAfter)
	// Output:
	// due: 2026-01-05T02:30:00-05:00 skipped: forbid-concurrent
	// create: nightly-29459970 2026-01-05T02:30:00-05:00
	// delete: [] requeue after: 23h0m0.1s
}
