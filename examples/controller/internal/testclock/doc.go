// Package testclock waits, in the unit tests, for what a client-go
// delaying queue does on its own goroutine once a fake clock
// (k8s.io/utils/clock/testing) has passed an item's time: it steps the
// clock, never sleeps. Only tests import it.
//
//	clk := testingclock.NewFakeClock(start)
//	queue.AddAfter(key, 7*time.Second) // a queue made with Clock: clk
//	testclock.StepUntil(t, clk, time.Second, func() bool { return queue.Len() > 0 })
package testclock
