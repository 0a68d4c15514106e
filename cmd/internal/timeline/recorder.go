package timeline

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/delay"
	"github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine/memcluster"
	"github.com/vcjob/vcjob/vcjobtest/scenario"
	"github.com/vcjob/vcjob/worker"
)

// Marker kinds, as the page draws them.
const (
	KindRequest    = "request"    // a request that resolved to SyncJob and changed no phase
	KindDecision   = "decision"   // any other action, or a phase change
	KindRegistered = "registered" // a delayed action registered
	KindFired      = "fired"      // a delayed action came due and ran
	KindCancelled  = "cancelled"  // a delayed action cancelled
)

// TerminatingPhase is the lane colour of a pod being deleted.
const TerminatingPhase = "Terminating"

// DeletedPhase is the job's phase band once the garbage collector deleted
// it (spec.ttlSecondsAfterFinished).
const DeletedPhase = "Deleted"

// A Recorder collects a run for the page. Its zero value is not usable:
// make one with New. It is not safe for concurrent use.
type Recorder struct {
	data  Data
	lanes map[string]int
	step  int
	start time.Time
}

// Data is what the page draws: the JSON embedded in it.
type Data struct {
	Job string `json:"job"`
	// Steps is the number of steps; StepTime is each step's simulated
	// time, in milliseconds since the run's start.
	Steps    int     `json:"steps"`
	StepTime []int64 `json:"stepTime"`
	Commands []Mark  `json:"commands"`
	// JobPhase and PodGroup are the phases from each step on ("" none).
	JobPhase []Change `json:"jobPhase"`
	PodGroup []Change `json:"podGroup"`
	Lanes    []Lane   `json:"lanes"`
	// Markers are the requests, decisions and delayed actions; Lane -1 is
	// the job's row (requests about no pod).
	Markers []Marker `json:"markers"`
	Summary string   `json:"summary"`
	// Phases names Lane.Segs' phase indices.
	Phases  []string `json:"phases"`
	Failure string   `json:"failure,omitempty"`
}

// Mark is a command at a step, with the Kubernetes Events recorded as it
// was handled (a Command's CommandIssued), one line each.
type Mark struct {
	Step   int      `json:"step"`
	Line   int      `json:"line"`
	Text   string   `json:"text"`
	Time   string   `json:"time"`
	Events []string `json:"events,omitempty"`
}

// Change is a phase from a step on.
type Change struct {
	Step  int    `json:"step"`
	Phase string `json:"phase"`
}

// Lane is one pod name over the run. Segs holds [from, to, phase index,
// new instance] per segment, flat; to is -1 while the segment is open at
// the end; phase indexes Phases.
type Lane struct {
	Name string  `json:"name"`
	Task string  `json:"task"`
	Segs []int32 `json:"segs"`
}

// Marker is one thing that happened at a step in a lane.
type Marker struct {
	Step   int    `json:"s"`
	Lane   int    `json:"l"`
	Kind   string `json:"k"`
	Title  string `json:"t"`
	Detail string `json:"d"`
}

// Phases are the pod lane colours, by index in Lane.Segs.
var Phases = []string{string(corev1.PodPending), string(corev1.PodRunning), string(corev1.PodSucceeded), string(corev1.PodFailed), string(corev1.PodUnknown), TerminatingPhase}

func phaseIndex(p string) int32 {
	for i, q := range Phases {
		if q == p {
			return int32(i)
		}
	}
	return int32(len(Phases) - 2) // Unknown
}

// New starts a recording of the job's run; start is the simulated clock's
// origin.
func New(job string, start time.Time) *Recorder {
	return &Recorder{data: Data{Job: job, Phases: Phases}, lanes: map[string]int{}, step: -1, start: start}
}

// Command records a script command (line 0: the job's creation).
func (r *Recorder) Command(line int, text string, now time.Time) {
	r.next(now)
	r.data.Commands = append(r.data.Commands, Mark{Step: r.step, Line: line, Text: text, Time: "+" + now.Sub(r.start).String()})
}

func (r *Recorder) next(now time.Time) {
	r.step++
	r.data.Steps = r.step + 1
	r.data.StepTime = append(r.data.StepTime, now.Sub(r.start).Milliseconds())
}

// Record records one processing step: its request and decision, the job's
// phase, and the delayed actions it registered, ran or cancelled.
func (r *Recorder) Record(rec worker.Record) {
	r.next(rec.Time)
	lane := r.laneOf(rec.Request.PodName)
	for _, e := range rec.Cancelled {
		r.marker(r.laneOf(e.Request.PodName), KindCancelled, "cancelled "+string(e.Action), describeEntry(e, r.start))
	}
	var d strings.Builder
	title := ""
	kind := KindRequest
	if rec.Fired != nil {
		kind = KindFired
		title = fmt.Sprintf("fired %s", rec.Fired.Action)
		lane = r.laneOf(rec.Fired.Request.PodName)
		fmt.Fprintf(&d, "delayed action fired: %s\n", describeEntry(*rec.Fired, r.start))
	} else {
		title = fmt.Sprintf("%s -> %s", scenario.Describe(rec.Request), rec.Action)
		fmt.Fprintf(&d, "request: %s\nrule: %s\naction: %s\ntarget: %s\n", scenario.Describe(rec.Request), rec.Rule, rec.Action, describeTarget(rec.Target))
	}
	switch {
	case rec.Skipped != "":
		fmt.Fprintf(&d, "skipped: %s\n", rec.Skipped)
	case rec.Registered != nil:
		kind = KindRegistered
		title = fmt.Sprintf("%s: %s in %s", scenario.Describe(rec.Request), rec.Action, rec.Delay)
		fmt.Fprintf(&d, "delay: %s registered, due at +%s\n", rec.Delay, rec.Registered.Due.Sub(r.start))
	case rec.DelayDropped:
		kind = KindRegistered
		fmt.Fprintf(&d, "delay: %s dropped, the pod already has a pending %s\n", rec.Delay, rec.Action)
	default:
		if rec.Transition != nil {
			fmt.Fprintf(&d, "call: %s\n", rec.Transition.Call)
		}
		fmt.Fprintf(&d, "phase: %s -> %s\n", orNone(rec.PhaseBefore), orNone(rec.PhaseAfter))
		if s := rec.Effects.Status; s != nil {
			fmt.Fprintf(&d, "status written: phase %s, retryCount %d, version %d; pending %d running %d succeeded %d failed %d terminating %d\n",
				orNone(s.State.Phase), s.RetryCount, s.Version, s.Pending, s.Running, s.Succeeded, s.Failed, s.Terminating)
		}
		if n := len(rec.Effects.Created); n > 0 {
			fmt.Fprintf(&d, "created: %s\n", list(rec.Effects.Created))
		}
		if n := len(rec.Effects.Deleted); n > 0 {
			fmt.Fprintf(&d, "deleted: %s\n", list(rec.Effects.Deleted))
		}
		if rec.Effects.PodGroupDeleted {
			d.WriteString("podgroup deleted\n")
		}
		if kind == KindRequest && (rec.Action != vcjob.SyncJobAction || rec.PhaseBefore != rec.PhaseAfter) {
			kind = KindDecision
		}
	}
	for _, e := range rec.Events {
		fmt.Fprintf(&d, "event: %s\n", e)
	}
	if rec.Err != nil {
		fmt.Fprintf(&d, "error: %v\n", rec.Err)
		kind = KindDecision
	}
	r.marker(lane, kind, title, strings.TrimRight(d.String(), "\n"))
	if rec.PhaseAfter != "" {
		r.phase(&r.data.JobPhase, string(rec.PhaseAfter))
	}
}

// Changes records what the cluster changed: pod phases, pods created,
// deleted and being deleted.
func (r *Recorder) Changes(chs []memcluster.Change, now time.Time) {
	for _, ch := range chs {
		switch {
		case ch.NewPod != nil:
			p := ch.NewPod
			phase := string(p.Status.Phase)
			if phase == "" {
				phase = string(corev1.PodPending)
			}
			if p.DeletionTimestamp != nil {
				phase = TerminatingPhase
			}
			r.podPhase(p.Name, p.Annotations[vcjob.TaskSpecKey], phase, ch.OldPod == nil)
		case ch.OldPod != nil:
			r.podGone(ch.OldPod.Name)
		}
	}
}

// Recorded adds Events recorded outside a step to the command being
// handled, which shows them on hover.
func (r *Recorder) Recorded(events []record.Event, now time.Time) {
	if len(r.data.Commands) == 0 {
		return
	}
	c := &r.data.Commands[len(r.data.Commands)-1]
	for _, e := range events {
		c.Events = append(c.Events, "event: "+e.String())
	}
}

// Requeued adds the requeue of a failed step to its marker's details.
func (r *Recorder) Requeued(_ request.Request, requeues int, due time.Time) {
	if len(r.data.Markers) == 0 {
		return
	}
	m := &r.data.Markers[len(r.data.Markers)-1]
	m.Detail += fmt.Sprintf("\nrequeued: %d of %d, again at +%s", requeues, scenario.MaxRequeue, due.Sub(r.start))
}

// PodGroup records the PodGroup's phase ("" when there is none).
func (r *Recorder) PodGroup(phase string, now time.Time) { r.phase(&r.data.PodGroup, phase) }

// End records the run's summary.
func (r *Recorder) End(summary string) { r.data.Summary = summary }

// Fail records that the run stopped on an error.
func (r *Recorder) Fail(msg string) { r.data.Failure = msg }

// Data returns what the page would draw.
func (r *Recorder) Data() Data { return r.data }

func (r *Recorder) at() int { return max(r.step, 0) }

func (r *Recorder) phase(list *[]Change, phase string) {
	if n := len(*list); n > 0 && (*list)[n-1].Phase == phase {
		return
	}
	if n := len(*list); n > 0 && (*list)[n-1].Step == r.at() {
		(*list)[n-1].Phase = phase
		return
	}
	*list = append(*list, Change{Step: r.at(), Phase: phase})
}

func (r *Recorder) marker(lane int, kind, title, detail string) {
	r.data.Markers = append(r.data.Markers, Marker{Step: r.at(), Lane: lane, Kind: kind, Title: title, Detail: detail})
}

// laneOf is the lane of a pod, -1 for none (or a pod never seen).
func (r *Recorder) laneOf(pod string) int {
	if i, ok := r.lanes[pod]; ok && pod != "" {
		return i
	}
	return -1
}

func (r *Recorder) podPhase(name, task, phase string, created bool) {
	i, ok := r.lanes[name]
	if !ok {
		i = len(r.data.Lanes)
		r.lanes[name] = i
		r.data.Lanes = append(r.data.Lanes, Lane{Name: name, Task: task})
	}
	l := &r.data.Lanes[i]
	p := phaseIndex(phase)
	if n := len(l.Segs); n > 0 && l.Segs[n-3] == -1 {
		if l.Segs[n-2] == p && !created {
			return
		}
		if int(l.Segs[n-4]) == r.at() {
			// Changed again within the step: keep the last phase.
			l.Segs[n-2] = p
			if created {
				l.Segs[n-1] = 1
			}
			return
		}
		l.Segs[n-3] = int32(r.at())
	}
	fresh := int32(0)
	if created {
		fresh = 1
	}
	l.Segs = append(l.Segs, int32(r.at()), -1, p, fresh)
}

func (r *Recorder) podGone(name string) {
	i, ok := r.lanes[name]
	if !ok {
		return
	}
	l := &r.data.Lanes[i]
	if n := len(l.Segs); n > 0 && l.Segs[n-3] == -1 {
		l.Segs[n-3] = int32(r.at())
	}
}

func orNone(p vcjob.JobPhase) string {
	if p == "" {
		return "(none)"
	}
	return string(p)
}

// list shortens long name lists for a tooltip.
func list(names []string) string {
	if len(names) > 8 {
		return fmt.Sprintf("%s … and %d more (%d)", strings.Join(names[:8], " "), len(names)-8, len(names))
	}
	return strings.Join(names, " ")
}

func describeTarget(t request.Target) string {
	switch t.Level {
	case vcjob.TaskLevel:
		return "task " + t.TaskName
	case vcjob.PodLevel:
		return "pod " + t.PodName
	case vcjob.PartitionLevel:
		return fmt.Sprintf("partition %s/%s", t.TaskName, t.PartitionID)
	}
	return "the job"
}

func describeEntry(e delay.Entry, start time.Time) string {
	s := fmt.Sprintf("%s for %s after %s on %s (registered at +%s, due at +%s)", e.Action, describeTarget(e.Target), e.Delay, scenario.Describe(e.Request), e.Registered.Sub(start), e.Due.Sub(start))
	if e.Orphaned {
		s += " [orphaned]"
	}
	return s
}

// Collected records a look of the garbage collector at the job, on the
// job's row; its delete ends the job's phase band with "Deleted".
func (r *Recorder) Collected(rec scenario.GCRecord) {
	r.next(rec.Time)
	title := "garbage collector"
	kind := KindRequest
	if rec.Result.Delete != nil && rec.Result.Err == nil {
		title, kind = "garbage collector: job deleted", KindDecision
	}
	r.marker(-1, kind, title, scenario.DescribeGC(rec))
	if kind == KindDecision {
		r.phase(&r.data.JobPhase, DeletedPhase)
	}
}
