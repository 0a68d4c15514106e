package scenario

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/delay"
	"github.com/vcjob/vcjob/plugins"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
	"github.com/vcjob/vcjob/validation"
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
	// ext is what the scheduler and delete commands keep (scheduler.go).
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

// runCommand executes one script command.
func (s *sim) runCommand(c Command) error {
	s.out.Command(c.Line, c.Text, s.now)
	if r := s.gc.deleted; r != nil && c.verb != "advance" {
		return fmt.Errorf("line %d: %q: the job is gone: the garbage collector deleted it at %s", c.Line, c.Text, offset(r.Time))
	}
	if done, err := s.runExtra(c); done {
		return err
	}
	switch c.verb {
	case "finish":
		s.cluster.FinishTerminating()
	case "podgroup":
		job := s.cluster.Job(s.ns, s.job)
		if !s.cluster.PodGroup(job).Exists {
			return fmt.Errorf("line %d: %q: the job has no PodGroup now (a whole-job kill deletes it; the next sync creates it again)", c.Line, c.Text)
		}
		s.cluster.SetPodGroupPhase(s.ns, podgroup.Name(job), podgroup.Phase(c.word))
		if c.relisted {
			s.relistPodGroup(podgroup.Phase(c.word))
		}
	case "command":
		cmd := &vcjob.Command{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: strings.ToLower(c.word) + "-" + s.job},
			Action: c.word, TargetObject: &metav1.OwnerReference{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind, Name: s.job}}
		// The command handler deletes the command, records CommandIssued
		// on the job and queues the request.
		if req, events, ok := s.cache.OnCommand(cmd); ok {
			if len(events) > 0 {
				s.out.Recorded(events, s.now)
			}
			s.queue = append(s.queue, req)
		}
	case "scale":
		job := s.cluster.Job(s.ns, s.job)
		t := job.Task(c.word)
		if t == nil {
			return fmt.Errorf("line %d: %q: no task %q", c.Line, c.Text, c.word)
		}
		old := job.DeepCopy()
		t.Replicas = c.n
		if t.MinAvailable != nil && *t.MinAvailable > c.n {
			t.MinAvailable = &c.n
		}
		if errs := validation.ValidateJobUpdate(job, old); len(errs) > 0 {
			return fmt.Errorf("line %d: %q: the API server would refuse the update: %w", c.Line, c.Text, errs.ToAggregate())
		}
		s.cluster.PutJob(job)
	case "pvc":
		// No request: Volcano does not watch claims for jobs; the next
		// sync (a requeued one) finds it.
		s.cluster.PutClaim(s.ns, c.word)
	case "advance":
		return s.advance(c.d)
	case "controller":
		return s.restartController(c)
	default:
		pods, err := s.pods(c)
		if err != nil {
			return err
		}
		for _, p := range pods {
			s.noteInPlaceRestart(c, p)
			s.change(c, p)
		}
	}
	return s.settle()
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

// noteInPlaceRestart says when a "fail" fails a pod a kubelet would not
// fail: under restartPolicy OnFailure or Always it restarts the failed
// container in place, and the pod stays Running.
func (s *sim) noteInPlaceRestart(c Command, p *corev1.Pod) {
	if c.verb != "fail" || p.Spec.RestartPolicy == corev1.RestartPolicyNever || p.Spec.RestartPolicy == "" {
		return
	}
	s.note("%s has restartPolicy %s: a kubelet restarts a container that exits %d in place and the pod stays Running "+
		"(write \"restart %s\"); the pod fails only when the kubelet gives up on it (eviction, a deadline), as played here",
		p.Name, p.Spec.RestartPolicy, c.n, strings.TrimPrefix(p.Name, s.job+"-"))
}

// pods resolves a command's pod argument against the cluster.
func (s *sim) pods(c Command) ([]*corev1.Pod, error) {
	all := s.cluster.Pods(s.ns, s.job)
	var out []*corev1.Pod
	for _, p := range all {
		short := strings.TrimPrefix(p.Name, s.job+"-")
		switch {
		case c.pods == "all", c.pods == p.Name, c.pods == short:
		case strings.HasSuffix(c.pods, "-*") && p.Annotations[vcjob.TaskSpecKey] == strings.TrimSuffix(c.pods, "-*"):
		default:
			continue
		}
		if c.pods == "all" || strings.HasSuffix(c.pods, "-*") {
			// A group only takes the pods the command makes sense for.
			fromPending := c.verb == "start" || c.verb == "run"
			if p.DeletionTimestamp != nil || (fromPending && p.Status.Phase != corev1.PodPending) ||
				(!fromPending && c.verb != "evict" && p.Status.Phase != corev1.PodRunning) {
				continue
			}
		}
		out = append(out, p)
	}
	if len(all) == 0 {
		job := s.cluster.Job(s.ns, s.job)
		if !s.cluster.PodGroup(job).Exists {
			return nil, fmt.Errorf("line %d: %q: the job has no pods and no PodGroup now (a whole-job kill deletes both; the next sync creates the PodGroup again)", c.Line, c.Text)
		}
		if s.hadPods {
			return nil, fmt.Errorf("line %d: %q: the job has no pods now: the last kill deleted them and the job is %s; Volcano creates new ones once the scheduler admits its PodGroup (now %s): put \"podgroup Inqueue\" before this line",
				c.Line, c.Text, orNone(job.Status.State.Phase), orNone(vcjob.JobPhase(s.cluster.PodGroup(job).Phase)))
		}
		return nil, fmt.Errorf("line %d: %q: the job has no pods yet: Volcano creates them once the scheduler admits the PodGroup; put \"podgroup Inqueue\" before this line", c.Line, c.Text)
	}
	s.hadPods = true
	if len(out) == 0 {
		var names []string
		for _, p := range all {
			state := string(p.Status.Phase)
			if p.DeletionTimestamp != nil {
				state += ",terminating"
			}
			names = append(names, strings.TrimPrefix(p.Name, s.job+"-")+"="+state)
		}
		return nil, fmt.Errorf("line %d: %q: no pod matches %q (pods: %s)", c.Line, c.Text, c.pods, strings.Join(names, ", "))
	}
	return out, nil
}

// change plays the kubelet (or an evicting user) on one pod.
func (s *sim) change(c Command, p *corev1.Pod) {
	if c.verb == "evict" {
		s.cluster.RemovePod(p.Namespace, p.Name)
		return
	}
	p = p.DeepCopy()
	if p.Spec.NodeName == "" {
		p.Spec.NodeName = NodeFor(p)
	}
	if len(p.Status.ContainerStatuses) == 0 {
		for _, ct := range p.Spec.Containers {
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: ct.Name})
		}
		if len(p.Status.ContainerStatuses) == 0 {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main"}}
		}
	}
	// Restarting containers leaves a Pending pod Pending.
	if !(c.verb == "restart" && p.Status.Phase == corev1.PodPending) {
		p.Status.Phase = podPhaseFor(c.verb)
	}
	for i := range p.Status.ContainerStatuses {
		cs := &p.Status.ContainerStatuses[i]
		switch c.verb {
		case "start", "ready":
			cs.Ready = true
		case "run", "pending", "unready", "succeed", "unknown":
			cs.Ready = false
		case "restart":
			cs.RestartCount += c.n
		case "fail":
			cs.Ready = false
			code := int32(1)
			if i == 0 {
				code = c.n
			}
			cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code}}
		}
		if c.verb == "preempt" {
			cs.Ready = false
			cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 143}}
		}
		if c.verb == "succeed" {
			cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0}}
		}
	}
	if c.verb == "preempt" {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.DisruptionTarget,
			Status: corev1.ConditionTrue, Reason: "PreemptionByScheduler"})
	}
	s.cluster.PutPod(p)
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

// relistPodGroup plays a watch that lost the PodGroup's phase change just
// made: the change never reaches the cache, and the relist shows the
// PodGroup as new, already in phase (cache.OnPodGroupAdd, outside the
// informer's first list).
func (s *sim) relistPodGroup(phase podgroup.Phase) {
	// The previous command settled, so the phase change is all the
	// cluster has recorded since.
	s.cluster.Drain()
	if req, ok := s.cache.OnPodGroupAdd(s.ns, s.job, phase, false); ok {
		s.queue = append(s.queue, req)
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

// summary is the job's state at the end of a run: the status as the
// controller last wrote it, then the pods as they are.
func (s *sim) summary() string {
	if s.gc.deleted != nil {
		return s.deletedSummary()
	}
	if s.ext.deletedAt > 0 {
		return s.userDeletedSummary()
	}
	job := s.cluster.Job(s.ns, s.job)
	st := job.Status
	var pods []string
	var succeeded, failed int32
	for _, p := range s.cluster.Pods(s.ns, s.job) {
		state := string(p.Status.Phase)
		if p.DeletionTimestamp != nil {
			state += ",terminating"
		} else if p.Status.Phase == corev1.PodSucceeded {
			succeeded++
		} else if p.Status.Phase == corev1.PodFailed {
			failed++
		}
		pods = append(pods, strings.TrimPrefix(p.Name, s.job+"-")+"="+state)
	}
	sort.Strings(pods)
	if len(pods) > maxListedPods {
		pods = countPods(pods)
	}
	pg := "none"
	if g := s.cluster.PodGroup(job); g.Exists {
		pg = string(g.Phase)
		if pg == "" {
			pg = "(no phase)"
		}
	}
	counts := fmt.Sprintf("status counts pending %d running %d succeeded %d failed %d terminating %d", st.Pending, st.Running, st.Succeeded, st.Failed, st.Terminating)
	if st.Succeeded != succeeded || st.Failed != failed {
		// A kill counts only the pods it could not delete (Volcano's kill
		// zeroes the rest).
		counts += " (as last written: a kill leaves out the Succeeded and Failed pods it keeps)"
	}
	delayed := fmt.Sprint(s.step.Delays.Len())
	if len(s.retries) > 0 {
		delayed += fmt.Sprintf(", requeued %d", len(s.retries))
	}
	return fmt.Sprintf("phase %s, retryCount %d, version %d; %s; podgroup %s; delayed %s; pods: %s%s",
		orNone(st.State.Phase), st.RetryCount, st.Version, counts, pg, delayed, strings.Join(pods, " "), s.gcSummary(job))
}

// maxListedPods is how many pods the summary names one by one; beyond it,
// it counts them by state.
const maxListedPods = 20

// countPods turns "worker-0=Running" entries into "Running=9999" counts.
func countPods(pods []string) []string {
	n := map[string]int{}
	for _, p := range pods {
		_, state, _ := strings.Cut(p, "=")
		n[state]++
	}
	var out []string
	for state, c := range n {
		out = append(out, fmt.Sprintf("%d %s", c, state))
	}
	sort.Strings(out)
	return append([]string{fmt.Sprintf("%d,", len(pods))}, out...)
}

func orNone(p vcjob.JobPhase) string {
	if p == "" {
		return "(none)"
	}
	return string(p)
}
