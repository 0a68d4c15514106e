package statemachine_test

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/rapidgen"
)

// Generators for the property tests in property_test.go: valid jobs, and
// scenarios (a job plus a sequence of operations) to drive through the real
// pipeline (policy.Resolve, statemachine.Execute, memcluster).

var (
	genExitCodes = rapidgen.ExitCodes()
	// genRequestEvents are the events a generated request carries.
	genRequestEvents = []vcjob.Event{
		vcjob.PodFailedEvent, vcjob.PodEvictedEvent, vcjob.PodPendingEvent, vcjob.PodRunningEvent,
		vcjob.TaskCompletedEvent, vcjob.TaskFailedEvent, vcjob.JobUnknownEvent, vcjob.OutOfSyncEvent,
	}
)

// genJob is the library's exported generator of valid jobs (rapidgen.Job),
// which started life here.
func genJob() *rapid.Generator[*vcjob.Job] { return rapidgen.Job() }

// opKind is what one step of a scenario does.
type opKind int

const (
	// Requests, resolved with policy.Resolve and, when not delayed, run
	// with statemachine.Execute.
	opEvent   opKind = iota // a pod or task event
	opCommand               // a command: Request.Action set
	// World changes: what the scheduler, the kubelet and time do.
	opPodGroup          // set the PodGroup phase, or remove it
	opPodPhase          // move a pod to Running, Succeeded or Failed
	opBind              // give a pod a node (so its delete is graceful)
	opReady             // mark a pod's containers ready
	opFinishTerminating // terminating pods go away
	opAdvance           // the clock moves on
	opFailDelete        // toggle: deleting this pod fails
	opFailCreate        // toggle: creating this pod fails
	opFailStatus        // the next request's status writes fail
)

var opKindNames = map[opKind]string{
	opEvent: "event", opCommand: "command", opPodGroup: "podgroup", opPodPhase: "podphase",
	opBind: "bind", opReady: "ready", opFinishTerminating: "finishTerminating",
	opAdvance: "advance", opFailDelete: "failDelete", opFailCreate: "failCreate", opFailStatus: "failStatus",
}

// op is one step. Pods and tasks are chosen by Pick modulo what exists when
// the step runs, so the same ops replay the same way on a fresh cluster.
type op struct {
	Kind opKind
	Pick int
	// OnTask: the event names a task only (or, with no pods, it must).
	OnTask bool
	Event  vcjob.Event
	// ExitCode: of a PodFailed request, or of a pod moved to Failed.
	ExitCode int32
	Action   vcjob.Action
	// Targeted: the command also names the picked pod, its task and
	// partition (commands from kubectl never do; the API allows it).
	Targeted bool
	// UIDMode: 0 the job's UID, 1 none, 2 another job's.
	UIDMode  int
	PGPhase  podgroup.Phase // "" with opPodGroup: remove the PodGroup
	PodPhase corev1.PodPhase
	Seconds  int
}

func (o op) String() string {
	var b strings.Builder
	b.WriteString(opKindNames[o.Kind])
	switch o.Kind {
	case opEvent:
		fmt.Fprintf(&b, " %s pick=%d onTask=%v uidMode=%d", o.Event, o.Pick, o.OnTask, o.UIDMode)
		if o.Event == vcjob.PodFailedEvent {
			fmt.Fprintf(&b, " exitCode=%d", o.ExitCode)
		}
	case opCommand:
		fmt.Fprintf(&b, " %s targeted=%v pick=%d", o.Action, o.Targeted, o.Pick)
	case opPodGroup:
		if o.PGPhase == "" {
			b.WriteString(" remove")
		} else {
			fmt.Fprintf(&b, " %s", o.PGPhase)
		}
	case opPodPhase:
		fmt.Fprintf(&b, " pick=%d %s exitCode=%d", o.Pick, o.PodPhase, o.ExitCode)
	case opBind, opReady, opFailDelete, opFailCreate:
		fmt.Fprintf(&b, " pick=%d", o.Pick)
	case opAdvance:
		fmt.Fprintf(&b, " %ds", o.Seconds)
	}
	return b.String()
}

// genOp generates one step. Requests make up about half of the steps,
// PodGroup changes a tenth, pod changes most of the rest.
func genOp() *rapid.Generator[op] {
	return rapid.Custom(func(t *rapid.T) op {
		o := op{Pick: rapid.IntRange(0, 15).Draw(t, "pick")}
		switch w := rapid.IntRange(0, 99).Draw(t, "kind"); {
		case w < 38:
			o.Kind = opEvent
			o.Event = rapid.SampledFrom(genRequestEvents).Draw(t, "event")
			if o.Event == vcjob.PodFailedEvent {
				o.ExitCode = rapid.SampledFrom([]int32{0, 1, 2, 137, 143}).Draw(t, "exitCode")
			}
			o.OnTask = rapid.IntRange(0, 4).Draw(t, "onTask") == 0
			if u := rapid.IntRange(0, 9).Draw(t, "uidMode"); u >= 8 {
				o.UIDMode = u - 7
			}
		case w < 48:
			o.Kind = opCommand
			o.Action = rapid.SampledFrom(vcjob.PolicyActions()).Draw(t, "action")
			o.Targeted = rapid.Bool().Draw(t, "targeted")
		case w < 60:
			o.Kind = opPodGroup
			o.PGPhase = genPodGroupPhase().Draw(t, "pgPhase")
		case w < 76:
			o.Kind = opPodPhase
			o.PodPhase = rapid.SampledFrom([]corev1.PodPhase{corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed}).Draw(t, "podPhase")
			if o.PodPhase == corev1.PodFailed {
				o.ExitCode = rapid.SampledFrom(genExitCodes).Draw(t, "exitCode")
			}
		case w < 81:
			o.Kind = opBind
		case w < 86:
			o.Kind = opReady
		case w < 93:
			o.Kind = opFinishTerminating
		case w < 96:
			o.Kind = opAdvance
			o.Seconds = rapid.IntRange(1, 120).Draw(t, "seconds")
		case w < 98:
			o.Kind = opFailDelete
		case w < 99:
			o.Kind = opFailCreate
		default:
			o.Kind = opFailStatus
		}
		return o
	})
}

// genPodGroupPhase is a PodGroup phase, "" meaning no PodGroup. The phases
// that admit pods (Inqueue, Running, Unknown) come up most, as they do once
// the scheduler has taken the gang.
func genPodGroupPhase() *rapid.Generator[podgroup.Phase] {
	return rapid.SampledFrom([]podgroup.Phase{
		podgroup.PhaseRunning, podgroup.PhaseInqueue, podgroup.PhaseRunning, podgroup.PhaseUnknown,
		podgroup.PhasePending, "",
	})
}

// scenario is a job, its PodGroup's phase at the start ("" for none) and
// the steps to drive it through.
type scenario struct {
	Job      *vcjob.Job
	PodGroup podgroup.Phase
	Ops      []op
}

// maxOps bounds the steps of a scenario.
const maxOps = 30

func genScenario() *rapid.Generator[scenario] {
	return rapid.Custom(func(t *rapid.T) scenario {
		sc := scenario{
			Job:      genJob().Draw(t, "job"),
			PodGroup: genPodGroupPhase().Draw(t, "initialPodGroup"),
		}
		// The length is drawn first (rather than with SliceOfN, whose
		// lengths average about five) so that half the sequences are long;
		// it still shrinks towards zero.
		n := rapid.IntRange(0, maxOps/2).Draw(t, "steps")
		if rapid.Bool().Draw(t, "long") {
			n = rapid.IntRange(maxOps/2, maxOps).Draw(t, "longSteps")
		}
		for i := 0; i < n; i++ {
			sc.Ops = append(sc.Ops, genOp().Draw(t, fmt.Sprintf("op[%d]", i)))
		}
		return sc
	})
}
