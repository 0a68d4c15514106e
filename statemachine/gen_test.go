package statemachine_test

import (
	"fmt"

	"pgregory.net/rapid"

	"github.com/vcjob/vcjob/vcjobtest/rapidgen"
)

// Scenarios for the property tests in property_test.go: rapidgen's
// (rapidgen.Scenario: a valid job, its PodGroup's starting phase, and
// requests and world changes), with the one kind of step rapidgen lacks
// injected between them: API failures.

// faultKind is a failure-injection step.
type faultKind string

const (
	faultDelete faultKind = "failDelete" // toggle: deleting the picked pod fails
	faultCreate faultKind = "failCreate" // toggle: creating the picked pod fails
	faultStatus faultKind = "failStatus" // the next request's status writes fail
)

// op is one step of a scenario: a rapidgen.Step or, with Fault set, a
// failure injection, which picks its pod with Pick as a Step does (among
// the job's pods and those it would create).
type op struct {
	rapidgen.Step
	Fault faultKind
}

func (o op) String() string {
	switch o.Fault {
	case "":
		return o.Step.String()
	case faultStatus:
		return string(o.Fault)
	}
	return fmt.Sprintf("%s pick=%d", o.Fault, o.Pick)
}

func (o op) isRequest() bool { return o.Fault == "" && o.Kind == rapidgen.StepRequest }

// scenario is a rapidgen script and the ops to drive it through: its
// steps, with faults injected.
type scenario struct {
	rapidgen.Script
	Ops []op
}

// faultPercent is the chance of a fault before each step of the script.
const faultPercent = 4

func genScenario() *rapid.Generator[scenario] {
	return rapid.Custom(func(t *rapid.T) scenario {
		sc := scenario{Script: rapidgen.Scenario().Draw(t, "script")}
		for i, st := range sc.Steps {
			// High values inject, so a failing scenario shrinks towards
			// one without faults.
			if rapid.IntRange(0, 99).Draw(t, fmt.Sprintf("fault[%d]", i)) >= 100-faultPercent {
				f := op{Fault: rapid.SampledFrom([]faultKind{faultDelete, faultDelete, faultCreate, faultStatus}).Draw(t, fmt.Sprintf("fault[%d].kind", i))}
				f.Pick = rapid.IntRange(0, 15).Draw(t, fmt.Sprintf("fault[%d].pick", i))
				sc.Ops = append(sc.Ops, f)
			}
			sc.Ops = append(sc.Ops, op{Step: st})
		}
		return sc
	})
}
