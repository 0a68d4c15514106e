package applier

import (
	"context"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"

	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
)

// UpdateStatus implements statemachine.Applier: the status subresource,
// with the job's resourceVersion, so a concurrent change fails the write
// with a Conflict (the step fails and its request is requeued).
//
// On success the job handed in takes the new resourceVersion and status:
// SyncJob writes twice with the same job (the initial Pending status, then
// the counts), and the second write must not conflict with the first.
func (a *Applier) UpdateStatus(ctx context.Context, job *vcjob.Job, status *vcjob.JobStatus) error {
	// A status equal to the one the job already has is not sent: the API
	// server would change nothing (no new resourceVersion, no event), and
	// every event of a finished job is a kill that writes its unchanged
	// status again. The job's status is the cache's, which holds at least
	// this controller's own last write (StatusWritten), and only this
	// controller writes job status.
	if StatusEqual(&job.Status, status) {
		a.Metrics.StatusWritesSkipped.Inc()
		return nil
	}
	return a.WriteStatus(ctx, job, status)
}

// StatusEqual reports whether two statuses are the same to the API server.
// The counts, phase and version are looked at first: a kill of a finished
// job bumps the version, and the reflective walk would reach it only after
// comparing the times (through reflect.Call) on the way.
func StatusEqual(a, b *vcjob.JobStatus) bool {
	if a.State.Phase != b.State.Phase || a.Version != b.Version || a.RetryCount != b.RetryCount ||
		a.Pending != b.Pending || a.Running != b.Running || a.Succeeded != b.Succeeded || a.Failed != b.Failed ||
		a.Terminating != b.Terminating || a.Unknown != b.Unknown || a.MinAvailable != b.MinAvailable ||
		len(a.Conditions) != len(b.Conditions) {
		return false
	}
	return equality.Semantic.DeepEqual(a, b)
}

// WriteStatus sends status for job to the status subresource. The encoder
// only reads: a shallow copy of the job with the new status will do,
// rather than a copy of the whole job, templates and all.
func (a *Applier) WriteStatus(parent context.Context, job *vcjob.Job, status *vcjob.JobStatus) error {
	next := *job
	next.Status = *status
	ctx, cancel := CallContext(parent)
	defer cancel()
	out, err := a.Volcano.Jobs(job.Namespace).UpdateStatus(ctx, &next, metav1.UpdateOptions{FieldManager: clients.FieldManager})
	if err != nil {
		return err
	}
	a.Metrics.StatusWrites.Inc()
	job.ResourceVersion = out.GetResourceVersion()
	job.Status = *status.DeepCopy()
	if a.StatusWritten != nil {
		out.ManagedFields = nil
		a.StatusWritten(parent, clients.PrepareJob(out))
	}
	return nil
}

// UpdateJob implements statemachine.Applier: the job itself is written
// (its spec holds the claim names the library generated), with the API
// server's conflict check on its resourceVersion; job takes the new one,
// and the controller's cache the job as written.
func (a *Applier) UpdateJob(parent context.Context, job *vcjob.Job) error {
	ctx, cancel := CallContext(parent)
	defer cancel()
	out, err := a.Volcano.Jobs(job.Namespace).Update(ctx, job, metav1.UpdateOptions{FieldManager: clients.FieldManager})
	if err != nil {
		return err
	}
	a.Metrics.JobWrites.Inc()
	job.ResourceVersion = out.GetResourceVersion()
	if a.StatusWritten != nil {
		// The server keeps the status it has; the step goes on with its own.
		out.ManagedFields = nil
		out.Status = job.Status
		a.StatusWritten(parent, clients.PrepareJob(out))
	}
	return nil
}
