package statemachine_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/jobinfo"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
	"github.com/vcjob/vcjob/vcjobtest/rapidgen"
	"github.com/vcjob/vcjob/worker"
)

// Property tests: random valid jobs driven through random scenarios
// (rapidgen.Scenario) on a memcluster.Cluster, with failing creates,
// deletes and status writes injected (gen_test.go). A request step builds
// its request with rapidgen's Step.Request, resolves it with
// policy.Resolve and, unless it is delayed, runs it with
// statemachine.Execute on a fresh snapshot; a world step (PodGroup phase,
// pod phases, node binding, readiness, terminations, the clock) is applied
// with Step.Apply. After every request that ran:
//
//	rapidgen  rapidgen.CheckStep and CheckEffects on what the call did
//	          (phases, finished jobs, retryCount, version, creates,
//	          targeted kills, sync deletes, kill sets: the rapidgen.Inv
//	          constants), and rapidgen.CheckPod on every created pod
//	plans     the plans behind the call, seen by a spy before memcluster
//	          applies them, pass the same checks as if every pod call had
//	          succeeded: a wrong create or delete shows even when an
//	          injected failure stopped it
//	oneCall   Execute makes exactly the call its transition names
//	noPanic   Resolve and Execute never panic
//
// TestPropertyInvariants also asserts that the interesting cases came up
// (see coverageMinimums), and TestPropertyDeterministic replays each
// scenario on a fresh cluster.
//
//	go test -race -run Property ./statemachine/
//	go test -run Property ./statemachine/ -rapid.checks=5000
//	go test -run Property ./statemachine/ -rapid.seed=N   # replay a failure

var propertyClock = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))

// TestPropertyInvariants drives random scenarios, checks every request
// that runs, and asserts that the checks were not vacuous.
func TestPropertyInvariants(t *testing.T) {
	st := newStats()
	rapid.Check(t, func(t *rapid.T) {
		sc := genScenario().Draw(t, "scenario")
		h := newHarness(sc)
		h.stats = st
		st.Scenarios++
		for i, o := range sc.Ops {
			h.step(t, i, o)
		}
	})
	t.Logf("coverage: %s", st)
	if !t.Failed() {
		checkCoverage(t, st)
	}
}

// coverageMinimums are the least each count must reach per 100 scenarios,
// so that a generator or harness that stops reaching a case fails the test
// instead of passing vacuously. They sit at half or less of the lowest
// count seen in 240 runs of 100 scenarios. Creates at a job version above
// 0 (about 3 in 100 scenarios) and terminating pods that finish (about 2)
// are too rare to assert.
var coverageMinimums = []struct {
	name string
	min  int
	seen string // the range seen
	get  func(*stats) int
}{
	{"requests executed", 350, "705-1090", func(s *stats) int { return s.Executed }},
	{"requests delayed", 15, "33-127", func(s *stats) int { return s.Delayed }},
	{"faults injected", 15, "36-82", func(s *stats) int { return s.Faults }},
	{"calls that failed", 3, "8-108", func(s *stats) int { return s.Errors }},
	{"SyncJob calls", 150, "319-574", func(s *stats) int { return s.SyncJob }},
	{"reconciling syncs", 90, "176-414", func(s *stats) int { return s.ReconcilingSyncs }},
	{"KillJob calls", 140, "284-586", func(s *stats) int { return s.KillJob }},
	{"KillTarget calls", 10, "22-81", func(s *stats) int { return s.KillTarget }},
	{"pods deleted by KillTarget", 2, "5-45", func(s *stats) int { return s.TargetDeletes }},
	{"pods created", 70, "148-314", func(s *stats) int { return s.PodsCreated }},
	{"version bumps", 130, "268-564", func(s *stats) int { return s.VersionBumps }},
	{"retries (retryCount+1)", 12, "26-70", func(s *stats) int { return s.Restarts }},
	{"requests to a finished job", 50, "111-355", func(s *stats) int { return s.StepsWhileFinished }},
	{"moves into Running", 8, "19-54", entered(vcjob.Running)},
	{"moves into Pending", 20, "49-102", entered(vcjob.Pending)},
	{"moves into Restarting", 12, "26-70", entered(vcjob.Restarting)},
	{"moves into Aborting", 2, "5-29", entered(vcjob.Aborting)},
	{"moves into Aborted", 2, "5-25", entered(vcjob.Aborted)},
	{"moves into Aborting, Completing or Terminating", 8, "18-44", entered(vcjob.Aborting, vcjob.Completing, vcjob.Terminating)},
	{"moves into Completed, Terminated or Failed", 8, "19-42", entered(vcjob.Completed, vcjob.Terminated, vcjob.Failed)},
	{"moves into Completed", 1, "3-23", entered(vcjob.Completed)},
	{"moves into Failed", 2, "5-24", entered(vcjob.Failed)},
}

// entered counts the moves into any of phases.
func entered(phases ...vcjob.JobPhase) func(*stats) int {
	return func(s *stats) int {
		n := 0
		for _, p := range phases {
			n += s.Entered[p]
		}
		return n
	}
}

// checkCoverage asserts coverageMinimums, scaled to the scenarios run; it
// asserts nothing on runs of fewer than 100 scenarios (-rapid.checks),
// where rare cases may not come up.
func checkCoverage(t *testing.T, st *stats) {
	t.Helper()
	if st.Scenarios < 100 {
		t.Logf("coverage not asserted: %d scenarios, fewer than 100", st.Scenarios)
		return
	}
	for _, m := range coverageMinimums {
		want := m.min * st.Scenarios / 100
		if got := m.get(st); got < want {
			t.Errorf("coverage: %s: %d in %d scenarios, want at least %d (%s per 100 seen)", m.name, got, st.Scenarios, want, m.seen)
		}
	}
}

// TestPropertyDeterministic replays each scenario on a fresh cluster: the
// journal, every step's decision, transition, error and status, and the
// final job and pods must be the same.
func TestPropertyDeterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sc := genScenario().Draw(t, "scenario")
		a, b := newHarness(sc), newHarness(sc)
		for i, o := range sc.Ops {
			a.step(t, i, o)
		}
		for i, o := range sc.Ops {
			b.step(t, i, o)
		}
		for i := range a.trace {
			if !reflect.DeepEqual(a.trace[i], b.trace[i]) {
				t.Fatalf("determinism: step %d (%s) differs on replay:\nfirst:  %+v\nreplay: %+v", i, sc.Ops[i], a.trace[i], b.trace[i])
			}
		}
		if !reflect.DeepEqual(a.c.Journal, b.c.Journal) {
			t.Fatalf("determinism: journals differ on replay:\nfirst:  %s\nreplay: %s", journalString(a.c.Journal), journalString(b.c.Journal))
		}
		ja, jb := a.c.Job(a.ns, a.name), b.c.Job(b.ns, b.name)
		if !reflect.DeepEqual(ja.Status, jb.Status) {
			t.Fatalf("determinism: final status differs on replay:\nfirst:  %+v\nreplay: %+v", ja.Status, jb.Status)
		}
		if pa, pb := a.c.Pods(a.ns, a.name), b.c.Pods(b.ns, b.name); !reflect.DeepEqual(pa, pb) {
			t.Fatalf("determinism: final pods differ on replay:\nfirst:  %v\nreplay: %v", podNames(pa), podNames(pb))
		}
	})
}

// tb is what the checks need from *rapid.T (or *testing.T).
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
}

// stats counts how often the interesting cases came up; checkCoverage
// asserts that they did.
type stats struct {
	counts
	// Entered counts the moves into each phase.
	Entered map[vcjob.JobPhase]int
}

type counts struct {
	Scenarios, Steps, Faults               int
	Executed, Delayed, Errors              int
	SyncJob, ReconcilingSyncs              int
	KillJob, KillTarget, TargetDeletes     int
	PodsCreated, CreatesAtVersionAbove0    int
	VersionBumps, Restarts                 int
	StepsWhileFinished, FinishedTerminated int
}

func newStats() *stats { return &stats{Entered: map[vcjob.JobPhase]int{}} }

func (s *stats) String() string {
	phases := make([]string, 0, len(s.Entered))
	for p, n := range s.Entered {
		phases = append(phases, fmt.Sprintf("%s:%d", p, n))
	}
	sort.Strings(phases)
	return fmt.Sprintf("%+v entered %v", s.counts, phases)
}

// stepTrace is what one step did, for the determinism property.
type stepTrace struct {
	Op         string
	Request    request.Request
	Decision   policy.Decision
	Executed   bool
	Transition statemachine.Transition
	Err        string
	Status     vcjob.JobStatus
}

// harness holds one scenario's cluster and the failures it injects.
type harness struct {
	ns, name   string
	c          *memcluster.Cluster
	failDelete map[string]bool
	failCreate map[string]bool
	failStatus bool // until the next request has run
	trace      []stepTrace
	stats      *stats
}

var errInjected = errors.New("injected API failure")

func newHarness(sc scenario) *harness {
	job := sc.Job
	h := &harness{ns: job.Namespace, name: job.Name, failDelete: map[string]bool{}, failCreate: map[string]bool{}, stats: newStats()}
	c := memcluster.New(propertyClock)
	c.PutJob(job)
	if sc.PodGroup != "" {
		c.SetPodGroupPhase(job.Namespace, podgroup.Name(job), sc.PodGroup)
	}
	// Deletes of pods bound to a node are graceful: they stay, terminating,
	// until a StepFinishTerminating.
	c.GracefulDelete = true
	c.FailDelete = func(p *corev1.Pod) error {
		if h.failDelete[p.Name] {
			return errInjected
		}
		return nil
	}
	c.FailCreate = func(p *corev1.Pod) error {
		if h.failCreate[p.Name] {
			return errInjected
		}
		return nil
	}
	c.FailStatus = func(*vcjob.Job) error {
		if h.failStatus {
			return errInjected
		}
		return nil
	}
	h.c = c
	return h
}

// spyCluster records the calls, the plans behind them (before memcluster
// applies them, so that creates and deletes an injected failure stopped
// still show) and the effects of the last call.
type spyCluster struct {
	*memcluster.Cluster
	calls         []statemachine.Call
	plannedCreate []*corev1.Pod
	plannedDelete []*corev1.Pod
	reconciled    bool
	effects       statemachine.Effects
}

func (s *spyCluster) SyncJob(ctx context.Context, ji *jobinfo.Info, update statemachine.UpdateStatusFunc) error {
	plan := statemachine.PlanSync(ji, s.Cluster.PodGroup(ji.Job), s.Cluster.Now)
	s.calls = append(s.calls, statemachine.CallSyncJob)
	s.plannedCreate = append(s.plannedCreate, plan.Create...)
	s.plannedDelete = append(s.plannedDelete, plan.Delete...)
	s.reconciled = s.reconciled || plan.Reconcile
	defer s.record()
	return s.Cluster.SyncJob(ctx, ji, update)
}

func (s *spyCluster) KillJob(ctx context.Context, ji *jobinfo.Info, retain statemachine.Retain, update statemachine.UpdateStatusFunc) error {
	plan := statemachine.PlanKillJob(ji, retain)
	s.calls = append(s.calls, statemachine.CallKillJob)
	s.plannedDelete = append(s.plannedDelete, plan.Delete...)
	defer s.record()
	return s.Cluster.KillJob(ctx, ji, retain, update)
}

func (s *spyCluster) KillTarget(ctx context.Context, ji *jobinfo.Info, target request.Target, update statemachine.UpdateStatusFunc) error {
	plan := statemachine.PlanKillTarget(ji, target)
	s.calls = append(s.calls, statemachine.CallKillTarget)
	s.plannedDelete = append(s.plannedDelete, plan.Delete...)
	defer s.record()
	return s.Cluster.KillTarget(ctx, ji, target, update)
}

func (s *spyCluster) record() { s.effects = s.Cluster.LastEffects() }

// step runs one op and, for a request that ran, checks it.
func (h *harness) step(t tb, i int, o op) {
	t.Helper()
	h.stats.Steps++
	before := h.c.Job(h.ns, h.name)
	podsBefore := h.c.Pods(h.ns, h.name)
	tr := stepTrace{Op: o.String()}
	switch {
	case o.Fault != "":
		h.stats.Faults++
		h.fault(o, before, podsBefore)
	case o.isRequest():
		h.request(t, i, o, before, podsBefore, &tr)
		h.failStatus = false
	default:
		if o.Kind == rapidgen.StepFinishTerminating {
			for _, p := range podsBefore {
				if p.DeletionTimestamp != nil {
					h.stats.FinishedTerminated++
				}
			}
		}
		o.Apply(h.c, before)
	}
	tr.Status = *h.c.Job(h.ns, h.name).Status.DeepCopy()
	h.trace = append(h.trace, tr)
}

// fault injects a failure. Pods are picked among those that exist and
// those the job would create.
func (h *harness) fault(o op, job *vcjob.Job, pods []*corev1.Pod) {
	if o.Fault == faultStatus {
		h.failStatus = true
		return
	}
	names := map[string]bool{}
	for _, p := range pods {
		names[p.Name] = true
	}
	for _, task := range job.Spec.Tasks {
		for k := 0; k < int(task.Replicas); k++ {
			names[vcjob.PodName(job.Name, task.Name, k)] = true
		}
	}
	if len(names) == 0 {
		return
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	n := sorted[o.Pick%len(sorted)]
	set := h.failDelete
	if o.Fault == faultCreate {
		set = h.failCreate
	}
	set[n] = !set[n]
}

// requestStep is an executed request with what it did.
type requestStep struct {
	i          int
	op         op
	tr         stepTrace
	before     *vcjob.Job
	after      *vcjob.Job
	podsBefore []*corev1.Pod
	rec        worker.Record // as worker.Step would record it, for rapidgen's checkers
	spy        *spyCluster
	created    []*corev1.Pod // journal: pods actually created
}

func (r requestStep) String() string {
	out := fmt.Sprintf("step %d (%s) request [%s v%d] -> %s", r.i, r.op, r.tr.Request, r.tr.Request.JobVersion, r.tr.Decision.Action)
	out += fmt.Sprintf(" in %s: %s/%s/%s", r.tr.Transition.State, r.tr.Transition.Call, r.tr.Transition.Retain, r.tr.Transition.Update)
	if r.tr.Err != "" {
		out += " err=" + r.tr.Err
	}
	return out + fmt.Sprintf("; phase %q -> %q", r.before.Status.State.Phase, r.after.Status.State.Phase)
}

// request builds the step's request, resolves it and, unless it is
// delayed, executes it on a fresh snapshot; then it checks what it did.
func (h *harness) request(t tb, i int, o op, before *vcjob.Job, podsBefore []*corev1.Pod, tr *stepTrace) {
	t.Helper()
	req := o.Request(before, podsBefore)
	tr.Request = req

	ji, err := h.c.JobInfo(h.ns, h.name)
	if err != nil {
		t.Fatalf("step %d (%s): job info: %v", i, o, err)
	}
	var d policy.Decision
	var trans statemachine.Transition
	var execErr error
	spy := &spyCluster{Cluster: h.c}
	nCreated := len(h.c.Journal.CreatedPods)
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("check noPanic: step %d (%s) request [%s]: panic: %v", i, o, req, r)
			}
		}()
		d = policy.Resolve(ji.Job, req)
		tr.Decision = d
		if d.Delay > 0 {
			return
		}
		tr.Executed = true
		trans, execErr = statemachine.Execute(context.Background(), spy, ji, d.Action, d.Target)
	}()
	tr.Transition = trans
	if execErr != nil {
		tr.Err = execErr.Error()
	}
	if !tr.Executed {
		// A worker would register the delayed action; here it lapses.
		h.stats.Delayed++
		return
	}
	after := h.c.Job(h.ns, h.name)
	rec := worker.Record{
		Time: h.c.Now.Time, Request: req, Rule: d.Rule, Action: d.Action, Target: d.Target,
		PhaseBefore: before.Status.State.Phase, PhaseAfter: before.Status.State.Phase,
		Transition: &trans, Effects: spy.effects, Err: execErr,
	}
	if trans.Call == statemachine.CallNone {
		// No call was made (a finished job left alone): as worker.Step records it.
		rec.Effects = statemachine.Effects{Call: statemachine.CallNone}
	}
	// The Events as worker.Step records them: the decision's, then the call's.
	rec.Events = append(worker.DecisionEvents(d.Action, d.Delay), rec.Effects.Events...)
	if st := spy.effects.Status; st != nil {
		rec.PhaseAfter = st.State.Phase
	}
	r := requestStep{
		i: i, op: o, tr: *tr, before: before, after: after, podsBefore: podsBefore,
		rec: rec, spy: spy, created: h.c.Journal.CreatedPods[nCreated:],
	}
	h.count(r)
	checkOneCall(t, r)
	checkRapidgen(t, r)
	checkPlans(t, r)
}

func (h *harness) count(r requestStep) {
	st := h.stats
	st.Executed++
	if r.rec.Err != nil {
		st.Errors++
	}
	switch r.tr.Transition.Call {
	case statemachine.CallSyncJob:
		st.SyncJob++
		if r.spy.reconciled {
			st.ReconcilingSyncs++
		}
	case statemachine.CallKillJob:
		st.KillJob++
	case statemachine.CallKillTarget:
		st.KillTarget++
		st.TargetDeletes += len(r.rec.Effects.Deleted)
	}
	st.PodsCreated += len(r.created)
	if r.before.Status.Version > 0 && len(r.created) > 0 {
		st.CreatesAtVersionAbove0++
	}
	if r.after.Status.Version > r.before.Status.Version {
		st.VersionBumps++
	}
	if r.after.Status.RetryCount > r.before.Status.RetryCount {
		st.Restarts++
	}
	bp, ap := r.before.Status.State.Phase, r.after.Status.State.Phase
	if bp.IsFinished() {
		st.StepsWhileFinished++
	}
	if ap != bp {
		st.Entered[ap]++
	}
}

// --- Checks of every request that ran ---

// rapidgen's checkers on what the call did, and CheckPod on every pod it
// created.
func checkRapidgen(t tb, r requestStep) {
	t.Helper()
	errs := []error{
		rapidgen.CheckStep(r.before, r.after, r.rec),
		rapidgen.CheckEffects(r.before, r.podsBefore, r.rec),
	}
	for _, p := range r.created {
		errs = append(errs, rapidgen.CheckPod(r.before, p))
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("check rapidgen: %s:\n%v", r, err)
	}
}

// The plans behind the call pass rapidgen's checks as if every pod call
// had succeeded: CheckStep (only SyncJob creates, nothing on a finished
// job, no index beyond the replicas, nothing twice, targeted kills stay in
// the target), CheckEffects with no error (kills delete exactly their kill
// set, syncs only out-of-sync pods and pods beyond the replicas, nothing
// created that exists) and CheckPod on each planned pod. The journal and
// the effects miss what an injected failure stopped, and memcluster
// swallows a create of an existing pod; the plan shows them.
func checkPlans(t tb, r requestStep) {
	t.Helper()
	planned := r.rec
	planned.Effects.Created = podNames(r.spy.plannedCreate)
	planned.Effects.Deleted = podNames(r.spy.plannedDelete)
	errs := []error{rapidgen.CheckStep(r.before, r.after, planned)}
	planned.Err = nil
	errs = append(errs, rapidgen.CheckEffects(r.before, r.podsBefore, planned))
	for _, p := range r.spy.plannedCreate {
		errs = append(errs, rapidgen.CheckPod(r.before, p))
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("check plans: %s: planned creates %v, deletes %v:\n%v", r, planned.Effects.Created, planned.Effects.Deleted, err)
	}
}

// Execute makes exactly one call, the one its transition names.
func checkOneCall(t tb, r requestStep) {
	t.Helper()
	if r.tr.Transition.Call == statemachine.CallNone {
		if len(r.spy.calls) != 0 {
			t.Fatalf("check oneCall: %s: transition says no call, cluster saw calls %v", r, r.spy.calls)
		}
		return
	}
	if len(r.spy.calls) != 1 || r.spy.calls[0] != r.tr.Transition.Call {
		t.Fatalf("check oneCall: %s: transition says %s, cluster saw calls %v", r, r.tr.Transition.Call, r.spy.calls)
	}
}

func podNames(pods []*corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}

func journalString(j memcluster.Journal) string {
	return fmt.Sprintf("created %v deleted %v podGroupsCreated %v podGroupsDeleted %v statusWrites %d",
		j.Created, j.Deleted, j.PodGroupsCreated, j.PodGroupsDeleted, j.StatusWrites)
}
