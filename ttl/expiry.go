package ttl

import (
	"fmt"
	"time"

	"github.com/vcjob/vcjob"
)

// NoCleanupError is TimeLeft's (and ExpiryOf's) error for a job that does
// not need cleanup (NeedsCleanup is false). Its text is Volcano's.
type NoCleanupError struct{ Namespace, Name string }

func (e *NoCleanupError) Error() string {
	return fmt.Sprintf("job %s/%s should not be cleaned up", e.Namespace, e.Name)
}

// NoFinishTimeError is the error for a job that needs cleanup but whose
// status.state.lastTransitionTime is zero (absent): there is no time to
// count the ttl from. Its text is Volcano's. Process returns it, so the
// garbage collector retries the job with backoff until the time is set.
type NoFinishTimeError struct{ Namespace, Name string }

func (e *NoFinishTimeError) Error() string {
	return fmt.Sprintf("unable to find the time when the Job %s/%s finished", e.Namespace, e.Name)
}

// Expiry is when a job that needs cleanup finished and when its ttl runs
// out.
type Expiry struct {
	// FinishedAt is status.state.lastTransitionTime, in UTC: the time of
	// the job's last phase change, which for a finished job is its entry
	// into the finished phase.
	FinishedAt time.Time
	// ExpiresAt is FinishedAt plus ttlSecondsAfterFinished seconds (before
	// FinishedAt for a negative ttl, which the CRD's schema refuses but a
	// stored object may still carry).
	ExpiresAt time.Time
}

// ExpiryOf is when job finished and when it expires. The error is a
// *NoCleanupError when the job does not need cleanup, else a
// *NoFinishTimeError when its lastTransitionTime is zero. The deletion
// timestamp is not looked at.
func ExpiryOf(job *vcjob.Job) (Expiry, error) {
	if !NeedsCleanup(job) {
		var ns, name string
		if job != nil {
			ns, name = job.Namespace, job.Name
		}
		return Expiry{}, &NoCleanupError{Namespace: ns, Name: name}
	}
	finished := job.Status.State.LastTransitionTime
	if finished.IsZero() {
		return Expiry{}, &NoFinishTimeError{Namespace: job.Namespace, Name: job.Name}
	}
	at := finished.UTC()
	ttl := time.Duration(*job.Spec.TTLSecondsAfterFinished) * time.Second
	return Expiry{FinishedAt: at, ExpiresAt: at.Add(ttl)}, nil
}

// Left is the time from now until the job expires: zero or less once it
// has. It saturates as time.Time.Sub does.
func (e Expiry) Left(now time.Time) time.Duration { return e.ExpiresAt.Sub(now) }

// FinishedInFuture reports whether the job finished after now: the
// clocks of the cluster disagree. Nothing special follows: the time left
// is counted from the recorded finish all the same, so the job waits
// longer than its ttl (Volcano logs a warning).
func (e Expiry) FinishedInFuture(now time.Time) bool { return e.FinishedAt.After(now) }

// TimeLeft is how long after now job expires (zero or negative: it has),
// with ExpiryOf's errors. It does not look at the deletion timestamp.
func TimeLeft(job *vcjob.Job, now time.Time) (time.Duration, error) {
	e, err := ExpiryOf(job)
	if err != nil {
		return 0, err
	}
	return e.Left(now), nil
}
