package scenario

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/statemachine/memcluster"
	"github.com/vcjob/vcjob/vcjobtest/scenario/expect"
	"github.com/vcjob/vcjob/worker"
)

// Step is one script command as the simulator played it, for a player
// that plays the same script on another cluster (the example
// controller's end-to-end tests play it on a real API server).
type Step struct {
	Line int
	Text string
	// Verb is the command; Pods the full names of the pods a pod command
	// acted on, in order.
	Verb string
	Pods []string
	// N is the exit code, the restart count or the replicas; Word the
	// PodGroup phase, the action, the task, the claim or the reason.
	N        int32
	Word     string
	Relisted bool
	D        time.Duration
	// PodGroup is the status a podgroup or unschedulable command gave
	// the job's PodGroup (the phase and conditions), before the job
	// controller reacted to it.
	PodGroup *podgroup.Status
	// Waits: when an advance began, a delayed action, a requeued request
	// or the garbage collector's look was waiting, so the time passing
	// matters (a player on a real clock must wait it out).
	Waits bool
}

// Trace runs the script as RunWith does and also returns what a test
// reads of the run: every write of the job, a snapshot of the cluster
// after each line (package expect), and the steps as played. When a line
// fails, what ran before it is returned with the error.
func Trace(job *vcjob.Job, script []Command, o Observer, opts Options) (*expect.Trace, []Step, error) {
	if job == nil || o == nil {
		return nil, nil, errors.New("scenario: a job and an observer are needed")
	}
	rec := &tracer{Observer: o}
	s, err := newSim(job, rec, opts.Behavior, opts.Claims...)
	if err != nil {
		return nil, nil, err
	}
	tr := &expect.Trace{Job: s.job, Writes: rec.writes, Snapshots: map[int]*expect.Snapshot{0: s.snapshot(rec)}}
	var steps []Step
	for _, c := range script {
		step := Step{Line: c.Line, Text: c.Text, Verb: c.verb, N: c.n, Word: c.word, Relisted: c.relisted, D: c.d}
		if c.pods != "" && s.ext.deletedAt == 0 && s.gc.deleted == nil {
			if pods, err := s.pods(c); err == nil {
				for _, p := range pods {
					step.Pods = append(step.Pods, p.Name)
				}
			}
		}
		if c.op != nil && c.op.trace != nil {
			c.op.trace(s, &step)
		}
		rec.line = c.Line
		err := s.run(c)
		tr.Writes = rec.writes
		if err != nil {
			return tr, steps, err
		}
		// Only podgroup and unschedulable set the PodGroup's status.
		step.PodGroup, s.ext.set = s.ext.set, nil
		steps = append(steps, step)
		tr.Snapshots[c.Line], tr.Last = s.snapshot(rec), c.Line
	}
	if len(s.queue) > 0 {
		// A held restart as the last command: its requests are handled.
		if err := s.settle(); err != nil {
			return tr, steps, err
		}
	}
	o.End(s.summary())
	return tr, steps, nil
}

// tracer passes everything on to the observer and keeps the job's
// writes and Events.
type tracer struct {
	Observer
	line   int
	writes []expect.Write
	events []record.Event
}

func (t *tracer) Changes(chs []memcluster.Change, now time.Time) {
	for _, ch := range chs {
		if ch.NewJob != nil {
			t.writes = append(t.writes, expect.Write{Line: t.line, Job: ch.NewJob.DeepCopy()})
		}
	}
	t.Observer.Changes(chs, now)
}

func (t *tracer) Record(r worker.Record) {
	t.events = append(t.events, r.Events...)
	t.Observer.Record(r)
}

func (t *tracer) Recorded(events []record.Event, now time.Time) {
	t.events = append(t.events, events...)
	t.Observer.Recorded(events, now)
}

func (t *tracer) Note(text string, now time.Time) {
	if n, ok := t.Observer.(NoteObserver); ok {
		n.Note(text, now)
	}
}

func (t *tracer) Collected(r GCRecord) {
	if g, ok := t.Observer.(GCObserver); ok {
		g.Collected(r)
	}
}

// snapshot is the cluster as a test reads it now.
func (s *sim) snapshot(t *tracer) *expect.Snapshot {
	snap := &expect.Snapshot{Objects: map[string]runtime.Object{},
		JobEvents: append([]record.Event(nil), t.events...), PodGroupEvents: append([]record.Event(nil), s.ext.podGroupEvents...)}
	job := s.cluster.Job(s.ns, s.job)
	snap.Job = job
	snap.Pods = s.cluster.Pods(s.ns, s.job)
	if job != nil {
		if state := s.cluster.PodGroup(job); state.Exists {
			pg := &podgroup.PodGroup{}
			name := podgroup.Name(job)
			for _, w := range s.cluster.Journal.PodGroupWrites {
				if w.Object.Name == name {
					pg = w.Object.DeepCopy()
				}
			}
			pg.Name, pg.Namespace = name, s.ns
			pg.Status = podgroup.Status{Phase: state.Phase, Conditions: podgroup.CopyConditions(state.Conditions)}
			snap.PodGroup = pg
		}
	}
	for _, w := range s.cluster.Journal.ObjectWrites {
		if o := s.cluster.Object(w.Kind, s.ns, w.Name); o != nil {
			snap.Objects[w.Kind+"/"+w.Name] = o
		}
	}
	for _, c := range s.cluster.Journal.ClaimsCreated {
		if ok, _ := s.cluster.ClaimExists(context.Background(), s.ns, c.Name); ok {
			snap.Objects["PersistentVolumeClaim/"+c.Name] = c.DeepCopy()
		}
	}
	return snap
}

// A File is a scenario file: sections, each opened by a line "-- NAME --"
// (job.yaml, script, expect, transcript...), in their order.
type File struct {
	Order    []string
	Sections map[string]string
}

// ParseFile reads a scenario file; text before the first section may
// only be comments.
func ParseFile(data []byte) (*File, error) {
	f := &File{Sections: map[string]string{}}
	name := ""
	for _, line := range strings.SplitAfter(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") {
			name = strings.TrimSuffix(strings.TrimPrefix(trimmed, "-- "), " --")
			f.Order = append(f.Order, name)
			continue
		}
		if name == "" {
			if trimmed != "" && !strings.HasPrefix(trimmed, "#") {
				return nil, fmt.Errorf("text before the first section: %q", trimmed)
			}
			continue
		}
		f.Sections[name] += line
	}
	return f, nil
}
