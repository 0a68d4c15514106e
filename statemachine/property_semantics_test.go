package statemachine_test

import (
	"testing"

	"github.com/vcjob/vcjob/semantics"
	"pgregory.net/rapid"
)

// TestPropertyInvariantsCorrected runs TestPropertyInvariants' scenarios
// with each job under a random semantics profile (its
// vcjob.dev/semantics annotation: every correction, or a random subset):
// every step keeps rapidgen's invariants as CheckStep reads them under the
// job's profile, and the plans stay those the calls apply.
func TestPropertyInvariantsCorrected(t *testing.T) {
	st := newStats()
	switches := semantics.Switches()
	rapid.Check(t, func(t *rapid.T) {
		sc := genScenario().Draw(t, "scenario")
		sem := semantics.Corrected()
		if rapid.Bool().Draw(t, "subset") {
			sem = semantics.Profile{}
			for _, sw := range switches {
				if rapid.Bool().Draw(t, sw.Name) {
					sem, _ = semantics.Parse(sem, sw.Name)
				}
			}
		}
		sc.Job = sc.Job.DeepCopy()
		if sc.Job.Annotations == nil {
			sc.Job.Annotations = map[string]string{}
		}
		sc.Job.Annotations[semantics.Annotation] = sem.String()
		h := newHarness(sc)
		h.stats = st
		st.Scenarios++
		for i, o := range sc.Ops {
			h.step(t, i, o)
		}
	})
	t.Logf("coverage: %s", st)
}
