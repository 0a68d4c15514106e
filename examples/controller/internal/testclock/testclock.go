package testclock

import (
	"runtime"
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"
)

// maxSteps bounds StepUntil: a condition not met by then never will be.
const maxSteps = 1_000_000

// StepUntil steps clk by step, yielding to the other goroutines after
// each step, until done reports true; it fails t if done never does.
// (A delaying queue reads the clock, then sets its timer: a step in
// between is missed by that timer, so one step is not always enough.)
func StepUntil(t testing.TB, clk *testingclock.FakeClock, step time.Duration, done func() bool) {
	t.Helper()
	for range maxSteps {
		if done() {
			return
		}
		clk.Step(step)
		runtime.Gosched()
	}
	t.Fatalf("condition not met after %d steps of %v on the fake clock", maxSteps, step)
}
