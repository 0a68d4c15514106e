package job

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"

	"github.com/vcjob/vcjob/examples/controller/pkg/applier"
)

// The Applier a worker's step writes through under Config.CoalesceStatus
// (statuses.go says why): which status writes may wait, and the writes
// that first send what waits.

// coalescing reports whether a status write from old to next may wait:
// the job is finished and stays so, or only the pod counts and the
// times move. (A sync that keeps a Pending or Running job in its phase
// still stamps the state and its condition with the time of the sync, as
// Volcano's does; the last stamp is what is written.)
func coalescing(old, next *vcjob.JobStatus) bool {
	if next.State.Phase != old.State.Phase {
		return false
	}
	if finished(old.State.Phase) {
		return true
	}
	if len(next.Conditions) != len(old.Conditions) {
		return false
	}
	for i := range next.Conditions {
		if next.Conditions[i].Status != old.Conditions[i].Status {
			return false
		}
	}
	same := *next
	same.TaskStatusCount = old.TaskStatusCount
	same.Pending, same.Running, same.Succeeded = old.Pending, old.Running, old.Succeeded
	same.Failed, same.Terminating, same.Unknown = old.Failed, old.Terminating, old.Unknown
	same.State.LastTransitionTime = old.State.LastTransitionTime
	same.Conditions = old.Conditions
	return applier.StatusEqual(old, &same)
}

func finished(p vcjob.JobPhase) bool {
	return p == vcjob.Completed || p == vcjob.Failed || p == vcjob.Terminated
}

// heldApplier is the Applier one worker uses: the shared Applier, with
// the worker's deferred status writes in front of it. Only the worker's
// goroutine calls it.
type heldApplier struct {
	*applier.Applier
	s *heldStatuses
}

var _ statemachine.Applier = heldApplier{}

// UpdateStatus implements statemachine.Applier: a status that may wait
// (coalescing) is held back; any other is written, replacing what was
// held back.
func (a heldApplier) UpdateStatus(ctx context.Context, job *vcjob.Job, status *vcjob.JobStatus) error {
	key := request.JobKey(job.Namespace, job.Name)
	a.s.rebase(key, job)
	if !coalescing(&job.Status, status) {
		if err := a.Applier.UpdateStatus(ctx, job, status); err != nil {
			return err
		}
		delete(a.s.pending, key)
		return nil
	}
	if applier.StatusEqual(&job.Status, status) {
		a.Metrics.StatusWritesSkipped.Inc()
		return nil
	}
	job.Status = *status.DeepCopy()
	cached := *job
	a.s.defer_(ctx, key, &cached)
	a.Metrics.StatusWritesDeferred.Inc()
	return nil
}

// CreatePod implements statemachine.Applier, after the job's deferred
// status is written.
func (a heldApplier) CreatePod(ctx context.Context, pod *corev1.Pod) error {
	if err := a.s.flushFor(ctx, pod); err != nil {
		return err
	}
	return a.Applier.CreatePod(ctx, pod)
}

// DeletePod implements statemachine.Applier, after the job's deferred
// status is written.
func (a heldApplier) DeletePod(ctx context.Context, pod *corev1.Pod) error {
	if err := a.s.flushFor(ctx, pod); err != nil {
		return err
	}
	return a.Applier.DeletePod(ctx, pod)
}

// UpdateJob implements statemachine.Applier, after the job's deferred
// status is written.
func (a heldApplier) UpdateJob(ctx context.Context, job *vcjob.Job) error {
	key := request.JobKey(job.Namespace, job.Name)
	if err := a.s.Flush(ctx, key); err != nil {
		return err
	}
	a.s.rebase(key, job)
	return a.Applier.UpdateJob(ctx, job)
}
