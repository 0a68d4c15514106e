//go:build !unix && !windows

package controller

import "time"

// CPUTime is zero where the process's CPU time cannot be read: the
// process_cpu_*_seconds_total counters stay at 0.
func CPUTime() (user, system time.Duration) { return 0, 0 }
