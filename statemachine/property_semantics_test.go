package statemachine_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/vcjob/vcjob/behavior"
)

// TestPropertyInvariantsCorrected runs TestPropertyInvariants' scenarios
// with each job under a random semantics profile (its
// vcjob.dev/semantics annotation: every correction, or a random subset):
// every step keeps rapidgen's invariants as CheckStep reads them under the
// job's profile, and the plans stay those the calls apply.
func TestPropertyInvariantsCorrected(t *testing.T) {
	st := newStats()
	corrections := behavior.Corrected().Corrections()
	rapid.Check(t, func(t *rapid.T) {
		sc := genScenario().Draw(t, "scenario")
		sem := behavior.Corrected()
		if rapid.Bool().Draw(t, "subset") {
			sem = behavior.Set{}
			for _, id := range corrections {
				if rapid.Bool().Draw(t, id.String()) {
					sem = sem.With(id)
				}
			}
		}
		sc.Job = sc.Job.DeepCopy()
		if sc.Job.Annotations == nil {
			sc.Job.Annotations = map[string]string{}
		}
		sc.Job.Annotations[behavior.Annotation] = sem.String()
		h := newHarness(sc)
		h.stats = st
		st.Scenarios++
		for i, o := range sc.Ops {
			h.step(t, i, o)
		}
	})
	t.Logf("coverage: %s", st)
}
