package timerdriver

import (
	"context"
	"sync"
	"time"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/delay"
	"github.com/vcjob/vcjob/request"
)

// Driver runs a delay.Queue on a clock: its methods lock the queue, and Run
// fires entries as they fall due.
type Driver struct {
	// Now reads the clock (time.Now unless replaced). Replace it, and After,
	// before the first call.
	Now func() time.Time
	// After returns a channel that receives once the duration has passed
	// (time.After unless replaced).
	After func(time.Duration) <-chan time.Time

	mu   sync.Mutex
	q    *delay.Queue
	wake chan struct{} // holds a signal when a new earliest deadline came in
}

// New returns a driver for q (a new queue when q is nil) on the real clock.
// From now on q must be used through the driver only.
func New(q *delay.Queue) *Driver {
	if q == nil {
		q = delay.New()
	}
	return &Driver{Now: time.Now, After: time.After, q: q, wake: make(chan struct{}, 1)}
}

// Register is delay.Queue.Register at the driver's Now. When the entry is
// due before everything else, it wakes Run so that Run sleeps for the
// shorter time.
func (d *Driver) Register(req request.Request, action vcjob.Action, target request.Target, wait time.Duration) (delay.Entry, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	head, had := d.q.Next()
	e, ok := d.q.Register(req, action, target, wait, d.Now())
	if ok && (!had || e.Due.Before(head)) {
		select {
		case d.wake <- struct{}{}:
		default: // a wake-up is already waiting
		}
	}
	return e, ok
}

// CancelForPodEvent is delay.Queue.CancelForPodEvent under the lock.
func (d *Driver) CancelForPodEvent(req request.Request) []delay.Entry {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.q.CancelForPodEvent(req)
}

// CleanupAfter is delay.Queue.CleanupAfter under the lock.
func (d *Driver) CleanupAfter(namespace, job string, action vcjob.Action, target request.Target) []delay.Entry {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.q.CleanupAfter(namespace, job, action, target)
}

// ForgetJob is delay.Queue.ForgetJob under the lock.
func (d *Driver) ForgetJob(namespace, job string) []delay.Entry {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.q.ForgetJob(namespace, job)
}

// Pending is delay.Queue.Pending under the lock.
func (d *Driver) Pending(namespace, job string) []delay.Entry {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.q.Pending(namespace, job)
}

// Len is delay.Queue.Len under the lock.
func (d *Driver) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.q.Len()
}

// Run fires entries until ctx is done. It sleeps until the queue's earliest
// deadline (or until Register brings an earlier one), takes every entry due
// at Now, and calls fire for each, in (Due, ID) order, on Run's goroutine
// and without the lock held, so fire may call the driver (CleanupAfter
// after running the action, typically). Entries taken from the queue are
// all fired even when ctx ends meanwhile. Call Run once per driver.
func (d *Driver) Run(ctx context.Context, fire func(delay.Entry)) {
	for ctx.Err() == nil {
		d.mu.Lock()
		// Signals sent before this point are answered by reading the
		// queue now; only a Register after the unlock wakes the wait below.
		select {
		case <-d.wake:
		default:
		}
		now := d.Now()
		due := d.q.Due(now)
		next, ok := d.q.Next()
		d.mu.Unlock()

		if len(due) > 0 {
			for _, e := range due {
				fire(e)
			}
			continue // fire may have taken time or registered more
		}
		var timer <-chan time.Time
		if ok {
			timer = d.After(next.Sub(now))
		}
		select {
		case <-ctx.Done():
		case <-d.wake:
		case <-timer:
		}
	}
}
