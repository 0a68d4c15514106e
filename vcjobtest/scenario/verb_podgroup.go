package scenario

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob/podgroup"
)

// podGroupVerb is "podgroup PHASE [relisted]": the scheduler sets the
// job's PodGroup's phase; with relisted, the watch loses the change and a
// relist shows the PodGroup as new, already in PHASE.
func podGroupVerb() verb {
	return verb{
		name:    "podgroup",
		example: "podgroup Inqueue relisted",
		help: []usage{
			{"podgroup PHASE", "the scheduler sets the PodGroup's phase (Pending, Inqueue, Running, Unknown)"},
			{"podgroup PHASE relisted", "the same, but the watch loses the change: a relist shows the\n" +
				"PodGroup as new, already in PHASE (an add; see podgroup-phase-on-add)"},
		},
		parse: parsePodGroup,
		play:  playPodGroup,
	}
}

// parsePodGroup parses "podgroup PHASE [relisted]".
func parsePodGroup(c *Command, args []string) error {
	if err := wantArgs(c.verb, args, 1, 2); err != nil {
		return err
	}
	if len(args) == 2 {
		if args[1] != "relisted" {
			return fmt.Errorf("podgroup: unknown word %q after the phase (only \"relisted\"); usage:\n%s", args[1], usageOf(c.verb))
		}
		c.relisted = true
	}
	switch p := podgroup.Phase(args[0]); p {
	case podgroup.PhasePending, podgroup.PhaseInqueue, podgroup.PhaseRunning, podgroup.PhaseUnknown, podgroup.PhaseCompleted:
		c.word = args[0]
	default:
		return fmt.Errorf("unknown PodGroup phase %q (Pending, Inqueue, Running, Unknown, Completed)", args[0])
	}
	return nil
}

// playPodGroup sets the phase, first placing the gang when an
// "unschedulable" left it unplaced (placed), and keeps the status it
// gave the PodGroup for Trace (Step.PodGroup).
func playPodGroup(s *sim, c Command) error {
	phase := podgroup.Phase(c.word)
	s.placed(phase)
	if job := s.cluster.Job(s.ns, s.job); job != nil {
		s.ext.set = &podgroup.Status{Phase: phase, Conditions: s.cluster.PodGroup(job).Conditions}
	}
	job := s.cluster.Job(s.ns, s.job)
	if !s.cluster.PodGroup(job).Exists {
		return c.errorf("the job has no PodGroup now (a whole-job kill deletes it; the next sync creates it again)")
	}
	s.cluster.SetPodGroupPhase(s.ns, podgroup.Name(job), phase)
	if c.relisted {
		s.relistPodGroup(phase)
	}
	return s.settle()
}

// placed is the scheduler placing the gang after it could not: a
// PodGroup set Inqueue or Running whose Unschedulable condition is true
// gets a true Scheduled condition and the Unschedulable one turns false,
// so the job controller stops reporting it.
func (s *sim) placed(phase podgroup.Phase) {
	if phase != podgroup.PhaseInqueue && phase != podgroup.PhaseRunning {
		return
	}
	job := s.cluster.Job(s.ns, s.job)
	state := s.cluster.PodGroup(job)
	unschedulable := false
	for _, c := range state.Conditions {
		unschedulable = unschedulable || (c.Type == podgroup.ConditionUnschedulable && c.Status == corev1.ConditionTrue)
	}
	if !unschedulable {
		return
	}
	now := metav1.NewTime(s.now)
	conds := setCondition(state.Conditions, podgroup.Condition{Type: podgroup.ConditionUnschedulable, Status: corev1.ConditionFalse, LastTransitionTime: now})
	conds = setCondition(conds, podgroup.Condition{Type: podgroup.ConditionScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now})
	s.cluster.SetPodGroupConditions(s.ns, podgroup.Name(job), conds)
	s.note("scheduler: the gang is placed; condition Scheduled True, Unschedulable False")
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
