package ttl

import (
	"testing"
	"time"

	"github.com/vcjob/vcjob"
)

func TestFinishedAndNeedsCleanup(t *testing.T) {
	cases := map[string]struct {
		job                             *vcjob.Job
		finished, needsCleanup, enqueue bool
	}{
		"nil job":                              {job: nil},
		"Completed with a ttl":                 {job: job(vcjob.Completed, t0, seconds(60)), finished: true, needsCleanup: true, enqueue: true},
		"Failed with a ttl":                    {job: job(vcjob.Failed, t0, seconds(60)), finished: true, needsCleanup: true, enqueue: true},
		"Terminated with a ttl":                {job: job(vcjob.Terminated, t0, seconds(60)), finished: true, needsCleanup: true, enqueue: true},
		"ttl 0 is set":                         {job: job(vcjob.Completed, t0, seconds(0)), finished: true, needsCleanup: true, enqueue: true},
		"negative ttl is set":                  {job: job(vcjob.Completed, t0, seconds(-5)), finished: true, needsCleanup: true, enqueue: true},
		"Completed without ttl":                {job: job(vcjob.Completed, t0, nil), finished: true},
		"Aborted is not finished":              {job: job(vcjob.Aborted, t0, seconds(60))},
		"Aborting":                             {job: job(vcjob.Aborting, t0, seconds(60))},
		"Completing":                           {job: job(vcjob.Completing, t0, seconds(60))},
		"Terminating":                          {job: job(vcjob.Terminating, t0, seconds(60))},
		"Running":                              {job: job(vcjob.Running, t0, seconds(60))},
		"Restarting":                           {job: job(vcjob.Restarting, t0, seconds(60))},
		"Pending":                              {job: job(vcjob.Pending, t0, seconds(60))},
		"no phase":                             {job: job("", t0, seconds(60))},
		"an unknown phase":                     {job: job("Weird", t0, seconds(60))},
		"zero finish time still needs cleanup": {job: job(vcjob.Failed, time.Time{}, seconds(60)), finished: true, needsCleanup: true, enqueue: true},
		"being deleted: needs cleanup, not queued": {job: deleting(job(vcjob.Completed, t0, seconds(60))), finished: true, needsCleanup: true},
		"being deleted without ttl":                {job: deleting(job(vcjob.Completed, t0, nil)), finished: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Finished(tc.job); got != tc.finished {
				t.Errorf("Finished = %v, want %v", got, tc.finished)
			}
			if got := NeedsCleanup(tc.job); got != tc.needsCleanup {
				t.Errorf("NeedsCleanup = %v, want %v", got, tc.needsCleanup)
			}
			if got := Enqueues(tc.job); got != tc.enqueue {
				t.Errorf("Enqueues = %v, want %v", got, tc.enqueue)
			}
		})
	}
}

// TestFinishedPhases: exactly three of Volcano's phases are finished for
// the collector; Aborted, where a job also stays for good, is not.
func TestFinishedPhases(t *testing.T) {
	var got []vcjob.JobPhase
	for _, p := range []vcjob.JobPhase{vcjob.Pending, vcjob.Aborting, vcjob.Aborted, vcjob.Running, vcjob.Restarting,
		vcjob.Completing, vcjob.Completed, vcjob.Terminating, vcjob.Terminated, vcjob.Failed} {
		if Finished(job(p, t0, nil)) {
			got = append(got, p)
		}
	}
	want := []vcjob.JobPhase{vcjob.Completed, vcjob.Terminated, vcjob.Failed}
	if len(got) != len(want) {
		t.Fatalf("finished phases %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("finished phases %v, want %v", got, want)
		}
	}
}
