package exhaustive_test

import (
	"fmt"
	"runtime/debug"
	"sync/atomic"
	"testing"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/vcjobtest/exhaustive"
)

// TestExploreCorrected explores the jobs of TestExplore under the corrected
// profile: every step keeps rapidgen's invariants, a terminal phase stays
// reachable, and the corrections show (no kill of a finished job with
// nothing to delete; AbortJob in Restarting aborts; a resume counts no
// retry).
func TestExploreCorrected(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	sem := behavior.Corrected()
	for i, tc := range exploreCases() {
		if testing.Short() && i > 0 {
			break
		}
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			opts.Behavior = sem
			if !testing.Short() {
				opts.VerifyEvery = 50
			}
			opts.Check = func(s exhaustive.Step) error {
				r := s.Record
				before := s.Before.Status
				switch {
				case r.Transition != nil && r.Transition.Call == statemachine.CallKillJob &&
					(r.PhaseBefore == vcjob.Completed || r.PhaseBefore == vcjob.Failed || r.PhaseBefore == vcjob.Terminated) &&
					len(r.Effects.Deleted) == 0 && s.After.Status.Version != before.Version && !anyAlive(s):
					return fmt.Errorf("a finished job with nothing to delete was killed again")
				case r.PhaseBefore == vcjob.Restarting && r.Action == vcjob.AbortJobAction && r.Err == nil && r.Request.Action != "" &&
					s.After.Status.State.Phase != vcjob.Aborting && s.After.Status.State.Phase != vcjob.Aborted:
					return fmt.Errorf("AbortJob in Restarting left the job %s", s.After.Status.State.Phase)
				case r.Action == vcjob.ResumeJobAction && (r.PhaseBefore == vcjob.Aborted || r.PhaseBefore == vcjob.Aborting) &&
					r.Err == nil && s.After.Status.RetryCount != before.RetryCount:
					return fmt.Errorf("a resume counted a retry")
				}
				return nil
			}
			res, err := exhaustive.Explore(tc.job, opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d states, %d transitions, %d verified; by phase %s", res.States, res.Transitions, res.Verified, phases(res.ByPhase))
			if err := res.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// anyAlive reports whether a pod the kill would delete was there.
func anyAlive(s exhaustive.Step) bool {
	for _, p := range s.PodsBefore {
		if p.DeletionTimestamp == nil && p.Status.Phase != "Succeeded" && p.Status.Phase != "Failed" {
			return true
		}
	}
	return false
}

// Extensions that need absolute time or a history are refused; exit-code
// sets are explored.
func TestExploreExtensions(t *testing.T) {
	job := exploreCases()[0].job.DeepCopy()
	job.Annotations = map[string]string{policy.ExtensionsAnnotation: "deadline: {after: 1h}"}
	if _, err := exhaustive.Explore(job, exhaustive.Options{}); err == nil {
		t.Fatal("a deadline was explored")
	}
	job.Annotations[policy.ExtensionsAnnotation] = "exitCodes: [{operator: NotIn, values: ['0'], action: RestartJob}]"
	var byExtension atomic.Int64
	res, err := exhaustive.Explore(job, exhaustive.Options{NoCommands: true, ExitCodes: []int32{1, 2},
		Check: func(s exhaustive.Step) error {
			if s.Record.Rule.Kind == policy.RuleExitCodes && s.Record.Action == vcjob.RestartJobAction {
				byExtension.Add(1)
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if byExtension.Load() == 0 {
		t.Fatal("the NotIn rule never restarted the job")
	}
}
