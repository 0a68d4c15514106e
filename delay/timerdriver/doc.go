// Package timerdriver owns the clock around a delay.Queue: a Driver that
// serialises access to the queue with a mutex and a Run loop that sleeps
// until the earliest deadline, wakes early when an earlier entry is
// registered, and hands each due entry to a callback. It is optional; the
// pure delay package needs none of it.
//
// The clock is injectable (Now and After), so tests drive it by hand.
//
//	d := timerdriver.New(nil)
//	go d.Run(ctx, func(e delay.Entry) {
//		run(e.Action, e.Target) // on the job's state now
//		d.CleanupAfter(e.Request.Namespace, e.Request.JobName, e.Action, e.Target)
//	})
//	// in the worker, for each request:
//	d.CancelForPodEvent(req)
//	if dec := policy.Resolve(job, req); dec.Delay > 0 {
//		d.Register(req, dec.Action, dec.Target, dec.Delay)
//	}
package timerdriver
