package perturb

import (
	"context"
	"errors"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
)

// World is what a run needs of a cluster besides the Applier calls: the
// objects as stored, for the checks and for a new controller's relist.
// memcluster.Cluster is one.
type World interface {
	statemachine.Applier
	// StoredJob is the stored job, nil when there is none; read it only.
	StoredJob(namespace, name string) *vcjob.Job
	// Pods are the job's pods, sorted by name.
	Pods(namespace, job string) []*corev1.Pod
	// PodGroup is the job's PodGroup as a lister sees it.
	PodGroup(job *vcjob.Job) statemachine.PodGroupState
}

// Marker is a World that can mark a pod out-of-sync without deleting it
// (the first half of DeletePod): a Crash run then also stops a controller
// between the two. memcluster.Cluster is one.
type Marker interface {
	MarkOutOfSync(ctx context.Context, pod *corev1.Pod) error
}

// Feed is a World's watch: the changes since the last call, oldest first
// (memcluster.Cluster.Drain with Watch set).
type Feed interface {
	Drain() []Change
}

// ErrCrashed is the error of every Applier call a crashed controller
// makes after its crash point.
var ErrCrashed = errors.New("perturb: the controller crashed")

// Run is one run of a scenario under a Plan. It sits between a
// controller and its world: Wrap gives the controller its Applier (the
// crash point, and the checks made on every write), Deliver filters what
// the watch hands its cache (the lag, the unobserved state), and the
// driver calls Stepped after each step, Idle when its queue runs dry and
// Restart once Crashed says the controller is gone. A Run is not safe for
// concurrent use.
type Run struct {
	Plan Plan

	ctx    context.Context
	cancel context.CancelFunc
	world  World

	calls   int
	crashed bool
	// Crashes counts the controllers that stopped (0 or 1).
	Crashes int

	changes int
	steps   int
	pending []Change
	held    int
	// Lagged is how many changes the planned step did not see (Stale):
	// fewer than Plan.Lag when fewer were undelivered, and the run is
	// then one with a smaller lag; -1 until the step runs.
	Lagged int
	unseen map[string]Change
	// Skipped: the planned change was kept from the cache (Unobserved).
	Skipped bool
	// Point says where the plan struck: the call a Crash run stopped
	// after, the change an Unobserved run kept back.
	Point string

	// last and skippable count the changes a watch could lose.
	last      map[string]int
	skippable map[int]bool

	violations []Violation
	seen       map[Check]bool
	notes      []string
}

// NewRun starts a run under plan.
func NewRun(plan Plan) *Run {
	r := &Run{Plan: plan, Lagged: -1, last: map[string]int{}, skippable: map[int]bool{}, seen: map[Check]bool{}}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	return r
}

// Context is the context of the current controller's steps: a crash
// cancels it, so that the rest of the step's calls fail as a dead
// process's would never be made.
func (r *Run) Context() context.Context { return r.ctx }

// Crashed reports whether the controller reached its crash point: the
// driver drops it (its cache, queue, delayed actions and history) and
// calls Restart.
func (r *Run) Crashed() bool { return r.crashed }

// Counts are the run's figures so far, for Plans: an unperturbed run's
// are its scenario's.
func (r *Run) Counts() Counts {
	c := Counts{Calls: r.calls, Steps: r.steps}
	for i := range r.skippable {
		c.Skippable = append(c.Skippable, i)
	}
	sort.Ints(c.Skippable)
	return c
}

// Stepped tells the run a step (a request or a delayed action) is done:
// changes held back for it reach the cache with the next Deliver.
func (r *Run) Stepped() {
	if r.Plan.Kind == Stale && r.steps == r.Plan.At && r.Lagged < 0 {
		r.Lagged = r.held
	}
	r.steps++
	r.held = 0
}

// Deliver takes the world's new changes and returns those the cache sees
// now, in order. A Stale run holds back the last Plan.Lag of them when the
// next step is the planned one; an Unobserved run keeps the planned change
// back until the same object changes again, and then delivers the two as
// one change from the first's old state to the second's new one, as a
// relist after a cut watch does.
func (r *Run) Deliver(changes []Change) []Change {
	for _, ch := range changes {
		i := r.changes
		r.changes++
		k := objectKey(ch)
		if k != "" {
			if j, ok := r.last[k]; ok {
				r.skippable[j] = true
			}
			delete(r.last, k)
			if !deleted(ch) {
				r.last[k] = i
			}
		}
		if u, ok := r.unseen[k]; ok && k != "" {
			delete(r.unseen, k)
			if m, ok := merge(u, ch); ok {
				r.pending = append(r.pending, m)
			}
			continue
		}
		if r.Plan.Kind == Unobserved && i == r.Plan.At && k != "" && !deleted(ch) {
			if r.unseen == nil {
				r.unseen = map[string]Change{}
			}
			r.unseen[k] = ch
			r.Skipped = true
			r.Point = Describe(ch)
			continue
		}
		r.pending = append(r.pending, ch)
	}
	if r.Plan.Kind == Stale && r.steps == r.Plan.At && r.Lagged < 0 {
		r.held = min(r.Plan.Lag, len(r.pending))
	}
	n := len(r.pending) - r.held
	out := r.pending[:n:n]
	r.pending = append([]Change(nil), r.pending[n:]...)
	return out
}

// Idle is for a driver whose queue is empty: the changes held back for a
// step that is not coming are delivered now (a lag lasts until the
// informer catches up, not for ever).
func (r *Run) Idle() []Change {
	r.held = 0
	out := r.pending
	r.pending = nil
	return out
}

// Flush delivers everything still held, the unobserved state included,
// as the relist at the end of a scenario does: the cache then holds what
// the cluster holds.
func (r *Run) Flush() []Change {
	out := r.Idle()
	keys := make([]string, 0, len(r.unseen))
	for k := range r.unseen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, r.unseen[k])
	}
	r.unseen = nil
	return out
}

// Restart starts a new controller's cache from what w holds, as a new
// process (or a new leader) does: the changes the feed holds are dropped
// (the list shows their result), the job is added, then its pods, then
// its PodGroup (in the informers' first list, which raises nothing). It
// returns the requests the adds raise. The next crash never comes: a run
// crashes once.
func (r *Run) Restart(c *cache.Cache, w World, feed Feed, namespace, name string) []request.Request {
	if feed != nil {
		feed.Drain()
	}
	r.pending, r.held, r.unseen = nil, 0, nil
	if r.crashed {
		r.crashed = false
		r.ctx, r.cancel = context.WithCancel(context.Background())
	}
	return Relist(c, w, namespace, name)
}

// Relist fills c with the job, its pods and its PodGroup as w holds them,
// as a starting controller's informers do, and returns the requests their
// adds raise.
func Relist(c *cache.Cache, w World, namespace, name string) []request.Request {
	var out []request.Request
	job := w.StoredJob(namespace, name)
	if job != nil {
		reqs, _ := c.OnJobAddWithPods(job)
		out = append(out, reqs...)
	}
	for _, p := range w.Pods(namespace, name) {
		if req, ok := c.OnPodAdd(p); ok {
			out = append(out, req)
		}
	}
	if pg := w.PodGroup(job); pg.Exists {
		if req, ok := c.OnPodGroupAdd(namespace, name, pg.Phase, true); ok {
			out = append(out, req)
		}
	}
	return out
}

// objectKey names the pod or PodGroup a change is about ("" for a job).
func objectKey(ch Change) string {
	switch {
	case ch.NewPod != nil:
		return "pod/" + ch.NewPod.Namespace + "/" + ch.NewPod.Name
	case ch.OldPod != nil:
		return "pod/" + ch.OldPod.Namespace + "/" + ch.OldPod.Name
	case ch.NewJob != nil || ch.OldJob != nil:
		return ""
	}
	return "podgroup/" + ch.PodGroupNamespace + "/" + ch.PodGroupJob
}

func deleted(ch Change) bool { return ch.Type == memcluster.Deleted }

// merge is what a watch shows of two changes of one object when it lost
// the first: the second, from the first's old state. ok is false when
// nothing changed in between.
func merge(first, second Change) (Change, bool) {
	m := second
	if second.NewPod != nil || second.OldPod != nil {
		m.OldPod = first.OldPod
		switch {
		case m.OldPod == nil && m.NewPod == nil:
			return m, false
		case m.OldPod == nil:
			m.Type = memcluster.Added
		case m.NewPod == nil:
			m.Type = memcluster.Deleted
		default:
			m.Type = memcluster.Modified
		}
		return m, true
	}
	m.OldPhase = first.OldPhase
	if m.Type == memcluster.Modified && m.OldPhase == m.NewPhase {
		return m, false
	}
	return m, true
}

// tick counts an Applier call and crashes the controller at the planned
// point.
func (r *Run) tick(what string) {
	if r.Plan.Kind == Crash && r.calls == r.Plan.At && r.Crashes == 0 {
		r.Point = "after " + what
		r.crashed = true
		r.Crashes++
		r.cancel()
	}
	r.calls++
}

// dead is the error of a call made after the crash.
func (r *Run) dead() error {
	if r.crashed {
		return fmt.Errorf("%w: %w", ErrCrashed, context.Canceled)
	}
	return nil
}

// Change is a watch event of the world (memcluster's type; a World of
// another kind hands its events over in this form).
type Change = memcluster.Change

// Describe is a change in a few words: "pod j-worker-0 Pending -> Running",
// "podgroup of j Inqueue -> Running".
func Describe(ch Change) string {
	podState := func(p *corev1.Pod) string {
		if p == nil {
			return "(none)"
		}
		st := string(p.Status.Phase)
		if p.DeletionTimestamp != nil {
			st += ",terminating"
		}
		if p.Annotations[vcjob.PodOutOfSyncKey] == "true" {
			st += ",out-of-sync"
		}
		return st
	}
	phase := func(p string) string {
		if p == "" {
			return "(no phase)"
		}
		return p
	}
	switch {
	case ch.NewPod != nil || ch.OldPod != nil:
		name := ""
		if ch.NewPod != nil {
			name = ch.NewPod.Name
		} else {
			name = ch.OldPod.Name
		}
		return fmt.Sprintf("pod %s %s -> %s", name, podState(ch.OldPod), podState(ch.NewPod))
	case ch.NewJob != nil || ch.OldJob != nil:
		return "job " + string(ch.Type)
	case ch.Type == memcluster.Deleted:
		return "podgroup of " + ch.PodGroupJob + " deleted"
	}
	return fmt.Sprintf("podgroup of %s %s -> %s", ch.PodGroupJob, phase(string(ch.OldPhase)), phase(string(ch.NewPhase)))
}
