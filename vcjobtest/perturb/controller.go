package perturb

import (
	"errors"
	"fmt"
	"time"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/delay"
	"github.com/vcjob/vcjob/plugins"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/worker"
)

// Controller is a job controller under a Run: a cache fed by the
// world's watch through the run, a delay queue and a worker.Step acting
// through the run's Applier. It is what an embedder drives to perturb
// its own World: apply a change of the world, then Settle; queue a
// request (a command) with Queue; let time pass with Advance; end with
// Drain. A crash replaces the cache, the queue and the delayed actions
// by a new controller's, filled from the world. A failed step's request
// goes to the back of the queue at once (there is no rate limiter: the
// clock is the caller's); after MaxFailures failures the controller gives
// up on it as Volcano's worker does (worker.Step.GiveUp).
type Controller struct {
	Run       *Run
	World     World
	Feed      Feed
	Namespace string
	Name      string
	// Semantics and Plugins are those of every controller of the run.
	Behavior behavior.Set
	Plugins  *plugins.Registry

	// Cache and Step are the current controller's.
	Cache *cache.Cache
	Step  *worker.Step

	queue    []request.Request
	failures map[request.Request]int
	applier  statemachine.Applier
}

// MaxFailures is how often a request may fail before the controller gives
// up on it (Volcano's default --max-requeue-num).
const MaxFailures = 15

// MaxSteps bounds the steps of one Settle: a job still raising requests
// after that many never settles (Stable).
const MaxSteps = 1000

// ErrUnsettled is Settle's error when a job keeps raising requests.
var ErrUnsettled = errors.New("perturb: the job did not settle")

// NewController starts a controller of the named job under run; the
// caller has put the job into w and Settles to let it see it.
func NewController(run *Run, w World, feed Feed, namespace, name string, sem behavior.Set, reg *plugins.Registry) *Controller {
	c := &Controller{Run: run, World: w, Feed: feed, Namespace: namespace, Name: name, Behavior: sem, Plugins: reg}
	c.applier = run.Wrap(w)
	c.fresh()
	return c
}

func (c *Controller) fresh() {
	c.Cache = cache.New()
	c.Cache.Behavior = c.Behavior
	c.Step = &worker.Step{Jobs: c.Cache, Delays: delay.New(),
		Cluster: &statemachine.Applied{Applier: c.applier, Plugins: c.Plugins, Behavior: c.Behavior}}
	c.queue, c.failures = nil, nil
}

// Queue adds a request (a command's, a test's) to the controller's queue.
func (c *Controller) Queue(req request.Request) { c.queue = append(c.queue, req) }

// Restart replaces the controller by a new one that knows only what the
// world holds (Run.Restart).
func (c *Controller) Restart() {
	c.fresh()
	c.queue = c.Run.Restart(c.Cache, c.World, c.Feed, c.Namespace, c.Name)
}

// Settle feeds the world's changes to the cache through the run and
// processes requests until none is left, at now.
func (c *Controller) Settle(now time.Time) error {
	for steps := 0; ; steps++ {
		c.notify(c.Run.Deliver(c.Feed.Drain()))
		if len(c.queue) == 0 {
			held := c.Run.Idle()
			if len(held) == 0 {
				return nil
			}
			c.notify(held)
			continue
		}
		if steps >= MaxSteps {
			return fmt.Errorf("%w after %d requests", ErrUnsettled, steps)
		}
		req := c.queue[0]
		c.queue = c.queue[1:]
		rec := c.Step.Process(c.Run.Context(), req, now)
		c.after(req, rec, now)
	}
}

// Advance fires the delayed actions due at now, settling after each.
func (c *Controller) Advance(now time.Time) error {
	for _, e := range c.Step.Delays.Due(now) {
		rec := c.Step.Fire(c.Run.Context(), e, now)
		if c.after(e.Request, rec, now) {
			break // the new controller has no delayed actions
		}
		if err := c.Settle(now); err != nil {
			return err
		}
	}
	return c.Settle(now)
}

// after ends a step: a crash restarts the controller (reported true); a
// failure is retried, or given up on once it failed MaxFailures times.
func (c *Controller) after(req request.Request, rec worker.Record, now time.Time) bool {
	c.Run.Stepped()
	if c.Run.Crashed() {
		c.Restart()
		return true
	}
	if rec.Err == nil {
		delete(c.failures, req)
		return false
	}
	if c.failures == nil {
		c.failures = map[request.Request]int{}
	}
	c.failures[req]++
	if c.failures[req] > MaxFailures {
		delete(c.failures, req)
		c.Step.GiveUp(c.Run.Context(), rec, now)
		c.Run.Stepped()
		if c.Run.Crashed() {
			c.Restart()
			return true
		}
		return false
	}
	c.queue = append(c.queue, req)
	return false
}

func (c *Controller) notify(changes []Change) {
	for _, ch := range changes {
		if req, ok := ch.Notify(c.Cache); ok {
			c.queue = append(c.queue, req)
		}
	}
}

// Drain is the end of a run: what the run holds back is delivered, then,
// round after round, finish lets pods being deleted go (the kubelet; nil:
// none), the clock runs to each delayed action (setNow moves the world's
// clock), and a new controller relists the world and syncs the job, until
// a round changes nothing (Fingerprint) or MaxDrainRounds. It records
// Stable when the job keeps changing and Live when it is stuck (Stuck).
func (c *Controller) Drain(now time.Time, finish func(), setNow func(time.Time)) (time.Time, error) {
	c.notify(c.Run.Flush())
	if err := c.Settle(now); err != nil {
		return now, err
	}
	runOut := func() error {
		for i := 0; i < maxRunOut; i++ {
			if finish != nil {
				finish()
			}
			next, ok := c.Step.Delays.Next()
			if !ok {
				return c.Settle(now)
			}
			if next.After(now) {
				now = next
				setNow(now)
			}
			if err := c.Advance(now); err != nil {
				return err
			}
		}
		return fmt.Errorf("perturb: still busy after %d delayed actions", maxRunOut)
	}
	for round := 0; ; round++ {
		if err := runOut(); err != nil {
			return now, err
		}
		before := Fingerprint(c.World, c.Namespace, c.Name)
		c.Restart()
		c.Queue(request.Request{Namespace: c.Namespace, JobName: c.Name, Event: vcjob.OutOfSyncEvent})
		if err := c.Settle(now); err != nil {
			return now, err
		}
		if err := runOut(); err != nil {
			return now, err
		}
		after := Fingerprint(c.World, c.Namespace, c.Name)
		if after == before {
			break
		}
		if round == MaxDrainRounds {
			c.Run.Violate(Stable, "a relist still changes the job: %s -> %s", before, after)
			return now, nil
		}
	}
	if why := Stuck(c.World, c.Namespace, c.Name); why != "" {
		c.Run.Violate(Live, "%s", why)
	}
	return now, nil
}

// MaxDrainRounds bounds the relists of a drain.
const MaxDrainRounds = 4

const maxRunOut = 200
