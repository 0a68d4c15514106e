package delay_test

import (
	"fmt"
	"time"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/delay"
	"github.com/vcjob/vcjob/request"
)

func Example() {
	q := delay.New()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

	// A pod stays Pending; its task's policy {event: PodPending, action:
	// RestartPod, timeout: 30s} schedules a restart.
	pending := request.Request{Namespace: "ns", JobName: "j", TaskName: "w", PodName: "j-w-0", PodUID: "u0", Event: vcjob.PodPendingEvent}
	q.Register(pending, vcjob.RestartPodAction, request.TargetOf(vcjob.RestartPodAction, pending), 30*time.Second, start)

	// Another pod fails; the job's policy {event: PodFailed, action:
	// RestartJob, timeout: 1m} schedules a job restart.
	failed := request.Request{Namespace: "ns", JobName: "j", TaskName: "w", PodName: "j-w-1", PodUID: "u1", Event: vcjob.PodFailedEvent}
	q.Register(failed, vcjob.RestartJobAction, request.TargetOf(vcjob.RestartJobAction, failed), time.Minute, start)

	next, _ := q.Next()
	fmt.Println("sleep until", next.Sub(start))

	// The pending pod starts running after 10s: its restart is cancelled.
	running := pending
	running.Event = vcjob.PodRunningEvent
	for _, e := range q.CancelForPodEvent(running) {
		fmt.Println("cancelled", e.Action, "for", e.Request.PodName)
	}

	// A minute in, the job restart is due; after it ran, same-level
	// cleanup follows.
	for _, e := range q.Due(start.Add(time.Minute)) {
		fmt.Println("run", e.Action, "registered for", e.Request.Event)
		q.CleanupAfter(e.Request.Namespace, e.Request.JobName, e.Action, e.Target)
	}
	fmt.Println("pending:", q.Len())
	// Output:
	// sleep until 30s
	// cancelled RestartPod for j-w-0
	// run RestartJob registered for PodFailed
	// pending: 0
}
