package scenario

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/delay"
	"github.com/vcjob/vcjob/plugins"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
	"github.com/vcjob/vcjob/vcjobtest/perturb"
	"github.com/vcjob/vcjob/worker"
)

// maxStepsPerCommand bounds how many requests one script line may cause
// (per pod of the job, and at least minSteps), so that a job that never
// settles is reported instead of looping.
const (
	maxStepsPerPod = 10
	minSteps       = 1000
)

// A failed request is requeued as Volcano's worker queue requeues it
// (handleJobError): rate-limited, MaxRequeue times at most (Volcano's
// --max-requeue-num default), after RequeueBase doubling with each
// failure of that request (client-go's default controller rate limiter,
// capped at RequeueMax); the next failure gives up on it and terminates
// the job (worker.Step.GiveUp).
const (
	MaxRequeue  = 15
	RequeueBase = 5 * time.Millisecond
	RequeueMax  = 1000 * time.Second
)

// requeueDelay is how long the rate limiter holds back a request that
// has failed failures times before.
func requeueDelay(failures int) time.Duration {
	d := RequeueBase
	for i := 0; i < failures; i++ {
		d *= 2
		if d >= RequeueMax {
			return RequeueMax
		}
	}
	return d
}

// retry is a requeued request and when the rate limiter hands it back.
type retry struct {
	req request.Request
	due time.Time
}

// errUnsettled: a line set off more requests than the job's bound.
var errUnsettled = errors.New("the job did not settle")

// Start is the simulated clock's origin.
var Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// sim runs the real pipeline on an in-memory cluster: the cluster's
// changes feed the cache's handlers as an informer would, the requests go
// through the worker step, and delayed actions fire as the clock advances.
type sim struct {
	// ctx is the context of every step: a simulation is never stopped.
	ctx     context.Context
	ns, job string
	now     time.Time
	cluster *memcluster.Cluster
	cache   *cache.Cache
	step    *worker.Step
	queue   []request.Request
	out     Observer
	// podGroup is the PodGroup phase last reported ("" none).
	podGroup string
	maxSteps int
	// gc is Volcano's garbage collector (spec.ttlSecondsAfterFinished).
	gc gcState
	// hadPods: a command found the job's pods once, so a job without pods
	// lost them to a kill rather than never got them.
	hadPods bool
	// ext is what the verbs keep between lines.
	ext extState
	// failures counts each failed request's requeues since it last
	// succeeded (the work queue's NumRequeues); retries are the requeued
	// requests, by due time.
	failures map[request.Request]int
	retries  []retry
	// held: a "controller restart held" left its requests queued for the
	// next command to handle after its own changes.
	held bool
	// pert is the perturbation the controller runs under (perturb.go), nil
	// for a plain simulation; sem and reg rebuild the controller after a
	// crash.
	pert *perturb.Run
	sem  behavior.Set
	reg  *plugins.Registry
}

// extState is what the verbs keep between lines.
type extState struct {
	// deletedAt is the script line that deleted the job (0: not
	// deleted; verb_delete.go, verb_create.go).
	deletedAt int
	// podGroupEvents are the Events the simulated scheduler recorded on
	// the job's PodGroup, in order (verb_unschedulable.go).
	podGroupEvents []record.Event
	// set is the PodGroup status the last podgroup or unschedulable
	// command wrote, before the job controller reacted; Trace takes it
	// for the line's Step.
	set *podgroup.Status
	// manifest is the job as loaded, for "create".
	manifest *vcjob.Job
}

// newSim starts a simulation deciding under the semantics sem (the
// embedder's choice; the job's own annotation applies on top), with the
// claims the options name already there.
func newSim(job *vcjob.Job, out Observer, sem behavior.Set, claims ...string) (*sim, error) {
	return newSimUnder(job, out, sem, nil, claims...)
}

// newSimUnder is newSim with the controller under run's perturbation
// (nil: none).
func newSimUnder(job *vcjob.Job, out Observer, sem behavior.Set, run *perturb.Run, claims ...string) (*sim, error) {
	s := &sim{ctx: context.Background(), now: Start, out: out, pert: run, sem: sem}
	var pods int32
	for _, t := range job.Spec.Tasks {
		pods += t.Replicas
	}
	s.maxSteps = max(minSteps, maxStepsPerPod*int(pods))
	s.cluster = memcluster.New(metav1.NewTime(Start))
	s.cluster.Watch = true
	s.cluster.GracefulDelete = true
	s.cluster.Behavior = sem
	s.cache = cache.New()
	s.cache.Behavior = sem
	// The job's plugins run as in Volcano; ssh gets the plugins package's
	// fixed test key, since a simulation needs no real one.
	s.reg = plugins.NewRegistry(plugins.WithSSHKeys(plugins.TestKeySource()))
	var applier statemachine.Applier = s.cluster
	if run != nil {
		s.ctx, applier = run.Context(), run.Wrap(s.cluster)
	}
	s.step = &worker.Step{Jobs: s.cache, Delays: delay.New(), Cluster: &statemachine.Applied{Applier: applier, Plugins: s.reg, Behavior: sem}}
	for _, c := range claims {
		ns := job.Namespace
		if ns == "" {
			ns = metav1.NamespaceDefault // where PutJob puts the job
		}
		s.cluster.PutClaim(ns, c)
	}
	s.ext.manifest = job.DeepCopy() // for "create" after "delete"
	// Stored as an API server stores a manifest: in namespace default
	// when it names none, with a UID and the creation time (a deadline
	// counts from it).
	job = s.cluster.PutJob(job)
	s.ns, s.job = job.Namespace, job.Name
	s.out.Command(0, "create job "+job.Name, s.now)
	return s, s.settle()
}

// run executes one script command and everything it sets off; requests
// a held restart left queued are handled by the next command at the
// latest.
func (s *sim) run(c Command) error {
	s.held = false
	if err := s.runCommand(c); err != nil || s.held || len(s.queue) == 0 {
		return err
	}
	return s.settle()
}

// runCommand executes one script command: its verb's play, unless the
// job is gone and the verb does not play then.
func (s *sim) runCommand(c Command) error {
	s.out.Command(c.Line, c.Text, s.now)
	v := c.op
	if v == nil {
		return c.errorf("unknown command %q", c.verb)
	}
	if r := s.gc.deleted; r != nil && !v.afterGC {
		return c.errorf("the job is gone: the garbage collector deleted it at %s", offset(r.Time))
	}
	if s.ext.deletedAt > 0 && !v.afterDelete {
		return c.errorf("the job is gone: line %d deleted it (\"create\" creates it again)", s.ext.deletedAt)
	}
	return v.play(s, c)
}

// NoteObserver is an Observer that also takes the simulator's notes on a
// command: what a real cluster would do otherwise than the script says.
type NoteObserver interface {
	Note(text string, now time.Time)
}

func (s *sim) note(format string, args ...any) {
	if n, ok := s.out.(NoteObserver); ok {
		n.Note(fmt.Sprintf(format, args...), s.now)
	}
}

// advance moves the clock, firing each delayed action at its deadline
// and handing each requeued request back when the rate limiter does
// (delayed actions first at the same instant).
func (s *sim) advance(d time.Duration) error {
	// Requests a held restart left are handled before time passes.
	if len(s.queue) > 0 {
		if err := s.settle(); err != nil {
			return err
		}
	}
	until := s.now.Add(d)
	for {
		next, ok := s.step.Delays.Next()
		if len(s.retries) > 0 && (!ok || s.retries[0].due.Before(next)) {
			next, ok = s.retries[0].due, true
		}
		// The garbage collector's look comes after the delayed actions
		// and requeues due at the same time.
		if at, waits := s.gc.due(); waits && !at.After(until) && (!ok || at.Before(next)) {
			s.fireGC(at)
			continue
		}
		if !ok || next.After(until) {
			break
		}
		s.setNow(next)
		if due := s.step.Delays.Due(next); len(due) > 0 {
			for _, e := range due {
				rec := s.step.Fire(s.ctx, e, s.now)
				s.out.Record(rec)
				if s.crashed() {
					// The new controller has no delayed actions; it
					// goes on with what its relist raised.
					if err := s.settle(); err != nil {
						return err
					}
					break
				}
				s.failed(e.Request, rec, true)
				if err := s.settle(); err != nil {
					return err
				}
			}
			continue
		}
		for len(s.retries) > 0 && !s.retries[0].due.After(next) {
			s.queue = append(s.queue, s.retries[0].req)
			s.retries = s.retries[1:]
		}
		if err := s.settle(); err != nil {
			return err
		}
	}
	s.setNow(until)
	return nil
}

// failed handles a step's record as Volcano's worker does: a success
// forgets the request's failures; a failure requeues the request,
// rate-limited, or, once it has been requeued MaxRequeue times, gives up
// on it and terminates the job. A delayed action that failed (fired)
// requeues the request that registered it and then forgets its failures,
// as Volcano's timer does (it calls Forget right after the requeue), so
// it never reaches the limit that way.
func (s *sim) failed(req request.Request, rec worker.Record, fired bool) {
	if rec.Err == nil {
		delete(s.failures, req)
		return
	}
	n := s.failures[req]
	if !worker.Requeue(n, MaxRequeue) {
		delete(s.failures, req)
		s.out.Record(s.step.GiveUp(s.ctx, rec, s.now))
		s.crashed()
		return
	}
	if s.failures == nil {
		s.failures = map[request.Request]int{}
	}
	s.failures[req] = n + 1
	due := s.now.Add(requeueDelay(n))
	// The work queue holds a request back once: when it waits already,
	// the earlier time stands.
	if i := slices.IndexFunc(s.retries, func(w retry) bool { return w.req == req }); i >= 0 {
		if !due.Before(s.retries[i].due) {
			s.out.Requeued(req, n+1, s.retries[i].due)
			return
		}
		s.retries = slices.Delete(s.retries, i, i+1)
	}
	i := sort.Search(len(s.retries), func(i int) bool { return s.retries[i].due.After(due) })
	s.retries = slices.Insert(s.retries, i, retry{req: req, due: due})
	s.out.Requeued(req, n+1, due)
	if fired {
		delete(s.failures, req)
	}
}

func (s *sim) setNow(t time.Time) {
	s.now = t
	s.cluster.Now = metav1.NewTime(t)
}

// settle feeds the cluster's changes to the cache and processes requests
// until nothing is left to do.
func (s *sim) settle() error {
	for steps := 0; ; steps++ {
		s.observe()
		s.reportPodGroup()
		if len(s.queue) == 0 {
			if s.pert != nil {
				if held := s.pert.Idle(); len(held) > 0 {
					s.notify(held)
					continue
				}
			}
			s.collect()
			return nil
		}
		if steps >= s.maxSteps {
			return fmt.Errorf("%w after %d requests", errUnsettled, steps)
		}
		req := s.queue[0]
		s.queue = s.queue[1:]
		rec := s.step.Process(s.ctx, req, s.now)
		s.out.Record(rec)
		if s.crashed() {
			continue
		}
		s.failed(req, rec, false)
	}
}

// reportPodGroup tells the observer the PodGroup's phase when it changed.
func (s *sim) reportPodGroup() {
	phase := ""
	if g := s.cluster.PodGroup(s.cluster.StoredJob(s.ns, s.job)); g.Exists {
		phase = string(g.Phase)
		if phase == "" {
			phase = "(no phase)"
		}
	}
	if phase != s.podGroup {
		s.podGroup = phase
		s.out.PodGroup(phase, s.now)
	}
}

// observe drains the cluster's changes into the cache, queueing the
// requests the handlers raise.
func (s *sim) observe() {
	changes := s.cluster.Drain()
	if s.pert != nil {
		changes = s.pert.Deliver(changes)
	}
	s.notify(changes)
}

// notify hands changes to the cache, queueing the requests the handlers
// raise.
func (s *sim) notify(changes []memcluster.Change) {
	if len(changes) > 0 {
		s.out.Changes(changes, s.now)
	}
	for _, ch := range changes {
		if ch.NewJob != nil {
			s.gc.noteJob(ch.NewJob)
		}
		if req, ok := ch.Notify(s.cache); ok {
			s.queue = append(s.queue, req)
		}
	}
}
