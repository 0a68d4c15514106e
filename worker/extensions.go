package worker

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/request"
)

// The events of the delayed actions the step registers for the policy
// extensions (policy.Extensions): a deadline, and the end of a restart
// backoff. They are held by pseudo pod UIDs, so no pod event cancels them.
const (
	DeadlineEvent vcjob.Event = "DeadlineExceeded"
	BackoffEvent  vcjob.Event = "BackoffElapsed"
)

const (
	deadlineUID types.UID = "vcjob.dev/deadline"
	backoffUID  types.UID = "vcjob.dev/backoff"
)

// ending reports whether a job in phase is finished or on its way there:
// a deadline has nothing left to do.
func ending(phase vcjob.JobPhase) bool {
	switch phase {
	case vcjob.Completing, vcjob.Completed, vcjob.Terminating, vcjob.Terminated,
		vcjob.Aborting, vcjob.Aborted, vcjob.Failed:
		return true
	}
	return false
}

// extend registers, after a step on job, the delayed actions its policy
// extensions ext need: its deadline while it is not ending, and a SyncJob
// at the end of a restart backoff that held back its pods. A registration
// already pending is dropped by the queue, so this is idempotent. A job
// without extensions never comes here.
func (s *Step) extend(job *vcjob.Job, ext *policy.Extensions, rec *Record, now time.Time) {
	if rec.Effects.HeldUntil != nil {
		req := request.Request{Namespace: job.Namespace, JobName: job.Name, JobUID: job.UID, PodUID: backoffUID, Event: BackoffEvent}
		if e, added := s.Delays.RegisterByPodUID(req, vcjob.SyncJobAction, request.Target{Level: vcjob.JobLevel}, rec.Effects.HeldUntil.Sub(now), now); added {
			rec.Extended = append(rec.Extended, e)
		}
	}
	if ext.Deadline == nil || ending(rec.PhaseAfter) {
		return
	}
	due, ok := ext.Deadline.Due(job)
	if !ok {
		return
	}
	req := request.Request{Namespace: job.Namespace, JobName: job.Name, JobUID: job.UID, PodUID: deadlineUID, Event: DeadlineEvent}
	if e, added := s.Delays.RegisterByPodUID(req, ext.Deadline.ActionOf(), request.Target{Level: vcjob.JobLevel}, due.Sub(now), now); added {
		rec.Extended = append(rec.Extended, e)
	}
}
