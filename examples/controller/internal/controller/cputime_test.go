//go:build unix || windows

package controller

import (
	"testing"
	"time"
)

// CPUTime reads the process's own accounting: it moves forward with work
// done, and never backwards.
func TestCPUTimeCountsWork(t *testing.T) {
	u0, s0 := CPUTime()
	x := uint64(1)
	for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
		for i := 0; i < 1000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	u1, s1 := CPUTime()
	if u1 < u0 || s1 < s0 {
		t.Fatalf("CPU time went back: user %v -> %v, system %v -> %v", u0, u1, s0, s1)
	}
	if u1+s1 <= u0+s0 {
		t.Errorf("50 ms of spinning added no CPU time (user %v, system %v; %d)", u1, s1, x)
	}
}
