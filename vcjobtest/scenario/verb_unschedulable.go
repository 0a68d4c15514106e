package scenario

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/record"
)

// unschedulableVerb is "unschedulable [REASON]": a scheduling cycle that
// cannot place the job's gang. Volcano's own end-to-end suites need it (a
// task that stays unschedulable, a running gang that loses a member it
// cannot replace).
func unschedulableVerb() verb {
	return verb{
		name:    "unschedulable",
		example: "unschedulable no GPU left",
		help: []usage{{"unschedulable [REASON]", "the scheduler cannot place the gang: the PodGroup gets a true\n" +
			"Unschedulable condition and a Warning Unschedulable Event, and its\n" +
			"phase from the pods (Unknown if a pod runs, Running if minMember are\n" +
			"bound, else Pending unless Inqueue); a later \"podgroup Inqueue\" or\n" +
			"\"podgroup Running\" places it (condition Scheduled)"}},
		parse: parseReason,
		play:  playUnschedulable,
	}
}

// parseReason parses "unschedulable [REASON]": the rest of the line, if
// any, is the scheduler's reason.
func parseReason(c *Command, args []string) error {
	c.word = strings.Join(args, " ")
	return nil
}

// ReasonUnschedulable is the reason of the Event the scheduler records on
// a PodGroup it cannot place, and the type of the condition it sets.
const ReasonUnschedulable = string(podgroup.ConditionUnschedulable)

// playUnschedulable plays the cycle as Volcano's scheduler closes its
// session: the PodGroup gets a true Unschedulable condition, then its
// phase from the pods (Unknown when some pod runs, as a running gang that
// lost a member it cannot replace; Running when minMember pods are bound
// or have succeeded; otherwise Pending, unless the PodGroup is Inqueue,
// which it stays), and the scheduler records a Warning Unschedulable
// Event on the PodGroup. The job's Pending pods stay unbound. The
// condition comes first, so the sync the phase change causes reads it.
func playUnschedulable(s *sim, c Command) error {
	job := s.cluster.Job(s.ns, s.job)
	state := s.cluster.PodGroup(job)
	if !state.Exists {
		return c.errorf("the job has no PodGroup now (a whole-job kill deletes it; the next sync creates it again)")
	}
	var running, placed, unplaced int32
	for _, p := range s.cluster.Pods(s.ns, s.job) {
		switch {
		case p.DeletionTimestamp != nil:
		case p.Status.Phase == corev1.PodRunning:
			running++
		case p.Status.Phase == corev1.PodSucceeded, p.Status.Phase == corev1.PodPending && p.Spec.NodeName != "":
			placed++
		case p.Status.Phase == corev1.PodPending:
			unplaced++
		}
	}
	minMember := job.Spec.MinAvailable
	message := fmt.Sprintf("%d of the gang's pods cannot be placed; %d running, %d placed, minMember %d", unplaced, running, placed, minMember)
	if c.word != "" {
		message += ": " + c.word
	}
	phase := state.Phase
	switch {
	case running > 0:
		phase = podgroup.PhaseUnknown
	case placed >= minMember:
		phase = podgroup.PhaseRunning
	case phase != podgroup.PhaseInqueue:
		phase = podgroup.PhasePending
	}
	name := podgroup.Name(job)
	conds := setCondition(state.Conditions, podgroup.Condition{Type: podgroup.ConditionUnschedulable, Status: corev1.ConditionTrue,
		LastTransitionTime: metav1.NewTime(s.now), Reason: "NotEnoughResources", Message: message})
	s.cluster.SetPodGroupConditions(s.ns, name, conds)
	ev := record.Event{Type: record.Warning, Reason: ReasonUnschedulable, Message: message}
	s.ext.podGroupEvents = append(s.ext.podGroupEvents, ev)
	s.note("scheduler: %s on PodGroup %s; condition Unschedulable True; phase %s -> %s", describeEvent(ev), name, phaseOrNone(state.Phase), phase)
	s.cluster.SetPodGroupPhase(s.ns, name, phase)
	s.ext.set = &podgroup.Status{Phase: phase, Conditions: conds}
	return s.settle()
}

// setCondition replaces the condition of c's type, or appends c.
func setCondition(conds []podgroup.Condition, c podgroup.Condition) []podgroup.Condition {
	out := podgroup.CopyConditions(conds)
	for i := range out {
		if out[i].Type == c.Type {
			out[i] = c
			return out
		}
	}
	return append(out, c)
}

func phaseOrNone(p podgroup.Phase) string {
	if p == "" {
		return "(no phase)"
	}
	return string(p)
}
