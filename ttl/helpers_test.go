package ttl

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

// t0 is the tests' reference time.
var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// job is job ns/j with UID "u1" in phase, finished at finished (zero: no
// lastTransitionTime), with a ttl of ttl seconds (nil: none).
func job(phase vcjob.JobPhase, finished time.Time, ttl *int32) *vcjob.Job {
	j := &vcjob.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "j", UID: "u1"},
		Spec:       vcjob.JobSpec{TTLSecondsAfterFinished: ttl},
	}
	j.Status.State.Phase = phase
	if !finished.IsZero() {
		j.Status.State.LastTransitionTime = metav1.NewTime(finished)
	}
	return j
}

func seconds(n int32) *int32 { return &n }

// deleting marks j as being deleted.
func deleting(j *vcjob.Job) *vcjob.Job {
	t := metav1.NewTime(t0)
	j.DeletionTimestamp = &t
	return j
}
