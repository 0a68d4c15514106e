package ttl

import (
	"context"
	"math"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/vcjob/vcjob"
)

var phases = []vcjob.JobPhase{vcjob.Pending, vcjob.Aborting, vcjob.Aborted, vcjob.Running, vcjob.Restarting,
	vcjob.Completing, vcjob.Completed, vcjob.Terminating, vcjob.Terminated, vcjob.Failed, "", "Weird"}

// drawTTL is nil, 0, a small or large ttl, a negative one, or an extreme.
func drawTTL(t *rapid.T, label string) *int32 {
	switch rapid.IntRange(0, 5).Draw(t, label+"Kind") {
	case 0:
		return nil
	case 1:
		return seconds(0)
	case 2:
		return seconds(rapid.Int32Range(1, 300).Draw(t, label))
	case 3:
		return seconds(rapid.Int32Range(3600, 604800).Draw(t, label))
	case 4:
		return seconds(rapid.Int32Range(-600, -1).Draw(t, label))
	}
	return seconds(rapid.SampledFrom([]int32{math.MaxInt32, math.MinInt32}).Draw(t, label))
}

// drawTime is t0 give or take a few weeks, to the nanosecond.
func drawTime(t *rapid.T, label string) time.Time {
	return t0.Add(time.Duration(rapid.Int64Range(-int64(21*24*time.Hour), int64(21*24*time.Hour)).Draw(t, label)))
}

func drawJob(t *rapid.T, label string) *vcjob.Job {
	var finished time.Time
	if rapid.IntRange(0, 9).Draw(t, label+"HasFinishTime") > 0 {
		finished = drawTime(t, label+"Finished")
	}
	j := job(rapid.SampledFrom(phases).Draw(t, label+"Phase"), finished, drawTTL(t, label+"TTL"))
	if rapid.IntRange(0, 5).Draw(t, label+"Deleting") == 0 {
		j = deleting(j)
	}
	j.UID = types.UID(rapid.SampledFrom([]string{"u1", "u2"}).Draw(t, label+"UID"))
	return j
}

// TestPropertyOnlyFinishedJobsExpire: an expired job is finished, has a
// ttl and is not being deleted; so is every job Process deletes.
func TestPropertyOnlyFinishedJobsExpire(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		j, now := drawJob(t, "job"), drawTime(t, "now")
		v := Check(j, now)
		if v.Expired && (!Finished(j) || j.Spec.TTLSecondsAfterFinished == nil || j.DeletionTimestamp != nil) {
			t.Fatalf("expired: phase %q, ttl %v, deleting %v", j.Status.State.Phase, j.Spec.TTLSecondsAfterFinished, j.DeletionTimestamp != nil)
		}
		if !Finished(j) && (v != Verdict{}) {
			t.Fatalf("a job in phase %q gets %+v", j.Status.State.Phase, v)
		}
	})
}

// TestPropertyLongerTTLNeverSooner: with everything else the same, a
// longer ttl never expires a job that a shorter one keeps, and never
// looks again sooner; a later now never un-expires a job.
func TestPropertyLongerTTLNeverSooner(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		j, now := drawJob(t, "job"), drawTime(t, "now")
		if j.Spec.TTLSecondsAfterFinished == nil {
			j.Spec.TTLSecondsAfterFinished = seconds(0)
		}
		short := *j.Spec.TTLSecondsAfterFinished
		long := j.DeepCopy()
		long.Spec.TTLSecondsAfterFinished = seconds(short + rapid.Int32Range(0, math.MaxInt32-max(short, 0)).Draw(t, "more"))
		vs, vl := Check(j, now), Check(long, now)
		if vl.Expired && !vs.Expired {
			t.Fatalf("ttl %d expired, ttl %d not", *long.Spec.TTLSecondsAfterFinished, short)
		}
		if !vs.Expired && vl.After < vs.After {
			t.Fatalf("ttl %d looks again after %v, ttl %d after %v", *long.Spec.TTLSecondsAfterFinished, vl.After, short, vs.After)
		}
		later := now.Add(time.Duration(rapid.Int64Range(0, int64(30*24*time.Hour)).Draw(t, "later")))
		if vs.Expired && !Check(j, later).Expired {
			t.Fatalf("expired at %v, not at %v", now, later)
		}
	})
}

// TestPropertyLookAgainWhenDue: the time to look again is exactly when
// the job expires: not a nanosecond sooner.
func TestPropertyLookAgainWhenDue(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		j, now := drawJob(t, "job"), drawTime(t, "now")
		v := Check(j, now)
		if v.After <= 0 {
			return
		}
		if v.Expired || v.Err != nil {
			t.Fatalf("After with %+v", v)
		}
		if !Check(j, now.Add(v.After)).Expired {
			t.Fatalf("not expired after %v", v.After)
		}
		if Check(j, now.Add(v.After-1)).Expired {
			t.Fatalf("expired before %v", v.After)
		}
	})
}

// TestPropertyQueuedJobsAreActedOn: a job a change queues always gets a
// verdict (expired, a time to look again, or an error); a job it does not
// queue gets none, so leaving it off the queue loses nothing.
func TestPropertyQueuedJobsAreActedOn(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		j, now := drawJob(t, "job"), drawTime(t, "now")
		v := Check(j, now)
		acted := v.Expired || v.After > 0 || v.Err != nil
		if Enqueues(j) != acted {
			t.Fatalf("Enqueues %v, verdict %+v", Enqueues(j), v)
		}
		_, err := TimeLeft(j, now)
		if (err == nil) != (Finished(j) && j.Spec.TTLSecondsAfterFinished != nil && !j.Status.State.LastTransitionTime.IsZero()) {
			t.Fatalf("TimeLeft error %v for phase %q ttl %v", err, j.Status.State.Phase, j.Spec.TTLSecondsAfterFinished)
		}
	})
}

// TestPropertyProcess: Process reads the job again only when the cached
// copy expired, deletes only when the copy read expired too, and then
// with that copy's UID; whatever it returns is consistent.
func TestPropertyProcess(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cached, now := drawJob(t, "cached"), drawTime(t, "now")
		api := &fakeAPI{}
		if rapid.Bool().Draw(t, "exists") {
			api.job = drawJob(t, "fresh")
		}
		r := Process(context.Background(), api, cached, func() time.Time { return now })
		read := len(api.calls) > 0
		if read != Check(cached, now).Expired {
			t.Fatalf("read %v, cached verdict %+v", read, Check(cached, now))
		}
		deleted := r.Delete != nil
		if deleted != (read && api.job != nil && Check(api.job, now).Expired) {
			t.Fatalf("deleted %v, calls %v", deleted, api.calls)
		}
		if deleted && *r.Delete.Options.Preconditions.UID != api.job.UID {
			t.Fatalf("deleted UID %s, the copy read has %s", *r.Delete.Options.Preconditions.UID, api.job.UID)
		}
		switch r.Next {
		case Done:
			if r.Err != nil || r.After != 0 {
				t.Fatalf("done with %+v", r)
			}
		case RequeueAfter:
			if r.Err != nil || r.After <= 0 || deleted {
				t.Fatalf("requeue with %+v", r)
			}
		case Retry:
			if r.Err == nil || r.After != 0 {
				t.Fatalf("retry with %+v", r)
			}
		default:
			t.Fatalf("next %q", r.Next)
		}
	})
}

// TestPropertyDeletionStops: once a job has a deletion timestamp, nothing
// about it is queued, expired or deleted.
func TestPropertyDeletionStops(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		j, now := drawJob(t, "job"), drawTime(t, "now")
		ts := metav1.NewTime(now)
		j.DeletionTimestamp = &ts
		api := &fakeAPI{job: j}
		if Enqueues(j) || (Check(j, now) != Verdict{}) {
			t.Fatalf("a job being deleted is acted on")
		}
		if r := Process(context.Background(), api, j, func() time.Time { return now }); r.Next != Done || len(api.calls) > 0 {
			t.Fatalf("Process on a job being deleted: %+v, calls %v", r, api.calls)
		}
	})
}
