package scenario

import (
	"errors"
	"fmt"
	"time"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/delay"
	"github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
	"github.com/vcjob/vcjob/vcjobtest/perturb"
	"github.com/vcjob/vcjob/worker"
)

// Perturbed is the end of a scenario played under a perturbation.
type Perturbed struct {
	Final perturb.Final
	// Skipped are the script lines the perturbed run could not play (the
	// pod they name is not there, or not in the phase they need): the
	// world of a perturbed run can differ from the script's.
	Skipped []int
}

// Perturb plays the script under run's plan (perturb.Plan), with the
// controller's Applier wrapped by run and its watch filtered by it; after
// the script it drains the job (maxDrainRounds rounds at most): whatever
// the run still holds back is delivered, pods being deleted finish,
// delayed actions and requeued requests come due, and a new controller
// relists the cluster and syncs the job until the job no longer changes.
// The run records Stable when it keeps changing and Live when it is left
// waiting for what will not come (perturb.Stuck). A script line a
// perturbed world cannot play is skipped and named in the result; an
// unperturbed run (perturb.None) stops at it with its error, as Run does.
func Perturb(job *vcjob.Job, script []Command, opts Options, run *perturb.Run) (Perturbed, error) {
	return PerturbObserved(job, script, opts, run, nop{})
}

// PerturbObserved is Perturb telling o what happens (o.End is not
// called).
func PerturbObserved(job *vcjob.Job, script []Command, opts Options, run *perturb.Run, o Observer) (Perturbed, error) {
	var res Perturbed
	if job == nil || run == nil || o == nil {
		return res, errors.New("scenario: a job, a run and an observer are needed")
	}
	s, err := newSimUnder(job, o, opts.Behavior, run, opts.Claims...)
	if err != nil {
		return res, err
	}
	for _, c := range script {
		err := s.run(c)
		if err != nil && !errors.Is(err, errUnsettled) && s.relist() {
			// The line needs what the cache has not seen yet (pods a
			// lost change would have had created): the relist comes
			// first, then the line again.
			err = s.run(c)
		}
		switch {
		case err == nil:
		case errors.Is(err, errUnsettled):
			run.Violate(perturb.Stable, "line %d: %v", c.Line, err)
			res.Final = perturb.FinalOf(s.cluster, s.ns, s.job)
			return res, nil
		case run.Plan.Kind == perturb.None:
			return res, err
		default:
			res.Skipped = append(res.Skipped, c.Line)
			run.Note("line %d %q", c.Line, c.Text)
		}
	}
	if err := s.drain(); err != nil {
		run.Violate(perturb.Stable, "drain: %v", err)
	}
	res.Final = perturb.FinalOf(s.cluster, s.ns, s.job)
	return res, nil
}

// relist delivers what the run still holds back and settles; it reports
// whether there was anything.
func (s *sim) relist() bool {
	held := s.pert.Flush()
	if len(held) == 0 {
		return false
	}
	s.notify(held)
	return s.settle() == nil
}

// maxDrainRounds bounds the drain: a job still changing after that many
// relists never settles.
const maxDrainRounds = perturb.MaxDrainRounds

// drain plays what the cluster would deliver after the script, then checks
// that the job stays as it is and is not stuck.
func (s *sim) drain() error {
	s.notify(s.pert.Flush())
	if err := s.settle(); err != nil {
		return err
	}
	if s.gc.deleted != nil || s.ext.deletedAt > 0 {
		return s.runOut()
	}
	for round := 0; ; round++ {
		if err := s.runOut(); err != nil {
			return err
		}
		before := perturb.Fingerprint(s.cluster, s.ns, s.job)
		// A new controller: its relist, then a sync of the job, as
		// any event for it would raise.
		s.restart()
		s.queue = append(s.queue, request.Request{Namespace: s.ns, JobName: s.job, Event: vcjob.OutOfSyncEvent})
		if err := s.settle(); err != nil {
			return err
		}
		if err := s.runOut(); err != nil {
			return err
		}
		if s.gc.deleted != nil {
			return nil
		}
		after := perturb.Fingerprint(s.cluster, s.ns, s.job)
		if after == before {
			break
		}
		if round == maxDrainRounds {
			s.pert.Violate(perturb.Stable, "a relist still changes the job: %s -> %s", before, after)
			return nil
		}
	}
	if why := perturb.Stuck(s.cluster, s.ns, s.job); why != "" {
		s.pert.Violate(perturb.Live, "%s", why)
	}
	return nil
}

// maxRunOut bounds how many times the drain lets time pass.
const maxRunOut = 200

// runOut lets the cluster do what it does on its own: pods being deleted
// finish, and time passes to each delayed action, requeued request and
// look of the garbage collector until none is left.
func (s *sim) runOut() error {
	for i := 0; i < maxRunOut; i++ {
		finished := len(s.cluster.FinishTerminating()) > 0
		next, ok := s.step.Delays.Next()
		if len(s.retries) > 0 && (!ok || s.retries[0].due.Before(next)) {
			next, ok = s.retries[0].due, true
		}
		if at, waits := s.gc.due(); waits && (!ok || at.Before(next)) {
			next, ok = at, true
		}
		switch {
		case ok:
			if err := s.advance(max(next.Sub(s.now), time.Nanosecond)); err != nil {
				return err
			}
		case finished:
			if err := s.settle(); err != nil {
				return err
			}
		default:
			return nil
		}
	}
	return fmt.Errorf("still busy after %d rounds of time passing", maxRunOut)
}

// crashed tells the perturbation a step is done and, when the controller
// crashed in it, starts a new one; it reports whether it did.
func (s *sim) crashed() bool {
	if s.pert == nil {
		return false
	}
	s.pert.Stepped()
	if !s.pert.Crashed() {
		return false
	}
	s.restart()
	return true
}

// restart replaces the controller by a new one that knows only what the
// cluster holds: a new cache filled by its relist, no queued or requeued
// requests, no delayed actions, no history (package perturb).
func (s *sim) restart() {
	s.cache = cache.New()
	s.cache.Behavior = s.sem
	applier := s.step.Cluster.Applier
	s.step = &worker.Step{Jobs: s.cache, Delays: delay.New(), Cluster: &statemachine.Applied{Applier: applier, Plugins: s.reg, Behavior: s.sem}}
	// The garbage collector is a controller of its own: it still sees
	// the job's changes the job controller's crash took with it.
	for _, ch := range s.cluster.Drain() {
		if ch.NewJob != nil {
			s.gc.noteJob(ch.NewJob)
		}
	}
	s.queue = s.pert.Restart(s.cache, s.cluster, nil, s.ns, s.job)
	s.ctx = s.pert.Context()
	s.retries, s.failures = nil, nil
}

// nop is the Observer of a perturbed run: only the end state counts.
type nop struct{}

func (nop) Command(int, string, time.Time)           {}
func (nop) Record(worker.Record)                     {}
func (nop) Recorded([]record.Event, time.Time)       {}
func (nop) Requeued(request.Request, int, time.Time) {}
func (nop) Changes([]memcluster.Change, time.Time)   {}
func (nop) PodGroup(string, time.Time)               {}
func (nop) End(string)                               {}
