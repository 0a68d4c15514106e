package ttl

import (
	"time"

	"github.com/vcjob/vcjob"
)

// Verdict is what the garbage collector makes of one copy of a job at one
// time.
type Verdict struct {
	// Expired: the job is not being deleted, needs cleanup, and its time
	// left is zero or less. Only an expired job is deleted.
	Expired bool
	// After, when positive, is the time left of a job that needs cleanup
	// and has not expired: the collector looks at it again after that
	// long. It is zero otherwise.
	After time.Duration
	// FinishedInFuture: the job finished after now (clock skew); it waits
	// for its ttl counted from that finish.
	FinishedInFuture bool
	// Err is ExpiryOf's error for a job that needs cleanup and is not
	// being deleted (a *NoFinishTimeError). Expired is then false.
	Err error
}

// Check is the garbage collector's verdict on job at now:
//   - a job with a deletion timestamp, or one that does not need cleanup,
//     is neither expired nor looked at again (the zero Verdict);
//   - a job whose lastTransitionTime is zero is an error;
//   - a job whose time left is zero or less has expired;
//   - any other is looked at again when its time is up (After).
func Check(job *vcjob.Job, now time.Time) Verdict {
	if job == nil || job.DeletionTimestamp != nil || !NeedsCleanup(job) {
		return Verdict{}
	}
	e, err := ExpiryOf(job)
	if err != nil {
		return Verdict{Err: err}
	}
	v := Verdict{FinishedInFuture: e.FinishedInFuture(now)}
	if left := e.Left(now); left <= 0 {
		v.Expired = true
	} else {
		v.After = left
	}
	return v
}
