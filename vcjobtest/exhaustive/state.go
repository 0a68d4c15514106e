package exhaustive

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/delay"
	"github.com/vcjob/vcjob/jobinfo"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
	"github.com/vcjob/vcjob/worker"
)

// state is the abstract state: everything that decides what the job does
// next, and nothing else.
type state struct {
	status  statusSnap
	pods    []podSnap
	pg      pgSnap
	entries []entrySnap
}

type statusSnap struct {
	phase                                                    vcjob.JobPhase
	minAvailable                                             int32
	pending, running, succeeded, failed, terminating, unkown int32
	retryCount                                               int32
	// versioned: status.version > 0. Decisions only compare versions
	// (stale pods, PodGroup requests at version 0).
	versioned bool
	tasks     []taskCount
}

type taskCount struct {
	task  string
	phase corev1.PodPhase
	n     int32
}

type podSnap struct {
	task        string
	index       int
	phase       corev1.PodPhase
	bound       bool
	ready       bool // Running with every container ready
	terminating bool
	outOfSync   bool
	stale       bool  // created before the last whole-job kill
	restarts    int32 // in-place restarts, capped at the task's maxRetry
}

type pgSnap struct {
	exists bool
	phase  podgroup.Phase
}

// entrySnap is a pending delayed action; entries are kept in registration
// order, which decides both orphaning and the order of equal deadlines.
type entrySnap struct {
	remaining   time.Duration
	action      vcjob.Action
	target      request.Target
	podName     string
	taskName    string
	partitionID string
	event       vcjob.Event
	// samePod: the pod of that name now is the one the action was
	// registered for (PodPending timeouts are cancelled by its own
	// events only).
	samePod  bool
	orphaned bool
	// byUID: held by the pod's UID (behavior.DelaysByPodUID).
	byUID bool
}

// key is the state's canonical text.
func (s *state) key() string {
	var b strings.Builder
	st := &s.status
	fmt.Fprintf(&b, "%s m%d p%d r%d s%d f%d t%d u%d retry%d v%t", st.phase, st.minAvailable, st.pending, st.running, st.succeeded, st.failed, st.terminating, st.unkown, st.retryCount, st.versioned)
	for _, tc := range st.tasks {
		fmt.Fprintf(&b, " %s.%s=%d", tc.task, tc.phase, tc.n)
	}
	b.WriteString(" |")
	for _, p := range s.pods {
		fmt.Fprintf(&b, " %s-%d:%s", p.task, p.index, p.phase)
		for _, f := range []struct {
			on   bool
			mark string
		}{{p.bound, "b"}, {p.ready, "r"}, {p.terminating, "T"}, {p.outOfSync, "o"}, {p.stale, "s"}} {
			if f.on {
				b.WriteString(f.mark)
			}
		}
		if p.restarts > 0 {
			fmt.Fprintf(&b, "x%d", p.restarts)
		}
	}
	fmt.Fprintf(&b, " | pg %t %s |", s.pg.exists, s.pg.phase)
	for _, e := range s.entries {
		fmt.Fprintf(&b, " %s@%s/%s/%s/%s(%s,%s,%s,%s) same%t orph%t", e.action, e.remaining, e.event, e.podName, e.target.Level, e.target.TaskName, e.target.PodName, e.target.PartitionID, e.taskName+"/"+e.partitionID, e.samePod, e.orphaned)
		if e.byUID {
			b.WriteString(" byUID")
		}
	}
	return b.String()
}

// phase is the state's job phase.
func (s *state) phase() vcjob.JobPhase { return s.status.phase }

// origin is the clock every rebuilt world starts at.
var origin = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Versions a rebuilt world uses: the job's status.version, and the
// job-version of a stale pod.
const (
	rebuiltVersion      = 2
	rebuiltStaleVersion = 1
)

// world is a concrete world: the cluster, the cache fed by its watch, the
// delay queue and the processing step, and the requests not yet
// processed.
type world struct {
	x       *explorer
	now     time.Time
	cluster *memcluster.Cluster
	cache   *cache.Cache
	step    *worker.Step
	queue   []request.Request
	steps   int
	// seen is the job info the last step took from the cache.
	seen *jobinfo.Info
	// moves and fired tally the steps (see Result).
	moves map[string]int
	fired map[vcjob.Action]int
	// failures are the checks that failed during the last event.
	failures []failure
}

// seenJobs is the world's cache as the step's Jobs: it keeps the snapshot
// the step decides on, which the checks compare the step's effects with.
// The step only reads its snapshot (plans copy what they change), so the
// same copy serves both.
type seenJobs world

func (s *seenJobs) Get(key string) (*jobinfo.Info, error) {
	ji, err := s.cache.Get(key)
	s.seen = ji
	return ji, err
}

type failure struct {
	record string
	err    error
}

func (x *explorer) newWorld() *world {
	c := memcluster.New(metav1.NewTime(origin))
	c.GracefulDelete = true
	c.Watch = true
	c.Behavior = x.opts.Behavior
	w := &world{x: x, now: origin, cluster: c, cache: cache.New()}
	w.cache.Behavior = x.opts.Behavior
	w.step = &worker.Step{Jobs: (*seenJobs)(w), Delays: delay.New(), Cluster: &statemachine.Applied{Applier: c, Behavior: x.opts.Behavior}}
	return w
}

// initial is the world right after the job is created and the controller
// has settled.
func (x *explorer) initial() (*world, error) {
	w := x.newWorld()
	w.cluster.PutJob(x.job)
	return w, w.settle()
}

// rebuild makes a world in state s, without raising any request.
func (x *explorer) rebuild(s *state) *world {
	w := x.newWorld()
	c := w.cluster
	job := x.job.DeepCopy()
	job.Status = s.status.jobStatus()
	c.PutJob(job)
	if s.pg.exists {
		desired := podgroup.Desired(job, nil)
		_ = c.ApplyPodGroup(context.Background(), &desired)
		if s.pg.phase != "" {
			c.SetPodGroupPhase(job.Namespace, podgroup.Name(job), s.pg.phase)
		}
	}
	for _, p := range s.pods {
		c.PutPod(x.rebuildPod(job, p))
	}
	c.Drain()
	_ = w.cache.Add(c.Job(job.Namespace, job.Name))
	for _, p := range c.Pods(job.Namespace, job.Name) {
		_ = w.cache.AddPod(p)
	}
	q := w.step.Delays
	req := request.Request{Namespace: job.Namespace, JobName: job.Name}
	for i, e := range s.entries {
		r := req
		r.TaskName, r.PodName, r.PartitionID, r.Event = e.taskName, e.podName, e.partitionID, e.event
		r.PodUID = "gone"
		if e.byUID {
			// Held by UID, entries of pods that are gone are each their
			// own pod's: two of them never share a key.
			r.PodUID = types.UID(fmt.Sprintf("gone-%d", i))
		}
		if e.samePod {
			r.PodUID = rebuiltUID(e.podName)
		}
		register := q.Register
		if e.byUID {
			register = q.RegisterByPodUID
		}
		register(r, e.action, e.target, e.remaining, origin)
		if e.orphaned {
			// A later registration for the same pod with another action
			// orphans it; that one is due now and goes at once.
			register(r, orphaner, request.Target{}, 0, origin)
			q.Due(origin)
		}
	}
	return w
}

// orphaner is the action of the registration that orphans an entry while
// a world is rebuilt.
const orphaner vcjob.Action = "exhaustive.Orphaner"

func rebuiltUID(pod string) types.UID { return types.UID("r-" + pod) }

func (x *explorer) rebuildPod(job *vcjob.Job, p podSnap) *corev1.Pod {
	task := job.Task(p.task)
	at := job
	if p.stale {
		at = job.DeepCopy()
		at.Status.Version = rebuiltStaleVersion
	}
	pod := statemachine.RenderPod(at, task, p.index)
	pod.UID = rebuiltUID(pod.Name)
	pod.CreationTimestamp = metav1.NewTime(origin)
	pod.Status.Phase = p.phase
	if p.bound {
		pod.Spec.NodeName = "node-0"
	}
	if p.phase == corev1.PodRunning || p.restarts > 0 {
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", Ready: p.ready, RestartCount: p.restarts}}
	}
	if p.terminating {
		t := metav1.NewTime(origin)
		pod.DeletionTimestamp = &t
	}
	if p.outOfSync {
		pod.Annotations[vcjob.PodOutOfSyncKey] = "true"
	}
	return pod
}

func (s statusSnap) jobStatus() vcjob.JobStatus {
	st := vcjob.JobStatus{
		State:        vcjob.JobState{Phase: s.phase},
		MinAvailable: s.minAvailable,
		Pending:      s.pending, Running: s.running, Succeeded: s.succeeded, Failed: s.failed,
		Terminating: s.terminating, Unknown: s.unkown,
		RetryCount: s.retryCount,
	}
	if s.versioned {
		st.Version = rebuiltVersion
	}
	for _, tc := range s.tasks {
		if st.TaskStatusCount == nil {
			st.TaskStatusCount = map[string]vcjob.TaskState{}
		}
		ts, ok := st.TaskStatusCount[tc.task]
		if !ok {
			ts = vcjob.TaskState{Phase: map[corev1.PodPhase]int32{}}
			st.TaskStatusCount[tc.task] = ts
		}
		ts.Phase[tc.phase] = tc.n
	}
	return st
}

// snapshot abstracts the world into its state.
func (w *world) snapshot() *state {
	x := w.x
	job := w.cluster.Job(x.job.Namespace, x.job.Name)
	st := job.Status
	s := &state{status: statusSnap{
		phase: st.State.Phase, minAvailable: st.MinAvailable,
		pending: st.Pending, running: st.Running, succeeded: st.Succeeded, failed: st.Failed,
		terminating: st.Terminating, unkown: st.Unknown, retryCount: st.RetryCount,
		versioned: st.Version > 0,
	}}
	for task, ts := range st.TaskStatusCount {
		for phase, n := range ts.Phase {
			s.status.tasks = append(s.status.tasks, taskCount{task, phase, n})
		}
	}
	sort.Slice(s.status.tasks, func(i, j int) bool {
		a, b := s.status.tasks[i], s.status.tasks[j]
		if a.task != b.task {
			return a.task < b.task
		}
		return a.phase < b.phase
	})
	uids := map[string]types.UID{}
	for _, p := range w.cluster.Pods(job.Namespace, job.Name) {
		uids[p.Name] = p.UID
		idx, _ := vcjob.PodIndex(p)
		ps := podSnap{
			task: p.Annotations[vcjob.TaskSpecKey], index: idx, phase: p.Status.Phase,
			bound: p.Spec.NodeName != "", terminating: p.DeletionTimestamp != nil,
			outOfSync: p.Annotations[vcjob.PodOutOfSyncKey] == "true",
		}
		if v, err := strconv.Atoi(p.Annotations[vcjob.JobVersionKey]); err == nil && int32(v) < st.Version {
			ps.stale = true
		}
		if p.Status.Phase == corev1.PodRunning {
			ps.ready = true
			for _, cs := range p.Status.ContainerStatuses {
				ps.ready = ps.ready && cs.Ready
			}
		}
		if p.Status.Phase == corev1.PodRunning || p.Status.Phase == corev1.PodPending {
			for _, cs := range p.Status.InitContainerStatuses {
				ps.restarts += cs.RestartCount
			}
			for _, cs := range p.Status.ContainerStatuses {
				ps.restarts += cs.RestartCount
			}
			ps.restarts = min(ps.restarts, x.restartCap[ps.task])
		}
		s.pods = append(s.pods, ps)
	}
	if pg := w.cluster.PodGroup(job); pg.Exists {
		s.pg = pgSnap{exists: true, phase: pg.Phase}
	}
	entries := w.step.Delays.Pending(job.Namespace, job.Name)
	sort.Slice(entries, func(i, j int) bool { return entries[i].ID < entries[j].ID })
	for _, e := range entries {
		uid, ok := uids[e.Request.PodName]
		// Only a PodPending timeout compares the pod's UID: Volcano cancels it
		// when the pod it was registered for moves on, not a pod of its name.
		// Held by UID, every entry does.
		same := ok && uid == e.Request.PodUID && (e.Request.Event == vcjob.PodPendingEvent || e.ByPodUID)
		s.entries = append(s.entries, entrySnap{
			remaining: e.Due.Sub(w.now), action: e.Action, target: e.Target,
			podName: e.Request.PodName, taskName: e.Request.TaskName, partitionID: e.Request.PartitionID,
			event: e.Request.Event, samePod: same, orphaned: e.Orphaned, byUID: e.ByPodUID,
		})
	}
	return s
}
