package ttl

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

// API is the part of the API server the garbage collector talks to. Every
// call takes the context of the processing first.
type API interface {
	// Get reads the job namespace/name from the API server (not from a
	// cache). A job that does not exist is an error for which
	// apierrors.IsNotFound is true (or a nil job and a nil error).
	Get(ctx context.Context, namespace, name string) (*vcjob.Job, error)
	// Delete deletes the job namespace/name with opts.
	Delete(ctx context.Context, namespace, name string, opts metav1.DeleteOptions) error
}

// Next is what the caller does with the job's key after Process.
type Next string

// What comes after one processing of a job.
const (
	// Done: forget the key (and its backoff); the job is looked at again
	// only when an add or update Enqueues it.
	Done Next = "done"
	// RequeueAfter: forget the key's backoff and look again after
	// Result.After, when the job is due to expire.
	RequeueAfter Next = "requeue-after"
	// Retry: Result.Err went wrong; put the key back with the queue's
	// rate-limited backoff.
	Retry Next = "retry"
)

// Delete is a delete the garbage collector sent.
type Delete struct {
	Namespace, Name string
	Options         metav1.DeleteOptions
}

// Result is the outcome of one processing of a job.
type Result struct {
	Next Next
	// After is set with RequeueAfter: the time left of the copy that was
	// judged (the cached one, or the re-read one).
	After time.Duration
	// Err is set with Retry.
	Err error
	// Delete is the delete sent, nil when none was; set even when the
	// delete failed (Next is Retry then).
	Delete *Delete
}

// Process is the garbage collector's processing of one key of its queue.
// cached is the job as the collector's informer holds it (nil when it
// holds none); now reads the clock (time.Now in a controller), once for
// each copy judged. In order:
//   - no cached job: Done;
//   - Check on the cached job: an error is Retry, a job not expired is
//     RequeueAfter when Check says when to look again and Done otherwise;
//     no API call is made in either case;
//   - an expired job is read again from the API server (Get): NotFound
//     (or no job) is Done, another error is Retry;
//   - Check on the copy read, as on the cached one: the copy decides,
//     since its ttl, phase, finish time or UID may have changed since the
//     cache saw it;
//   - an expired copy is deleted (Delete, DeleteOptions of the copy):
//     Done, or Retry with the error when the delete fails, NotFound and
//     Conflict (a failed UID precondition) included, as Volcano returns
//     them; the retry finds the job gone or judges the new one.
func Process(ctx context.Context, api API, cached *vcjob.Job, now func() time.Time) Result {
	if cached == nil {
		return Result{Next: Done}
	}
	v := Check(cached, now())
	if !v.Expired {
		return notExpired(v)
	}
	fresh, err := api.Get(ctx, cached.Namespace, cached.Name)
	switch {
	case apierrors.IsNotFound(err), err == nil && fresh == nil:
		return Result{Next: Done}
	case err != nil:
		return Result{Next: Retry, Err: err}
	}
	if v := Check(fresh, now()); !v.Expired {
		return notExpired(v)
	}
	d := &Delete{Namespace: fresh.Namespace, Name: fresh.Name, Options: DeleteOptions(fresh)}
	if err := api.Delete(ctx, d.Namespace, d.Name, d.Options); err != nil {
		return Result{Next: Retry, Err: err, Delete: d}
	}
	return Result{Next: Done, Delete: d}
}

// notExpired is the result for a verdict that is not Expired.
func notExpired(v Verdict) Result {
	switch {
	case v.Err != nil:
		return Result{Next: Retry, Err: v.Err}
	case v.After > 0:
		return Result{Next: RequeueAfter, After: v.After}
	}
	return Result{Next: Done}
}
