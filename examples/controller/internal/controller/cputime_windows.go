package controller

import (
	"syscall"
	"time"
)

// CPUTime is the process's user and system (kernel) CPU time so far, from
// GetProcessTimes.
func CPUTime() (user, system time.Duration) {
	h, err := syscall.GetCurrentProcess()
	if err != nil {
		return 0, 0
	}
	var creation, exit, kernel, usr syscall.Filetime
	if err := syscall.GetProcessTimes(h, &creation, &exit, &kernel, &usr); err != nil {
		return 0, 0
	}
	// A Filetime counts 100 ns intervals.
	ticks := func(f syscall.Filetime) time.Duration {
		return time.Duration(int64(f.HighDateTime)<<32|int64(f.LowDateTime)) * 100
	}
	return ticks(usr), ticks(kernel)
}
