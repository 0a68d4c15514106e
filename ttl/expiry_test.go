package ttl

import (
	"errors"
	"math"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

func TestTimeLeft(t *testing.T) {
	cases := map[string]struct {
		job     *vcjob.Job
		now     time.Time
		left    time.Duration
		err     string
		future  bool
		expires time.Time
	}{
		"expires in 30s": {job: job(vcjob.Completed, t0, seconds(60)), now: t0.Add(30 * time.Second),
			left: 30 * time.Second, expires: t0.Add(time.Minute)},
		"expires exactly now": {job: job(vcjob.Failed, t0, seconds(60)), now: t0.Add(time.Minute),
			left: 0, expires: t0.Add(time.Minute)},
		"expired 1s ago": {job: job(vcjob.Terminated, t0, seconds(60)), now: t0.Add(61 * time.Second),
			left: -time.Second, expires: t0.Add(time.Minute)},
		"now's fraction counts": {job: job(vcjob.Completed, t0, seconds(1)), now: t0.Add(250 * time.Millisecond),
			left: 750 * time.Millisecond, expires: t0.Add(time.Second)},
		"ttl 0: expired as it finishes": {job: job(vcjob.Completed, t0, seconds(0)), now: t0,
			left: 0, expires: t0},
		"negative ttl: expired before it finished": {job: job(vcjob.Completed, t0, seconds(-10)), now: t0,
			left: -10 * time.Second, expires: t0.Add(-10 * time.Second)},
		"a week": {job: job(vcjob.Completed, t0, seconds(604800)), now: t0,
			left: 7 * 24 * time.Hour, expires: t0.Add(7 * 24 * time.Hour)},
		"the largest ttl fits": {job: job(vcjob.Completed, t0, seconds(math.MaxInt32)), now: t0,
			left: math.MaxInt32 * time.Second, expires: t0.Add(math.MaxInt32 * time.Second)},
		"finished in the future: the ttl counts from then": {job: job(vcjob.Completed, t0.Add(time.Hour), seconds(60)), now: t0,
			left: time.Hour + time.Minute, future: true, expires: t0.Add(time.Hour + time.Minute)},
		"finish time in another zone": {job: job(vcjob.Completed, t0.In(time.FixedZone("x", 3600)), seconds(60)), now: t0,
			left: time.Minute, expires: t0.Add(time.Minute)},
		"no lastTransitionTime": {job: job(vcjob.Completed, time.Time{}, seconds(60)), now: t0,
			err: "unable to find the time when the Job ns/j finished"},
		"no ttl": {job: job(vcjob.Completed, t0, nil), now: t0,
			err: "job ns/j should not be cleaned up"},
		"Aborted": {job: job(vcjob.Aborted, t0, seconds(60)), now: t0,
			err: "job ns/j should not be cleaned up"},
		"not finished and no finish time: not cleaned up comes first": {job: job(vcjob.Running, time.Time{}, seconds(60)), now: t0,
			err: "job ns/j should not be cleaned up"},
		"being deleted is not looked at": {job: deleting(job(vcjob.Completed, t0, seconds(60))), now: t0,
			left: time.Minute, expires: t0.Add(time.Minute)},
		"nil job": {job: nil, now: t0, err: "job / should not be cleaned up"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			left, err := TimeLeft(tc.job, tc.now)
			e, eerr := ExpiryOf(tc.job)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("TimeLeft error %v, want %q", err, tc.err)
				}
				if eerr == nil || eerr.Error() != tc.err {
					t.Fatalf("ExpiryOf error %v, want %q", eerr, tc.err)
				}
				return
			}
			if err != nil || eerr != nil {
				t.Fatalf("errors %v, %v", err, eerr)
			}
			if left != tc.left {
				t.Errorf("TimeLeft = %v, want %v", left, tc.left)
			}
			if !e.ExpiresAt.Equal(tc.expires) || e.ExpiresAt.Location() != time.UTC {
				t.Errorf("ExpiresAt = %v, want %v in UTC", e.ExpiresAt, tc.expires)
			}
			if e.FinishedAt.Location() != time.UTC {
				t.Errorf("FinishedAt = %v, want UTC", e.FinishedAt)
			}
			if got := e.FinishedInFuture(tc.now); got != tc.future {
				t.Errorf("FinishedInFuture = %v, want %v", got, tc.future)
			}
		})
	}
}

func TestTimeLeftErrorTypes(t *testing.T) {
	_, err := TimeLeft(job(vcjob.Completed, t0, nil), t0)
	var noCleanup *NoCleanupError
	if !errors.As(err, &noCleanup) || *noCleanup != (NoCleanupError{Namespace: "ns", Name: "j"}) {
		t.Errorf("no ttl: %#v, want a *NoCleanupError for ns/j", err)
	}
	_, err = TimeLeft(job(vcjob.Completed, time.Time{}, seconds(1)), t0)
	var noTime *NoFinishTimeError
	if !errors.As(err, &noTime) || *noTime != (NoFinishTimeError{Namespace: "ns", Name: "j"}) {
		t.Errorf("no finish time: %#v, want a *NoFinishTimeError for ns/j", err)
	}
}

// TestTimeLeftSaturates: a finish time far from now gives the longest
// duration rather than one that wrapped around.
func TestTimeLeftSaturates(t *testing.T) {
	j := job(vcjob.Completed, time.Date(2500, 1, 1, 0, 0, 0, 0, time.UTC), seconds(1))
	if left, _ := TimeLeft(j, t0); left != time.Duration(math.MaxInt64) {
		t.Errorf("far future: %v, want the largest duration", left)
	}
	j.Status.State.LastTransitionTime = metav1.NewTime(time.Date(1700, 1, 1, 0, 0, 0, 0, time.UTC))
	if left, _ := TimeLeft(j, t0); left != time.Duration(math.MinInt64) {
		t.Errorf("far past: %v, want the smallest duration", left)
	}
}
