package rapidgen

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine/memcluster"
)

// StepKind is what a scenario step does.
type StepKind string

// The step kinds: a request for the controller, or a change of the world
// (what the scheduler, the kubelet, a user and time do).
const (
	// StepRequest: a pod or task event, a PodGroup change or a command
	// (see Step.Request).
	StepRequest StepKind = "request"
	// StepPodPhase: the picked pod moves to PodPhase (Running, Succeeded,
	// or Failed with ExitCode) and is bound to a node.
	StepPodPhase StepKind = "podPhase"
	// StepBind: the picked pod is bound to a node (so deleting it is
	// graceful).
	StepBind StepKind = "bind"
	// StepReady: the picked pod's containers become ready.
	StepReady StepKind = "ready"
	// StepPodGroup: the scheduler sets the PodGroup's phase; "" removes
	// the PodGroup.
	StepPodGroup StepKind = "podGroup"
	// StepFinishTerminating: pods being deleted finish terminating.
	StepFinishTerminating StepKind = "finishTerminating"
	// StepAdvance: the clock moves on by Advance (delayed actions may fall
	// due).
	StepAdvance StepKind = "advance"
)

// Step is one step of a scenario. Pods (and tasks) are chosen by Pick
// modulo what exists when the step runs, so a scenario replays the same
// way on a fresh cluster and still makes sense after it shrinks.
type Step struct {
	Kind StepKind `json:"kind"`
	Pick int      `json:"pick"`

	// StepRequest: Event (and ExitCode for PodFailed), or Action for a
	// command. OnTask: the event names the picked task but no pod.
	// Targeted: the command names the picked pod, its task and partition
	// (kubectl never does; the API allows it). UIDMode: 0 the job's UID,
	// 1 none, 2 another job's.
	Event    vcjob.Event  `json:"event,omitempty"`
	ExitCode int32        `json:"exitCode,omitempty"`
	Action   vcjob.Action `json:"action,omitempty"`
	OnTask   bool         `json:"onTask,omitempty"`
	Targeted bool         `json:"targeted,omitempty"`
	UIDMode  int          `json:"uidMode,omitempty"`

	PodPhase      corev1.PodPhase `json:"podPhase,omitempty"`
	PodGroupPhase podgroup.Phase  `json:"podGroupPhase,omitempty"`
	Advance       time.Duration   `json:"advance,omitempty"`
}

func (s Step) String() string {
	var b strings.Builder
	b.WriteString(string(s.Kind))
	switch s.Kind {
	case StepRequest:
		if s.Action != "" {
			fmt.Fprintf(&b, " command %s targeted=%v pick=%d", s.Action, s.Targeted, s.Pick)
			break
		}
		fmt.Fprintf(&b, " %s pick=%d onTask=%v uidMode=%d", s.Event, s.Pick, s.OnTask, s.UIDMode)
		if s.Event == vcjob.PodFailedEvent {
			fmt.Fprintf(&b, " exitCode=%d", s.ExitCode)
		}
	case StepPodPhase:
		fmt.Fprintf(&b, " pick=%d %s exitCode=%d", s.Pick, s.PodPhase, s.ExitCode)
	case StepBind, StepReady:
		fmt.Fprintf(&b, " pick=%d", s.Pick)
	case StepPodGroup:
		if s.PodGroupPhase == "" {
			b.WriteString(" remove")
		} else {
			fmt.Fprintf(&b, " %s", s.PodGroupPhase)
		}
	case StepAdvance:
		fmt.Fprintf(&b, " %s", s.Advance)
	}
	return b.String()
}

// Request builds a StepRequest's request against job and its pods as they
// are now (sorted by name, as memcluster's Pods returns them):
//   - a command: its action; Targeted names the picked pod;
//   - Unknown, or no event: a PodGroup change: no task, job version 0;
//   - any other event: about the picked pod (its task, UID, partition and
//     the job version it was created at), or with OnTask or no pods about
//     the picked task at the job's current version.
func (s Step) Request(job *vcjob.Job, pods []*corev1.Pod) request.Request {
	req := request.Request{Namespace: job.Namespace, JobName: job.Name}
	var pod *corev1.Pod
	if len(pods) > 0 {
		pod = pods[pick(s.Pick, len(pods))]
	}
	aboutPod := func(p *corev1.Pod) {
		req.TaskName = p.Annotations[vcjob.TaskSpecKey]
		req.PodName = p.Name
		req.PodUID = p.UID
		req.PartitionID = p.Labels[vcjob.PartitionIDKey]
		v, _ := strconv.Atoi(p.Annotations[vcjob.JobVersionKey])
		req.JobVersion = int32(v)
	}
	switch {
	case s.Action != "":
		req.Event, req.Action = vcjob.CommandIssuedEvent, s.Action
		if s.Targeted && pod != nil {
			aboutPod(pod)
		}
		return req
	case s.Event == "" || s.Event == vcjob.JobUnknownEvent:
		req.Event = s.Event
		return req
	}
	req.Event, req.ExitCode = s.Event, s.ExitCode
	switch s.UIDMode {
	case 0:
		req.JobUID = job.UID
	case 2:
		req.JobUID = job.UID + "-other"
	}
	if pod != nil && !s.OnTask {
		aboutPod(pod)
	} else if len(job.Spec.Tasks) > 0 {
		req.TaskName = job.Spec.Tasks[pick(s.Pick, len(job.Spec.Tasks))].Name
		req.JobVersion = job.Status.Version
	}
	return req
}

// Apply applies a world step to c, for job (the job as it is now; its
// namespace and name find the pods and the PodGroup). It returns false,
// changing nothing, for a StepRequest. StepAdvance moves c.Now; firing
// delayed actions that fell due is the controller's business.
func (s Step) Apply(c *memcluster.Cluster, job *vcjob.Job) bool {
	pods := c.Pods(job.Namespace, job.Name)
	var pod *corev1.Pod
	if len(pods) > 0 {
		pod = pods[pick(s.Pick, len(pods))]
	}
	switch s.Kind {
	case StepRequest:
		return false
	case StepPodGroup:
		if s.PodGroupPhase == "" {
			_, _ = c.DeletePodGroup(context.Background(), job)
		} else {
			c.SetPodGroupPhase(job.Namespace, podgroup.Name(job), s.PodGroupPhase)
		}
	case StepPodPhase:
		if pod == nil {
			return true
		}
		pod.Status.Phase = s.PodPhase
		if pod.Spec.NodeName == "" {
			pod.Spec.NodeName = "node-0"
		}
		cs := corev1.ContainerStatus{Name: "main"}
		switch s.PodPhase {
		case corev1.PodRunning:
			cs.State.Running = &corev1.ContainerStateRunning{StartedAt: c.Now}
		case corev1.PodSucceeded:
			cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", FinishedAt: c.Now}
		case corev1.PodFailed:
			cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: s.ExitCode, Reason: "Error", FinishedAt: c.Now}
		}
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{cs}
		c.PutPod(pod)
	case StepBind:
		if pod != nil && pod.Spec.NodeName == "" {
			pod.Spec.NodeName = "node-0"
			c.PutPod(pod)
		}
	case StepReady:
		if pod == nil {
			return true
		}
		if len(pod.Status.ContainerStatuses) == 0 {
			pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main"}}
		}
		for k := range pod.Status.ContainerStatuses {
			pod.Status.ContainerStatuses[k].Ready = true
		}
		c.PutPod(pod)
	case StepFinishTerminating:
		c.FinishTerminating()
	case StepAdvance:
		c.Now = metav1.NewTime(c.Now.Add(s.Advance))
	}
	return true
}

func pick(p, n int) int {
	if p < 0 {
		p = -p
	}
	return p % n
}

// Script is a scenario: a job, its PodGroup's phase at the start ("" for
// none) and the steps to drive it through.
type Script struct {
	Job      *vcjob.Job     `json:"job"`
	PodGroup podgroup.Phase `json:"podGroup,omitempty"`
	Steps    []Step         `json:"steps"`
}

// MaxSteps bounds the steps of a generated scenario.
const MaxSteps = 30

// Scenario generates a Script: a job (Job), its PodGroup's starting phase
// and up to MaxSteps steps. Requests make up about half of the steps,
// PodGroup changes a tenth, pod changes most of the rest; half the scripts
// are long.
func Scenario() *rapid.Generator[Script] {
	return rapid.Custom(func(t *rapid.T) Script {
		sc := Script{Job: Job().Draw(t, "job"), PodGroup: podGroupPhase().Draw(t, "initialPodGroup")}
		// The length is drawn first (rather than with SliceOfN, whose
		// lengths average about five) so that half the sequences are
		// long; it still shrinks towards zero.
		n := rapid.IntRange(0, MaxSteps/2).Draw(t, "steps")
		if rapid.Bool().Draw(t, "long") {
			n = rapid.IntRange(MaxSteps/2, MaxSteps).Draw(t, "longSteps")
		}
		for i := 0; i < n; i++ {
			sc.Steps = append(sc.Steps, step().Draw(t, fmt.Sprintf("step[%d]", i)))
		}
		return sc
	})
}

func step() *rapid.Generator[Step] {
	return rapid.Custom(func(t *rapid.T) Step {
		s := Step{Pick: rapid.IntRange(0, 15).Draw(t, "pick")}
		switch w := rapid.IntRange(0, 99).Draw(t, "kind"); {
		case w < 40:
			s.Kind = StepRequest
			s.Event = rapid.SampledFrom(append(append([]vcjob.Event{}, requestEvents...), vcjob.JobUnknownEvent)).Draw(t, "event")
			if s.Event == vcjob.PodFailedEvent {
				s.ExitCode = rapid.SampledFrom(append([]int32{0}, exitCodes...)).Draw(t, "exitCode")
			}
			s.OnTask = rapid.IntRange(0, 4).Draw(t, "onTask") == 0
			if u := rapid.IntRange(0, 9).Draw(t, "uidMode"); u >= 8 {
				s.UIDMode = u - 7
			}
		case w < 50:
			s.Kind = StepRequest
			s.Action = rapid.SampledFrom(vcjob.PolicyActions()).Draw(t, "action")
			s.Targeted = rapid.Bool().Draw(t, "targeted")
		case w < 62:
			s.Kind = StepPodGroup
			s.PodGroupPhase = podGroupPhase().Draw(t, "podGroupPhase")
		case w < 80:
			s.Kind = StepPodPhase
			s.PodPhase = rapid.SampledFrom([]corev1.PodPhase{corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed}).Draw(t, "podPhase")
			if s.PodPhase == corev1.PodFailed {
				s.ExitCode = rapid.SampledFrom(exitCodes).Draw(t, "exitCode")
			}
		case w < 85:
			s.Kind = StepBind
		case w < 90:
			s.Kind = StepReady
		case w < 96:
			s.Kind = StepFinishTerminating
		default:
			s.Kind = StepAdvance
			s.Advance = time.Duration(rapid.IntRange(1, 120).Draw(t, "seconds")) * time.Second
		}
		return s
	})
}

// podGroupPhase is a PodGroup phase, "" meaning no PodGroup. The phases
// that admit pods come up most, as they do once the scheduler has taken
// the gang.
func podGroupPhase() *rapid.Generator[podgroup.Phase] {
	return rapid.SampledFrom([]podgroup.Phase{
		podgroup.PhaseRunning, podgroup.PhaseInqueue, podgroup.PhaseRunning, podgroup.PhaseUnknown,
		podgroup.PhasePending, "",
	})
}
