package statemachine_test

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
)

// Generators for the property tests in property_test.go: valid jobs, and
// scenarios (a job plus a sequence of operations) to drive through the real
// pipeline (policy.Resolve, statemachine.Execute, memcluster).

var (
	genTaskNames = []string{"master", "worker", "ps", "chief", "eval"}
	// genPolicyEvents are the events a generated lifecycle policy names
	// (besides "*", which must stand alone in its list).
	genPolicyEvents = []vcjob.Event{
		vcjob.PodFailedEvent, vcjob.PodEvictedEvent, vcjob.PodPendingEvent,
		vcjob.JobUnknownEvent, vcjob.TaskCompletedEvent, vcjob.TaskFailedEvent,
	}
	genExitCodes = []int32{1, 2, 137, 143}
	// genRequestEvents are the events a generated request carries.
	genRequestEvents = []vcjob.Event{
		vcjob.PodFailedEvent, vcjob.PodEvictedEvent, vcjob.PodPendingEvent, vcjob.PodRunningEvent,
		vcjob.TaskCompletedEvent, vcjob.TaskFailedEvent, vcjob.JobUnknownEvent, vcjob.OutOfSyncEvent,
	}
)

// genJob generates a valid job: 1–3 tasks of 0–4 replicas, task
// minAvailable unset or at most the replicas, job minAvailable at most the
// total, maxRetry 1–4 (3 on every task), optional minSuccess, optional
// partition policy (totalPartitions*partitionSize == replicas), optional
// dependsOn on earlier tasks, and lifecycle policies on the tasks and the
// job. Its status is empty: it has never been synced.
func genJob() *rapid.Generator[*vcjob.Job] {
	return rapid.Custom(func(t *rapid.T) *vcjob.Job {
		job := &vcjob.Job{
			TypeMeta: metav1.TypeMeta{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind},
			ObjectMeta: metav1.ObjectMeta{
				Namespace: rapid.SampledFrom([]string{"default", "team-a"}).Draw(t, "namespace"),
				Name:      rapid.StringMatching(`[a-z][a-z0-9]{0,5}`).Draw(t, "name"),
				UID:       types.UID(rapid.StringMatching(`[0-9a-f]{8}`).Draw(t, "uid")),
			},
		}
		spec := &job.Spec
		spec.Queue = vcjob.DefaultQueue
		spec.SchedulerName = vcjob.DefaultSchedulerName
		n := rapid.IntRange(1, 3).Draw(t, "tasks")
		names := rapid.SliceOfNDistinct(rapid.SampledFrom(genTaskNames), n, n, rapid.ID[string]).Draw(t, "taskNames")
		for i, name := range names {
			spec.Tasks = append(spec.Tasks, genTask(t, name, names[:i]))
		}
		total := job.TotalReplicas()
		spec.MinAvailable = rapid.Int32Range(0, total).Draw(t, "minAvailable")
		spec.MaxRetry = rapid.Int32Range(1, 4).Draw(t, "maxRetry")
		if rapid.Bool().Draw(t, "hasMinSuccess") {
			ms := rapid.Int32Range(1, max(total, 1)).Draw(t, "minSuccess")
			spec.MinSuccess = &ms
		}
		spec.Policies = genPolicies(t, "job")
		return job
	})
}

func genTask(t *rapid.T, name string, earlier []string) vcjob.TaskSpec {
	task := vcjob.TaskSpec{
		Name:     name,
		Replicas: rapid.Int32Range(0, 4).Draw(t, name+".replicas"),
		MaxRetry: 3,
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
			Spec: corev1.PodSpec{
				Containers:    []corev1.Container{{Name: "main", Image: "busybox"}},
				RestartPolicy: corev1.RestartPolicyNever,
			},
		},
	}
	var minPartitions, size int32
	if task.Replicas > 0 && rapid.Bool().Draw(t, name+".partitioned") {
		var divisors []int32
		for d := int32(1); d <= task.Replicas; d++ {
			if task.Replicas%d == 0 {
				divisors = append(divisors, d)
			}
		}
		size = rapid.SampledFrom(divisors).Draw(t, name+".partitionSize")
		totalPartitions := task.Replicas / size
		minPartitions = rapid.Int32Range(0, totalPartitions).Draw(t, name+".minPartitions")
		task.PartitionPolicy = &vcjob.PartitionPolicySpec{TotalPartitions: totalPartitions, PartitionSize: size, MinPartitions: minPartitions}
	}
	if rapid.Bool().Draw(t, name+".hasMinAvailable") {
		// With minPartitions set, validation wants minAvailable to be
		// minPartitions*partitionSize.
		ma := minPartitions * size
		if minPartitions == 0 {
			ma = rapid.Int32Range(0, task.Replicas).Draw(t, name+".minAvailable")
		}
		task.MinAvailable = &ma
	}
	if len(earlier) > 0 && rapid.Bool().Draw(t, name+".hasDependsOn") {
		deps := rapid.SliceOfNDistinct(rapid.SampledFrom(earlier), 1, len(earlier), rapid.ID[string]).Draw(t, name+".dependsOn")
		iteration := rapid.SampledFrom([]vcjob.Iteration{vcjob.IterationAny, vcjob.IterationAll}).Draw(t, name+".iteration")
		task.DependsOn = &vcjob.DependsOn{Name: deps, Iteration: iteration}
	}
	task.Policies = genPolicies(t, name)
	return task
}

// genPolicies generates 0–3 lifecycle policies that pass validation: each
// matches events or an exit code, no event or exit code appears twice in
// the list, and "*" stands alone.
func genPolicies(t *rapid.T, owner string) []vcjob.LifecyclePolicy {
	n := rapid.IntRange(0, 3).Draw(t, owner+".policies")
	star := rapid.IntRange(0, 4).Draw(t, owner+".star") == 0
	usedEvents := map[vcjob.Event]bool{}
	usedCodes := map[int32]bool{}
	var out []vcjob.LifecyclePolicy
	for i := 0; i < n; i++ {
		label := fmt.Sprintf("%s.policy[%d]", owner, i)
		p := vcjob.LifecyclePolicy{Action: rapid.SampledFrom(vcjob.PolicyActions()).Draw(t, label+".action")}
		if rapid.IntRange(0, 3).Draw(t, label+".hasTimeout") == 0 {
			p.Timeout = &metav1.Duration{Duration: time.Duration(rapid.IntRange(1, 60).Draw(t, label+".timeout")) * time.Second}
		}
		byEvent := rapid.Bool().Draw(t, label+".byEvent")
		var events []vcjob.Event
		switch {
		case byEvent && star:
			if !usedEvents[vcjob.AnyEvent] {
				events = []vcjob.Event{vcjob.AnyEvent}
			}
		case byEvent:
			var free []vcjob.Event
			for _, e := range genPolicyEvents {
				if !usedEvents[e] {
					free = append(free, e)
				}
			}
			if len(free) > 0 {
				events = rapid.SliceOfNDistinct(rapid.SampledFrom(free), 1, min(2, len(free)), rapid.ID[vcjob.Event]).Draw(t, label+".events")
			}
		}
		if len(events) > 0 {
			for _, e := range events {
				usedEvents[e] = true
			}
			// Event, Events, or both: Resolve reads them as one set.
			switch rapid.IntRange(0, 2).Draw(t, label+".eventField") {
			case 0:
				p.Event, p.Events = events[0], events[1:]
			case 1:
				p.Events = events
			default:
				p.Event, p.Events = events[0], events
			}
			if len(p.Events) == 0 {
				p.Events = nil
			}
		} else {
			var free []int32
			for _, c := range genExitCodes {
				if !usedCodes[c] {
					free = append(free, c)
				}
			}
			if len(free) == 0 {
				continue
			}
			code := rapid.SampledFrom(free).Draw(t, label+".exitCode")
			usedCodes[code] = true
			p.ExitCode = &code
		}
		out = append(out, p)
	}
	return out
}

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
