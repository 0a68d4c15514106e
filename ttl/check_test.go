package ttl

import (
	"testing"
	"time"

	"github.com/vcjob/vcjob"
)

func TestCheck(t *testing.T) {
	cases := map[string]struct {
		job    *vcjob.Job
		now    time.Time
		want   Verdict
		errMsg string
	}{
		"nil job":                   {job: nil, now: t0},
		"not finished":              {job: job(vcjob.Running, t0, seconds(60)), now: t0.Add(time.Hour)},
		"Aborted is never expired":  {job: job(vcjob.Aborted, t0, seconds(0)), now: t0.Add(time.Hour)},
		"no ttl":                    {job: job(vcjob.Completed, t0, nil), now: t0.Add(time.Hour)},
		"not yet: look again later": {job: job(vcjob.Completed, t0, seconds(60)), now: t0.Add(20 * time.Second), want: Verdict{After: 40 * time.Second}},
		"1ns left":                  {job: job(vcjob.Completed, t0, seconds(60)), now: t0.Add(time.Minute - 1), want: Verdict{After: 1}},
		"exactly due":               {job: job(vcjob.Failed, t0, seconds(60)), now: t0.Add(time.Minute), want: Verdict{Expired: true}},
		"past due":                  {job: job(vcjob.Terminated, t0, seconds(60)), now: t0.Add(time.Hour), want: Verdict{Expired: true}},
		"ttl 0 at once":             {job: job(vcjob.Completed, t0, seconds(0)), now: t0, want: Verdict{Expired: true}},
		"negative ttl":              {job: job(vcjob.Completed, t0, seconds(-1)), now: t0, want: Verdict{Expired: true}},
		"finished in the future waits": {job: job(vcjob.Completed, t0.Add(time.Hour), seconds(0)), now: t0,
			want: Verdict{After: time.Hour, FinishedInFuture: true}},
		"finished in the future, expired all the same (negative ttl)": {job: job(vcjob.Completed, t0.Add(time.Second), seconds(-2)), now: t0,
			want: Verdict{Expired: true, FinishedInFuture: true}},
		"being deleted is left alone":        {job: deleting(job(vcjob.Completed, t0, seconds(0))), now: t0.Add(time.Hour)},
		"being deleted, no finish time":      {job: deleting(job(vcjob.Completed, time.Time{}, seconds(0))), now: t0},
		"no finish time is an error":         {job: job(vcjob.Completed, time.Time{}, seconds(60)), now: t0, errMsg: "unable to find the time when the Job ns/j finished"},
		"no finish time, not finished: fine": {job: job(vcjob.Running, time.Time{}, seconds(60)), now: t0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Check(tc.job, tc.now)
			if tc.errMsg != "" {
				if got.Err == nil || got.Err.Error() != tc.errMsg {
					t.Fatalf("Err = %v, want %q", got.Err, tc.errMsg)
				}
				if got.Expired || got.After != 0 {
					t.Errorf("an error with %+v", got)
				}
				return
			}
			if got != tc.want {
				t.Errorf("Check = %+v, want %+v", got, tc.want)
			}
		})
	}
}
