package exhaustive

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/validation"
	"github.com/vcjob/vcjob/vcjobtest/rapidgen"
	"github.com/vcjob/vcjob/worker"
)

// Options tune Explore. The zero value explores everything.
type Options struct {
	// ExitCodes are the codes a pod fails with. Default: every code the
	// job's policies name (1–255), and one none names.
	ExitCodes []int32
	// Commands are the actions users may issue. Default: every action a
	// command may carry. NoCommands explores without any.
	Commands   []vcjob.Action
	NoCommands bool
	// ContainerRestarts adds "restart POD": a Running pod's container
	// restarts in place, which is what raises TaskFailed.
	ContainerRestarts bool
	// PodGroupPhases are the phases the scheduler may move the PodGroup
	// to. Default: Pending, Inqueue, Running, Unknown.
	PodGroupPhases []podgroup.Phase
	// MaxStates bounds the search: Explore fails beyond it. Default
	// 1,000,000.
	MaxStates int
	// MaxDelayed bounds the delayed actions pending at once. Volcano
	// lets orphaned ones pile up (a pod evicted again and again before any
	// falls due keeps adding some), so without a bound a job with two
	// timeouts on one task has infinitely many states. A transition to a
	// state with more is not followed; Result.Cut counts them. Default 3.
	MaxDelayed int
	// MaxSettleSteps bounds the requests one event may set off: beyond it
	// the job did not settle, which is a violation. Default 500.
	MaxSettleSteps int
	// VerifyEvery, above 0, checks every n-th transition twice: the world
	// rebuilt from the state's key must have that key again, and the next
	// event must lead to the same state from the world the state was found
	// in as from the rebuilt one.
	VerifyEvery int
	// Check is called for every processing step besides rapidgen's
	// checkers; its error is a violation. It is called from every worker
	// at once: it must be safe for concurrent use.
	Check func(Step) error
	// Workers expanding states in parallel, each on a goroutine of its
	// own. Default GOMAXPROCS.
	Workers int
	// Behavior is the behaviour the job is explored under
	// (behavior.Set); the zero value is Volcano's.
	Behavior behavior.Set
}

// Step is one processing step: the job and pods it decided on, its
// record, and the job once it was done.
type Step struct {
	Before     *vcjob.Job
	PodsBefore []*corev1.Pod
	Record     worker.Record
	After      *vcjob.Job
}

// Violation is a broken invariant and how to get there.
type Violation struct {
	// Path is the events from the job's creation to the event during
	// which it broke (the last one).
	Path []string
	// Step is the processing step that broke it ("" for a failure of the
	// search itself, such as a job that does not settle).
	Step string
	Err  error
}

func (v Violation) Error() string {
	s := "after " + strings.Join(v.Path, "; ")
	if v.Step != "" {
		s += ": step " + v.Step
	}
	return s + ": " + v.Err.Error()
}

// Stuck is a state from which no terminal phase can be reached.
type Stuck struct {
	Path  []string
	State string
}

// Result is what Explore found.
type Result struct {
	// States are the distinct states; Transitions the (state, event)
	// pairs explored; Steps the processing steps run; Depth the most
	// events a state needs from the job's creation.
	States, Transitions, Steps, Depth int
	// ByPhase counts states by job phase.
	ByPhase map[vcjob.JobPhase]int
	// Violations of the per-step checks (at most 50 are kept;
	// ViolationCount counts all).
	Violations     []Violation
	ViolationCount int
	// Stuck are the states that cannot reach a terminal phase (at most
	// 50 kept; StuckCount counts all).
	Stuck      []Stuck
	StuckCount int
	// CommandOnly counts the states that reach a terminal phase only
	// through a command: without one, the job never finishes.
	CommandOnly int
	// Verified counts the transitions VerifyEvery checked.
	Verified int
	// Cut counts the transitions not followed because they lead to more
	// than MaxDelayed pending delayed actions.
	Cut int
	// Moves counts the processing steps that changed the phase, by
	// "From->To" (a Restarting passed through within one event shows here
	// even though no state rests in it).
	Moves map[string]int
	// Fired counts the actions run because a policy chose them (at once,
	// or when their delay ran out).
	Fired map[vcjob.Action]int
}

// Err is every violation and stuck state, or nil.
func (r *Result) Err() error {
	var errs []error
	for _, v := range r.Violations {
		errs = append(errs, v)
	}
	if n := r.ViolationCount - len(r.Violations); n > 0 {
		errs = append(errs, fmt.Errorf("and %d more violations", n))
	}
	for _, s := range r.Stuck {
		errs = append(errs, fmt.Errorf("no terminal phase is reachable from %s, reached by %s", s.State, strings.Join(s.Path, "; ")))
	}
	if n := r.StuckCount - len(r.Stuck); n > 0 {
		errs = append(errs, fmt.Errorf("and %d more stuck states", n))
	}
	return errors.Join(errs...)
}

// Terminal reports whether a job in phase p is done: Completed,
// Terminated, Failed, or Aborted (which only ResumeJob leaves).
func Terminal(p vcjob.JobPhase) bool { return p.IsFinished() || p == vcjob.Aborted }

const keep = 50

type explorer struct {
	job        *vcjob.Job
	opts       Options
	codes      []int32
	commands   []vcjob.Action
	pgPhases   []podgroup.Phase
	restartCap map[string]int32
}

// Explore searches every state job can reach (see the package doc). job
// is defaulted and validated first (a job without a namespace gets
// "default", one without a UID gets one); an invalid job, a job with
// volumes, or more than MaxStates states is an error.
func Explore(job *vcjob.Job, opts Options) (*Result, error) {
	x, err := newExplorer(job, opts)
	if err != nil {
		return nil, err
	}
	return x.run()
}

func newExplorer(job *vcjob.Job, opts Options) (*explorer, error) {
	if job == nil {
		return nil, errors.New("exhaustive: no job")
	}
	j := job.DeepCopy()
	vcjob.SetDefaults(j)
	if j.Namespace == "" {
		j.Namespace = "default"
	}
	if j.UID == "" {
		j.UID = types.UID("uid-" + j.Name)
	}
	j.Status = vcjob.JobStatus{}
	j.ResourceVersion = ""
	if errs := validation.ValidateJob(j); len(errs) > 0 {
		return nil, fmt.Errorf("exhaustive: invalid job: %w", errs.ToAggregate())
	}
	if len(j.Spec.Volumes) > 0 {
		return nil, errors.New("exhaustive: jobs with volumes are not supported")
	}
	if ext, err := policy.ExtensionsOf(j); err != nil {
		return nil, fmt.Errorf("exhaustive: %w", err)
	} else if ext != nil && (ext.Deadline != nil || ext.RestartBackoff != nil || ext.RetryBudget != nil || ext.Escalation != nil) {
		// States keep time only as the delayed actions' remaining time and
		// no memory beyond the job's status: a deadline or a backoff
		// (absolute times) and a budget or an escalation (a history)
		// would merge states that differ.
		return nil, errors.New("exhaustive: the deadline, restartBackoff, retryBudget and escalation extensions are not supported (exitCodes and disruptions are)")
	}
	x := &explorer{job: j, opts: opts, restartCap: map[string]int32{}}
	if x.opts.MaxStates <= 0 {
		x.opts.MaxStates = 1_000_000
	}
	if x.opts.MaxDelayed <= 0 {
		x.opts.MaxDelayed = 3
	}
	if x.opts.MaxSettleSteps <= 0 {
		x.opts.MaxSettleSteps = 500
	}
	if x.opts.Workers <= 0 {
		x.opts.Workers = runtime.GOMAXPROCS(0)
	}
	x.codes = opts.ExitCodes
	if len(x.codes) == 0 {
		x.codes = defaultExitCodes(j)
	}
	if !opts.NoCommands {
		x.commands = opts.Commands
		if len(x.commands) == 0 {
			x.commands = vcjob.PolicyActions()
		}
	}
	x.pgPhases = opts.PodGroupPhases
	if len(x.pgPhases) == 0 {
		x.pgPhases = []podgroup.Phase{podgroup.PhasePending, podgroup.PhaseInqueue, podgroup.PhaseRunning, podgroup.PhaseUnknown}
	}
	for _, t := range j.Spec.Tasks {
		// The task-failed predicate: restarts add up to maxRetry (0 means
		// cache.DefaultTaskMaxRetry, −1 never). More restarts per pod
		// change nothing.
		limit := t.MaxRetry
		switch {
		case limit == 0:
			limit = cache.DefaultTaskMaxRetry
		case limit < 0:
			limit = 0
		}
		x.restartCap[t.Name] = limit
	}
	return x, nil
}

func defaultExitCodes(job *vcjob.Job) []int32 {
	seen := map[int32]bool{}
	var out []int32
	add := func(ps []vcjob.LifecyclePolicy) {
		for _, p := range ps {
			if c := p.ExitCode; c != nil && *c > 0 && *c < 256 && !seen[*c] {
				seen[*c] = true
				out = append(out, *c)
			}
		}
	}
	add(job.Spec.Policies)
	for _, t := range job.Spec.Tasks {
		add(t.Policies)
	}
	other := int32(1)
	for seen[other] {
		other++
	}
	out = append(out, other)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// eventKind is what an event does.
type eventKind int

const (
	evStart eventKind = iota
	evFail
	evSucceed
	evRestart
	evEvict
	evFinish
	evPodGroup
	evCommand
	evAdvance
)

type event struct {
	kind   eventKind
	pod    string
	code   int32
	phase  podgroup.Phase
	action vcjob.Action
}

func (e event) String() string {
	switch e.kind {
	case evStart:
		return "start " + e.pod
	case evFail:
		return fmt.Sprintf("fail %s %d", e.pod, e.code)
	case evSucceed:
		return "succeed " + e.pod
	case evRestart:
		return "restart " + e.pod
	case evEvict:
		return "evict " + e.pod
	case evFinish:
		return "finish " + e.pod
	case evPodGroup:
		return "podgroup " + string(e.phase)
	case evCommand:
		return "command " + string(e.action)
	}
	return "advance"
}

// events lists what can happen in state s.
func (x *explorer) events(s *state) []event {
	var out []event
	for _, p := range s.pods {
		name := fmt.Sprintf("%s-%d", p.task, p.index)
		if p.terminating {
			out = append(out, event{kind: evFinish, pod: name})
			continue
		}
		switch p.phase {
		case corev1.PodPending:
			out = append(out, event{kind: evStart, pod: name})
		case corev1.PodRunning:
			for _, c := range x.codes {
				out = append(out, event{kind: evFail, pod: name, code: c})
			}
			out = append(out, event{kind: evSucceed, pod: name})
			if x.opts.ContainerRestarts {
				out = append(out, event{kind: evRestart, pod: name})
			}
		}
		out = append(out, event{kind: evEvict, pod: name})
	}
	if s.pg.exists {
		for _, ph := range x.pgPhases {
			if ph != s.pg.phase {
				out = append(out, event{kind: evPodGroup, phase: ph})
			}
		}
	}
	for _, a := range x.commands {
		out = append(out, event{kind: evCommand, action: a})
	}
	if len(s.entries) > 0 {
		out = append(out, event{kind: evAdvance})
	}
	return out
}

// apply plays ev on the world, then lets the controller settle.
func (w *world) apply(ev event) error {
	c := w.cluster
	ns, job := w.x.job.Namespace, w.x.job.Name
	var pod *corev1.Pod
	if ev.pod != "" {
		pod = c.Pod(ns, job+"-"+ev.pod)
		if pod == nil {
			return fmt.Errorf("no pod %s", ev.pod)
		}
	}
	restarts := func() int32 {
		if len(pod.Status.ContainerStatuses) > 0 {
			return pod.Status.ContainerStatuses[0].RestartCount
		}
		return 0
	}
	switch ev.kind {
	case evStart:
		pod.Spec.NodeName = "node-0"
		pod.Status.Phase = corev1.PodRunning
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", Ready: true, RestartCount: restarts(),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: c.Now}}}}
		c.PutPod(pod)
	case evFail, evSucceed:
		pod.Status.Phase = corev1.PodFailed
		if ev.kind == evSucceed {
			pod.Status.Phase = corev1.PodSucceeded
		}
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", RestartCount: restarts(),
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: ev.code, FinishedAt: c.Now}}}}
		c.PutPod(pod)
	case evRestart:
		if len(pod.Status.ContainerStatuses) == 0 {
			pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", Ready: true}}
		}
		pod.Status.ContainerStatuses[0].RestartCount++
		c.PutPod(pod)
	case evEvict, evFinish:
		c.RemovePod(ns, pod.Name)
	case evPodGroup:
		c.SetPodGroupPhase(ns, podgroup.Name(w.x.job), ev.phase)
	case evCommand:
		cmd := &vcjob.Command{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cmd"}, Action: string(ev.action),
			TargetObject: &metav1.OwnerReference{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind, Name: job}}
		req, ok := cache.CommandRequest(cmd)
		if !ok {
			return fmt.Errorf("command %s raised no request", ev.action)
		}
		w.queue = append(w.queue, req)
	case evAdvance:
		next, ok := w.step.Delays.Next()
		if !ok {
			return errors.New("advance: nothing is pending")
		}
		w.setNow(next)
		for _, e := range w.step.Delays.Due(next) {
			if e.Action == orphaner {
				continue
			}
			w.checked(func() worker.Record { return w.step.Fire(context.Background(), e, w.now) })
			if err := w.settle(); err != nil {
				return err
			}
		}
		return nil
	}
	return w.settle()
}

func (w *world) setNow(t time.Time) {
	w.now = t
	w.cluster.Now = metav1.NewTime(t)
}

// settle feeds the cluster's changes to the cache and processes the
// requests they raise until none is left.
func (w *world) settle() error {
	for n := 0; ; n++ {
		w.observe()
		if len(w.queue) == 0 {
			return nil
		}
		if n >= w.x.opts.MaxSettleSteps {
			return fmt.Errorf("the job did not settle after %d requests", n)
		}
		req := w.queue[0]
		w.queue = w.queue[1:]
		w.checked(func() worker.Record { return w.step.Process(context.Background(), req, w.now) })
	}
}

// observe drains the cluster's changes into the cache, as informers
// would, and queues the requests the handlers raise.
func (w *world) observe() {
	for _, ch := range w.cluster.Drain() {
		if ch.NewJob != nil && ch.OldJob != nil {
			// The spec never changes while exploring: giving the new job
			// the old one's spec (the same slices, maps and pointers) lets
			// the handler's spec comparison take its fast path.
			ch.NewJob.Spec = ch.OldJob.Spec
		}
		if req, ok := ch.Notify(w.cache); ok {
			w.queue = append(w.queue, req)
		}
	}
}

// checked runs one processing step and checks it.
func (w *world) checked(do func() worker.Record) {
	w.steps++
	w.seen = nil
	rec := do()
	after := w.cluster.Job(w.x.job.Namespace, w.x.job.Name)
	if rec.PhaseBefore != rec.PhaseAfter {
		if w.moves == nil {
			w.moves = map[string]int{}
		}
		w.moves[string(rec.PhaseBefore)+"->"+string(rec.PhaseAfter)]++
	}
	switch rec.Rule.Kind {
	case policy.RuleTaskPolicy, policy.RuleJobPolicy, worker.RuleDelayed:
		if rec.Transition != nil {
			if w.fired == nil {
				w.fired = map[vcjob.Action]int{}
			}
			w.fired[rec.Action]++
		}
	}
	var before *vcjob.Job
	var pods []*corev1.Pod
	if w.seen != nil {
		before = w.seen.Job
		for _, p := range w.seen.Pods() {
			pods = append(pods, p)
		}
		sort.Slice(pods, func(i, j int) bool { return pods[i].Name < pods[j].Name })
	}
	var errs []error
	switch {
	case before == nil:
		errs = append(errs, errors.New("the job is not in the cache"))
	case rec.Skipped != "":
		errs = append(errs, fmt.Errorf("skipped: %s", rec.Skipped))
	case rec.Err != nil:
		errs = append(errs, fmt.Errorf("the step failed: %w", rec.Err))
	default:
		errs = append(errs, rapidgen.CheckStepWith(before, after, rec, w.x.opts.Behavior), rapidgen.CheckEffects(before, pods, rec))
		for _, name := range rec.Effects.Created {
			if p := w.cluster.Pod(before.Namespace, name); p != nil {
				errs = append(errs, rapidgen.CheckPod(before, p))
			}
		}
		if w.x.opts.Check != nil {
			errs = append(errs, w.x.opts.Check(Step{Before: before, PodsBefore: pods, Record: rec, After: after}))
		}
	}
	if err := errors.Join(errs...); err != nil {
		w.failures = append(w.failures, failure{record: rec.String(), err: err})
	}
}

// transition is what one event did to a state.
type transition struct {
	event    event
	to       *state
	key      string
	steps    int
	failures []failure
	moves    map[string]int
	fired    map[vcjob.Action]int
	err      error // the event could not be played or did not settle
	verified bool
}

// expand plays every event of state s, each on its own rebuilt world.
func (x *explorer) expand(s *state, probe uint64) []transition {
	evs := x.events(s)
	out := make([]transition, len(evs))
	for i, ev := range evs {
		w := x.rebuild(s)
		t := transition{event: ev}
		t.err = w.apply(ev)
		t.steps, t.failures, t.moves, t.fired = w.steps, w.failures, w.moves, w.fired
		if t.err == nil {
			t.to = w.snapshot()
			t.key = t.to.key()
			if err := t.to.sane(); err != nil {
				t.err = err
			}
			if n := uint64(x.opts.VerifyEvery); n > 0 && (probe+uint64(i))%n == 0 && t.err == nil {
				t.err = x.verify(w, t.to, t.key, uint64(i)+probe)
				t.verified = true
			}
		}
		out[i] = t
	}
	return out
}

// verify checks that the state found in world w is all that matters: the
// world rebuilt from it has the same key, and one more event leads to the
// same state from both.
func (x *explorer) verify(w *world, s *state, key string, pick uint64) error {
	r := x.rebuild(s)
	if got := r.snapshot().key(); got != key {
		return fmt.Errorf("verify: the rebuilt world has another state:\n  found   %s\n  rebuilt %s", key, got)
	}
	evs := x.events(s)
	if len(evs) == 0 {
		return nil
	}
	ev := evs[pick%uint64(len(evs))]
	// The probe's own steps are not tallied; a step it breaks is found
	// again when the state it leads to is expanded.
	w.steps, w.failures, w.moves, w.fired = 0, nil, nil, nil
	e1, e2 := w.apply(ev), r.apply(ev)
	if (e1 == nil) != (e2 == nil) {
		return fmt.Errorf("verify: %s: found world %v, rebuilt world %v", ev, e1, e2)
	}
	if e1 != nil {
		return nil
	}
	if k1, k2 := w.snapshot().key(), r.snapshot().key(); k1 != k2 {
		return fmt.Errorf("verify: %s from %s leads to different states:\n  found   %s\n  rebuilt %s", ev, key, k1, k2)
	}
	return nil
}

// sane reports a state the key cannot describe.
func (s *state) sane() error {
	for _, e := range s.entries {
		if e.remaining <= 0 {
			return fmt.Errorf("a delayed %s is overdue by %s after settling", e.action, -e.remaining)
		}
	}
	return nil
}

type node struct {
	s      *state
	parent int32
	event  string
	depth  int
}

// edge is a transition into a node, kept for the liveness walk: from
// where, and whether it took a command.
type edge struct {
	from    int32
	command bool
}

// graph is the state space found so far: the nodes in the order found
// (node 0 the created job), the node of each state key, and each node's
// edges in.
type graph struct {
	nodes   []node
	index   map[string]int32
	reverse [][]edge
}

func (g *graph) add(s *state, key string, parent int32, ev string, depth int) int32 {
	id := int32(len(g.nodes))
	g.nodes = append(g.nodes, node{s: s, parent: parent, event: ev, depth: depth})
	g.index[key] = id
	g.reverse = append(g.reverse, nil)
	return id
}

// path is the events from the job's creation to node id, then last when
// it is not empty.
func (g *graph) path(id int32, last string) []string {
	var out []string
	if last != "" {
		out = append(out, last)
	}
	for ; id >= 0; id = g.nodes[id].parent {
		out = append(out, g.nodes[id].event)
	}
	slices.Reverse(out)
	return out
}

// reach marks the nodes from which a terminal state can be reached,
// walking the edges back from the terminal states; commands says whether
// edges that took a command count.
func (g *graph) reach(commands bool) []bool {
	ok := make([]bool, len(g.nodes))
	var queue []int32
	for id, n := range g.nodes {
		if Terminal(n.s.phase()) {
			ok[id] = true
			queue = append(queue, int32(id))
		}
	}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		for _, e := range g.reverse[id] {
			if !ok[e.from] && (commands || !e.command) {
				ok[e.from] = true
				queue = append(queue, e.from)
			}
		}
	}
	return ok
}

// run explores breadth first: each round expands the frontier's states in
// parallel, then merges what they led to in order, so that the result
// does not depend on the workers' timing.
func (x *explorer) run() (*Result, error) {
	w, err := x.initial()
	if err != nil {
		return nil, fmt.Errorf("exhaustive: creating the job: %w", err)
	}
	res := &Result{ByPhase: map[vcjob.JobPhase]int{}, Moves: map[string]int{}, Fired: map[vcjob.Action]int{}}
	init := w.snapshot()
	res.Steps += w.steps
	res.tally(w.moves, w.fired)
	res.addFailures([]string{"create"}, w.failures)

	g := &graph{index: map[string]int32{}}
	g.add(init, init.key(), -1, "create", 0)
	res.found(init, 0)
	for frontier := []int32{0}; len(frontier) > 0; {
		frontier, err = x.merge(res, g, frontier, x.expandAll(g, frontier))
		if err != nil {
			return res, err
		}
	}
	res.States = len(g.nodes)
	res.liveness(g)
	return res, nil
}

// expandAll expands the frontier's states on x.opts.Workers goroutines;
// the transitions of frontier[i] are the result's i-th.
func (x *explorer) expandAll(g *graph, frontier []int32) [][]transition {
	results := make([][]transition, len(frontier))
	var wg sync.WaitGroup
	next := make(chan int, len(frontier))
	for i := range frontier {
		next <- i
	}
	close(next)
	for k := 0; k < x.opts.Workers; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				id := frontier[i]
				results[i] = x.expand(g.nodes[id].s, uint64(id)*7)
			}
		}()
	}
	wg.Wait()
	return results
}

// merge tallies the frontier's transitions into res and adds the states
// they found first to g; it returns those states, the next frontier. A
// transition that failed, or left more delayed actions than allowed, adds
// no state.
func (x *explorer) merge(res *Result, g *graph, frontier []int32, results [][]transition) ([]int32, error) {
	var newFrontier []int32
	for i, id := range frontier {
		for _, t := range results[i] {
			res.Transitions++
			res.Steps += t.steps
			res.tally(t.moves, t.fired)
			if t.verified {
				res.Verified++
			}
			res.addFailures(g.path(id, t.event.String()), t.failures)
			if t.err != nil {
				res.ViolationCount++
				if len(res.Violations) < keep {
					res.Violations = append(res.Violations, Violation{Path: g.path(id, t.event.String()), Err: t.err})
				}
				continue
			}
			if len(t.to.entries) > x.opts.MaxDelayed {
				res.Cut++
				continue
			}
			to, ok := g.index[t.key]
			if !ok {
				if len(g.nodes) >= x.opts.MaxStates {
					return nil, fmt.Errorf("exhaustive: more than %d states", x.opts.MaxStates)
				}
				depth := g.nodes[id].depth + 1
				to = g.add(t.to, t.key, id, t.event.String(), depth)
				res.found(t.to, depth)
				newFrontier = append(newFrontier, to)
			}
			g.reverse[to] = append(g.reverse[to], edge{from: id, command: t.event.kind == evCommand})
		}
	}
	return newFrontier, nil
}

// found counts a new state.
func (r *Result) found(s *state, depth int) {
	r.ByPhase[s.phase()]++
	r.Depth = max(r.Depth, depth)
}

func (r *Result) tally(moves map[string]int, fired map[vcjob.Action]int) {
	for k, n := range moves {
		r.Moves[k] += n
	}
	for k, n := range fired {
		r.Fired[k] += n
	}
}

// addFailures counts the failed checks of the steps at the end of path,
// keeping the first few.
func (r *Result) addFailures(path []string, fs []failure) {
	for _, f := range fs {
		r.ViolationCount++
		if len(r.Violations) < keep {
			r.Violations = append(r.Violations, Violation{Path: path, Step: f.record, Err: f.err})
		}
	}
}

// liveness counts the states from which no terminal state can be reached
// (stuck, the first few kept), and those from which only a command reaches
// one.
func (r *Result) liveness(g *graph) {
	all, noCmd := g.reach(true), g.reach(false)
	for id, n := range g.nodes {
		switch {
		case !all[id]:
			r.StuckCount++
			if len(r.Stuck) < keep {
				r.Stuck = append(r.Stuck, Stuck{Path: g.path(int32(id), ""), State: n.s.key()})
			}
		case !noCmd[id]:
			r.CommandOnly++
		}
	}
}
