package statemachine_test

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/rapidgen"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
)

// Property tests: random valid jobs driven through random sequences of
// requests (pod events and commands, resolved with policy.Resolve and run
// with statemachine.Execute on a fresh snapshot) and world changes
// (PodGroup phase, pod phases, node binding, readiness, terminations, the
// clock, failing creates, deletes and status writes) on a
// memcluster.Cluster. After every step:
//
//	phaseKnown         the phase is one of the ten, "" only while no status was written
//	finishedStays      once Completed, Terminated or Failed, the phase never changes
//	finishedOnlyKills  a finished job's requests are KillJob calls that create nothing
//	retryCount         never decreases; +1 exactly on a move into Restarting from
//	                   Pending/Running/Aborting/Aborted, else unchanged; never above maxRetry
//	version            +1 exactly on a KillJob call without error, else unchanged
//	createdPods        no pod created (or planned) at index >= replicas, twice, or
//	                   while a pod of that name exists
//	createdPodMetadata SPEC §7 labels and annotations, job-version and
//	                   job-retry-count from the status before the step
//	targetedKill       KillTarget deletes only pods of its task / pod / partition
//	syncDeletes        SyncJob deletes only out-of-sync pods and pods beyond replicas
//	noPanic            Resolve and Execute never panic
//	oneCall            Execute makes exactly the call its transition names
//
// and TestPropertyDeterministic replays each scenario on a fresh cluster.
//
//	go test -race -run Property ./statemachine/
//	go test -run Property ./statemachine/ -rapid.checks=5000
//	go test -run Property ./statemachine/ -rapid.seed=N   # replay a failure

var propertyClock = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))

// TestPropertyInvariants drives random scenarios and checks every invariant
// after every step.
func TestPropertyInvariants(t *testing.T) {
	var st stats
	rapid.Check(t, func(t *rapid.T) {
		sc := genScenario().Draw(t, "scenario")
		h := newHarness(sc)
		h.stats = &st
		for i, o := range sc.Ops {
			h.step(t, i, o)
		}
	})
	t.Logf("coverage: %+v", st)
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

// TestPropertyGeneratedJobsValid keeps the generator honest: every job it
// makes passes vcjob.ValidateJob.
func TestPropertyGeneratedJobsValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		job := genJob().Draw(t, "job")
		if errs := vcjob.ValidateJob(job); len(errs) > 0 {
			t.Fatalf("generated job is invalid: %v", errs.ToAggregate())
		}
	})
}

// tb is what the checks need from *rapid.T (or *testing.T).
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
}

// stats counts how often the interesting cases came up, so a run with -v
// shows that the checks were not vacuous.
type stats struct {
	Steps, Executed, Delayed, Errors        int
	SyncJob, KillJob, KillTarget            int
	PodsCreated, TargetDeletes, Restarts    int
	ReachedFinished, StepsWhileFinished     int
	VersionBumps, CreatesWithVersionAbove0  int
	ReconcilingSyncs, FinishedTerminatingOp int
}

// stepTrace is what one step did, for the determinism property.
type stepTrace struct {
	Op         string
	Request    vcjob.Request
	Decision   policy.Decision
	Executed   bool
	Transition statemachine.Transition
	Err        string
	Status     vcjob.JobStatus
}

// harness holds one scenario's cluster and what the invariants need to
// remember across steps.
type harness struct {
	ns, name   string
	c          *memcluster.Cluster
	failDelete map[string]bool
	failCreate map[string]bool
	failStatus bool // until the next request has run
	trace      []stepTrace
	stats      *stats

	// finished is the phase the job first finished in, "" until then.
	finished vcjob.JobPhase
}

var errInjected = errors.New("injected API failure")

func newHarness(sc scenario) *harness {
	job := sc.Job
	h := &harness{ns: job.Namespace, name: job.Name, failDelete: map[string]bool{}, failCreate: map[string]bool{}, stats: &stats{}}
	c := memcluster.New(propertyClock)
	c.PutJob(job)
	if sc.PodGroup != "" {
		c.SetPodGroupPhase(job.Namespace, podgroup.Name(job), sc.PodGroup)
	}
	// Deletes of pods bound to a node are graceful: they stay, terminating,
	// until an opFinishTerminating step.
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

// removePodGroup removes the job's PodGroup, as if someone deleted it.
func (h *harness) removePodGroup(job *vcjob.Job) {
	_, _ = h.c.DeletePodGroup(job)
}

// spyCluster records the plans behind each call before memcluster applies
// them: memcluster swallows a create of an existing pod (AlreadyExists), so
// the plan is where a wrong create shows.
type spyCluster struct {
	*memcluster.Cluster
	calls         []statemachine.Call
	plannedCreate []*corev1.Pod
	plannedDelete []*corev1.Pod
	reconciled    bool
}

func (s *spyCluster) SyncJob(ji *vcjob.JobInfo, update statemachine.UpdateStatusFunc) error {
	plan := statemachine.PlanSync(ji, s.Cluster.PodGroup(ji.Job), s.Cluster.Now)
	s.calls = append(s.calls, statemachine.CallSyncJob)
	s.plannedCreate = append(s.plannedCreate, plan.Create...)
	s.plannedDelete = append(s.plannedDelete, plan.Delete...)
	s.reconciled = s.reconciled || plan.Reconcile
	return s.Cluster.SyncJob(ji, update)
}

func (s *spyCluster) KillJob(ji *vcjob.JobInfo, retain statemachine.Retain, update statemachine.UpdateStatusFunc) error {
	plan := statemachine.PlanKillJob(ji, retain)
	s.calls = append(s.calls, statemachine.CallKillJob)
	s.plannedDelete = append(s.plannedDelete, plan.Delete...)
	return s.Cluster.KillJob(ji, retain, update)
}

func (s *spyCluster) KillTarget(ji *vcjob.JobInfo, target vcjob.Target, update statemachine.UpdateStatusFunc) error {
	plan := statemachine.PlanKillTarget(ji, target)
	s.calls = append(s.calls, statemachine.CallKillTarget)
	s.plannedDelete = append(s.plannedDelete, plan.Delete...)
	return s.Cluster.KillTarget(ji, target, update)
}

// step runs one op and checks the invariants.
func (h *harness) step(t tb, i int, o op) {
	t.Helper()
	h.stats.Steps++
	before := h.c.Job(h.ns, h.name)
	podsBefore := h.c.Pods(h.ns, h.name)
	tr := stepTrace{Op: o.String()}
	if o.Kind == opEvent || o.Kind == opCommand {
		h.request(t, i, o, before, podsBefore, &tr)
		h.failStatus = false
	} else {
		h.world(o, before, podsBefore)
	}
	after := h.c.Job(h.ns, h.name)
	tr.Status = *after.Status.DeepCopy()
	h.trace = append(h.trace, tr)

	s := stepInfo{i: i, op: o, tr: tr, before: before, after: after}
	checkPhaseKnown(t, h, s)
	checkFinishedStays(t, h, s)
}

// stepInfo names a step in failure messages.
type stepInfo struct {
	i             int
	op            op
	tr            stepTrace
	before, after *vcjob.Job
}

func (s stepInfo) String() string {
	out := fmt.Sprintf("step %d (%s)", s.i, s.op)
	if s.op.Kind == opEvent || s.op.Kind == opCommand {
		out += fmt.Sprintf(" request [%s v%d] -> %s", s.tr.Request, s.tr.Request.JobVersion, s.tr.Decision.Action)
		if s.tr.Decision.Delay > 0 {
			out += fmt.Sprintf(" delayed %s", s.tr.Decision.Delay)
		}
		if s.tr.Executed {
			out += fmt.Sprintf(" in %s: %s/%s/%s", s.tr.Transition.State, s.tr.Transition.Call, s.tr.Transition.Retain, s.tr.Transition.Update)
		}
		if s.tr.Err != "" {
			out += " err=" + s.tr.Err
		}
	}
	return out + fmt.Sprintf("; phase %q -> %q", s.before.Status.State.Phase, s.after.Status.State.Phase)
}

// request builds the op's request, resolves it and, unless it is delayed,
// executes it on a fresh snapshot; then it runs the per-request checks.
func (h *harness) request(t tb, i int, o op, before *vcjob.Job, podsBefore []*corev1.Pod, tr *stepTrace) {
	t.Helper()
	req := vcjob.Request{Namespace: h.ns, JobName: h.name}
	var pod *corev1.Pod
	if len(podsBefore) > 0 {
		pod = podsBefore[o.Pick%len(podsBefore)]
	}
	aboutPod := func(p *corev1.Pod) {
		req.TaskName = p.Annotations[vcjob.TaskSpecKey]
		req.PodName = p.Name
		req.PodUID = p.UID
		req.PartitionID = p.Labels[vcjob.PartitionIDKey]
		v, _ := strconv.Atoi(p.Annotations[vcjob.JobVersionKey])
		req.JobVersion = int32(v)
	}
	switch o.Kind {
	case opEvent:
		req.Event, req.ExitCode = o.Event, o.ExitCode
		switch o.UIDMode {
		case 0:
			req.JobUID = before.UID
		case 2:
			req.JobUID = before.UID + "-other"
		}
		if pod != nil && !o.OnTask {
			aboutPod(pod)
		} else {
			tasks := before.Spec.Tasks
			req.TaskName = tasks[o.Pick%len(tasks)].Name
			req.JobVersion = before.Status.Version
		}
	case opCommand:
		req.Action = o.Action
		req.JobUID = before.UID
		if o.Targeted && pod != nil {
			aboutPod(pod)
		}
	}
	tr.Request = req

	ji, err := h.c.JobInfo(h.ns, h.name)
	if err != nil {
		t.Fatalf("step %d (%s): job info: %v", i, o, err)
	}
	var d policy.Decision
	var trans statemachine.Transition
	var execErr error
	spy := &spyCluster{Cluster: h.c}
	nCreated, nDeleted := len(h.c.Journal.Created), len(h.c.Journal.Deleted)
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
		trans, execErr = statemachine.Execute(spy, ji, d.Action, d.Target)
	}()
	tr.Transition = trans
	if execErr != nil {
		tr.Err = execErr.Error()
	}
	if !tr.Executed {
		h.stats.Delayed++
		return
	}
	h.stats.Executed++
	if execErr != nil {
		h.stats.Errors++
	}
	after := h.c.Job(h.ns, h.name)
	r := requestStep{
		stepInfo:   stepInfo{i: i, op: o, tr: *tr, before: before, after: after},
		podsBefore: podsBefore,
		spy:        spy,
		err:        execErr,
		created:    h.c.Journal.Created[nCreated:],
		deleted:    h.c.Journal.Deleted[nDeleted:],
	}
	h.count(r)
	checkOneCall(t, r)
	checkFinishedOnlyKills(t, r)
	checkRetryCount(t, r)
	checkVersion(t, r)
	checkCreatedPods(t, r)
	checkCreatedPodMetadata(t, r)
	checkTargetedKill(t, r)
	checkSyncDeletes(t, r)
}

func (h *harness) count(r requestStep) {
	st := h.stats
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
		st.TargetDeletes += len(r.deleted)
	}
	st.PodsCreated += len(r.created)
	if r.before.Status.Version > 0 && len(r.created) > 0 {
		st.CreatesWithVersionAbove0++
	}
	if r.after.Status.Version > r.before.Status.Version {
		st.VersionBumps++
	}
	if r.after.Status.RetryCount > r.before.Status.RetryCount {
		st.Restarts++
	}
	if r.before.Status.State.Phase.IsFinished() {
		st.StepsWhileFinished++
	} else if r.after.Status.State.Phase.IsFinished() {
		st.ReachedFinished++
	}
}

// world applies a world change. Pods are picked among those that exist;
// failure toggles among those and the pods the job would create.
func (h *harness) world(o op, job *vcjob.Job, pods []*corev1.Pod) {
	var pod *corev1.Pod
	if len(pods) > 0 {
		pod = pods[o.Pick%len(pods)]
	}
	switch o.Kind {
	case opPodGroup:
		if o.PGPhase == "" {
			h.removePodGroup(job)
		} else {
			h.c.SetPodGroupPhase(h.ns, podgroup.Name(job), o.PGPhase)
		}
	case opPodPhase:
		if pod == nil {
			return
		}
		pod.Status.Phase = o.PodPhase
		if pod.Spec.NodeName == "" {
			pod.Spec.NodeName = "node-0"
		}
		cs := corev1.ContainerStatus{Name: "main"}
		switch o.PodPhase {
		case corev1.PodRunning:
			cs.State.Running = &corev1.ContainerStateRunning{StartedAt: h.c.Now}
		case corev1.PodSucceeded:
			cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", FinishedAt: h.c.Now}
		case corev1.PodFailed:
			cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: o.ExitCode, Reason: "Error", FinishedAt: h.c.Now}
		}
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{cs}
		h.c.PutPod(pod)
	case opBind:
		if pod == nil {
			return
		}
		if pod.Spec.NodeName == "" {
			pod.Spec.NodeName = "node-0"
		}
		h.c.PutPod(pod)
	case opReady:
		if pod == nil {
			return
		}
		if len(pod.Status.ContainerStatuses) == 0 {
			pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main"}}
		}
		for k := range pod.Status.ContainerStatuses {
			pod.Status.ContainerStatuses[k].Ready = true
		}
		h.c.PutPod(pod)
	case opFinishTerminating:
		if len(h.c.FinishTerminating()) > 0 {
			h.stats.FinishedTerminatingOp++
		}
	case opFailStatus:
		h.failStatus = true
	case opAdvance:
		h.c.Now = metav1.NewTime(h.c.Now.Add(time.Duration(o.Seconds) * time.Second))
	case opFailDelete, opFailCreate:
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
		if o.Kind == opFailCreate {
			set = h.failCreate
		}
		set[n] = !set[n]
	}
}

// requestStep is an executed request with what it did.
type requestStep struct {
	stepInfo
	podsBefore []*corev1.Pod
	spy        *spyCluster
	err        error
	created    []*corev1.Pod // journal: pods actually created
	deleted    []string      // journal: pods actually deleted
}

func (r requestStep) podBefore(name string) *corev1.Pod {
	for _, p := range r.podsBefore {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// --- Invariants checked after every step ---

// Invariant 1: the stored phase is one of the ten phases once any status
// has been written; "" only while nothing has been written (a brand-new
// job, or one whose only steps were no-ops, errors or delays).
func checkPhaseKnown(t tb, h *harness, s stepInfo) {
	t.Helper()
	phase := s.after.Status.State.Phase
	if phase == "" {
		if h.c.Journal.StatusWrites > 0 {
			t.Fatalf("check phaseKnown: %s: phase is \"\" after %d status writes (status %+v)", s, h.c.Journal.StatusWrites, s.after.Status)
		}
		return
	}
	if !phase.IsKnown() {
		t.Fatalf("check phaseKnown: %s: phase %q is not one of %v", s, phase, vcjob.Phases())
	}
}

// Invariant 2 (across steps): once finished, the phase never changes.
func checkFinishedStays(t tb, h *harness, s stepInfo) {
	t.Helper()
	phase := s.after.Status.State.Phase
	if h.finished != "" && phase != h.finished {
		t.Fatalf("check finishedStays: %s: the job finished as %s and is now %q", s, h.finished, phase)
	}
	if h.finished == "" && phase.IsFinished() {
		h.finished = phase
	}
}

// Execute makes exactly one call, the one its transition names.
func checkOneCall(t tb, r requestStep) {
	t.Helper()
	if len(r.spy.calls) != 1 || r.spy.calls[0] != r.tr.Transition.Call {
		t.Fatalf("check oneCall: %s: transition says %s, cluster saw calls %v", r.stepInfo, r.tr.Transition.Call, r.spy.calls)
	}
}

// Invariant 2 (per step): a finished job only kills: the call is KillJob,
// nothing is created or planned for creation, the phase stays.
func checkFinishedOnlyKills(t tb, r requestStep) {
	t.Helper()
	was := r.before.Status.State.Phase
	if !was.IsFinished() {
		return
	}
	if r.tr.Transition.Call != statemachine.CallKillJob {
		t.Fatalf("check finishedOnlyKills: %s: job is %s but the call was %s", r.stepInfo, was, r.tr.Transition.Call)
	}
	if len(r.created) > 0 || len(r.spy.plannedCreate) > 0 {
		t.Fatalf("check finishedOnlyKills: %s: job is %s but pods were created %v / planned %v", r.stepInfo, was, podNames(r.created), podNames(r.spy.plannedCreate))
	}
	if now := r.after.Status.State.Phase; now != was {
		t.Fatalf("check finishedOnlyKills: %s: job was %s and is now %s", r.stepInfo, was, now)
	}
}

// Invariant 3: retryCount never decreases; it grows by exactly one on a
// move into Restarting from Pending (or ""), Running, Aborting or Aborted
// (through the restart rule), and not at all otherwise; and it never
// passes maxRetry (a job at maxRetry fails on its next step in Restarting).
func checkRetryCount(t tb, r requestStep) {
	t.Helper()
	b, a := r.before.Status.RetryCount, r.after.Status.RetryCount
	if a < b {
		t.Fatalf("check retryCount: %s: retryCount went down %d -> %d", r.stepInfo, b, a)
	}
	from := statemachine.StateOf(r.before)
	restartable := from == statemachine.StatePending || from == statemachine.StateRunning ||
		from == statemachine.StateAborting || from == statemachine.StateAborted
	moved := r.err == nil && restartable && r.after.Status.State.Phase == vcjob.Restarting
	want := b
	if moved {
		want = b + 1
	}
	if a != want {
		t.Fatalf("check retryCount: %s: retryCount %d -> %d, want %d (moved into Restarting from %s: %v)", r.stepInfo, b, a, want, from, moved)
	}
	if a > b && r.tr.Transition.Update != statemachine.UpdateRestart {
		t.Fatalf("check retryCount: %s: retryCount grew under update rule %s", r.stepInfo, r.tr.Transition.Update)
	}
	if a > r.before.Spec.MaxRetry {
		t.Fatalf("check retryCount: %s: retryCount %d is above maxRetry %d", r.stepInfo, a, r.before.Spec.MaxRetry)
	}
}

// Invariant 4: status.version moves, by exactly one, only on a whole-job
// kill that returned no error; never on SyncJob or KillTarget.
func checkVersion(t tb, r requestStep) {
	t.Helper()
	b, a := r.before.Status.Version, r.after.Status.Version
	want := b
	if r.tr.Transition.Call == statemachine.CallKillJob && r.err == nil {
		want = b + 1
	}
	if a != want {
		t.Fatalf("check version: %s: version %d -> %d, want %d (call %s, err %v)", r.stepInfo, b, a, want, r.tr.Transition.Call, r.err)
	}
}

// Invariant 5: no pod is created (or planned) with an index at or above
// its task's replicas, under a name other than <job>-<task>-<index>, twice
// in one step, or while a pod of that name exists.
func checkCreatedPods(t tb, r requestStep) {
	t.Helper()
	for _, list := range []struct {
		what string
		pods []*corev1.Pod
	}{{"created", r.created}, {"planned", r.spy.plannedCreate}} {
		seen := map[string]bool{}
		for _, p := range list.pods {
			if seen[p.Name] {
				t.Fatalf("check createdPods: %s: pod %s %s twice", r.stepInfo, p.Name, list.what)
			}
			seen[p.Name] = true
			taskName := p.Annotations[vcjob.TaskSpecKey]
			task := r.before.Task(taskName)
			if task == nil {
				t.Fatalf("check createdPods: %s: pod %s %s for unknown task %q", r.stepInfo, p.Name, list.what, taskName)
			}
			idx, ok := vcjob.PodIndex(p)
			if !ok || idx < 0 || idx >= int(task.Replicas) {
				t.Fatalf("check createdPods: %s: pod %s %s with index %d (ok=%v) but task %s has %d replicas", r.stepInfo, p.Name, list.what, idx, ok, taskName, task.Replicas)
			}
			if want := vcjob.PodName(r.before.Name, taskName, idx); p.Name != want {
				t.Fatalf("check createdPods: %s: pod %s %s, want name %s", r.stepInfo, p.Name, list.what, want)
			}
			if old := r.podBefore(p.Name); old != nil {
				t.Fatalf("check createdPods: %s: pod %s %s while it exists (phase %s, deleting %v)", r.stepInfo, p.Name, list.what, old.Status.Phase, old.DeletionTimestamp != nil)
			}
		}
	}
}

// Invariant 7 (metadata): every created pod carries the SPEC §7 labels and
// annotations, with job-version and job-retry-count from the status before
// the step.
func checkCreatedPodMetadata(t tb, r requestStep) {
	t.Helper()
	for _, p := range append(append([]*corev1.Pod{}, r.created...), r.spy.plannedCreate...) {
		if err := rapidgen.CheckPod(r.before, p); err != nil {
			t.Fatalf("check createdPodMetadata: %s: %v", r.stepInfo, err)
		}
	}
}

// Invariant 6: a targeted kill deletes (and plans to delete) only pods of
// its target: the task's pods, the one pod, or the pods of the task whose
// partition-id label is the target's partition.
func checkTargetedKill(t tb, r requestStep) {
	t.Helper()
	if r.tr.Transition.Call != statemachine.CallKillTarget {
		return
	}
	target := r.tr.Decision.Target
	names := append([]string{}, r.deleted...)
	for _, p := range r.spy.plannedDelete {
		names = append(names, p.Name)
	}
	for _, name := range names {
		p := r.podBefore(name)
		if p == nil {
			t.Fatalf("check targetedKill: %s: deleted %s, which did not exist", r.stepInfo, name)
		}
		if !target.Takes(p) {
			t.Fatalf("check targetedKill: %s: target %+v, but deleted pod %s (task %q, partition %q)", r.stepInfo, target, name, p.Annotations[vcjob.TaskSpecKey], p.Labels[vcjob.PartitionIDKey])
		}
	}
}

// Extra: SyncJob deletes only out-of-sync pods and pods beyond the replica
// count, never a healthy pod in range.
func checkSyncDeletes(t tb, r requestStep) {
	t.Helper()
	if r.tr.Transition.Call != statemachine.CallSyncJob {
		return
	}
	names := append([]string{}, r.deleted...)
	for _, p := range r.spy.plannedDelete {
		names = append(names, p.Name)
	}
	for _, name := range names {
		p := r.podBefore(name)
		if p == nil {
			t.Fatalf("check syncDeletes: %s: deleted %s, which did not exist", r.stepInfo, name)
		}
		task := r.before.Task(p.Annotations[vcjob.TaskSpecKey])
		idx, ok := vcjob.PodIndex(p)
		beyond := task == nil || !ok || idx >= int(task.Replicas)
		if p.Annotations[vcjob.PodOutOfSyncKey] != "true" && !beyond {
			t.Fatalf("check syncDeletes: %s: deleted %s, which is in range and in sync", r.stepInfo, name)
		}
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
		podNames(j.Created), j.Deleted, j.PodGroupsCreated, j.PodGroupsDeleted, j.StatusWrites)
}
