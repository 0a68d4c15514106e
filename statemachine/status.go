package statemachine

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/jobinfo"
)

// counts are the pod counts a call writes into the status.
type counts struct {
	pending, running, succeeded, failed, unknown, terminating int32
	// tasks holds the per-task counts, each task once, for the tasks that
	// have a pod counted; it starts in buf, so a job of a few tasks counts
	// without allocating.
	tasks []taskCount
	buf   [2]taskCount
}

type taskCount struct {
	name   string
	phases jobinfo.PhaseCounts
}

// add counts pod by its phase, overall and under its task.
func (c *counts) add(pod *corev1.Pod) {
	c.addPhase(pod.Annotations[vcjob.TaskSpecKey], pod.Status.Phase)
}

func (c *counts) addPhase(task string, phase corev1.PodPhase) {
	switch phase {
	case corev1.PodPending:
		c.pending++
	case corev1.PodRunning:
		c.running++
	case corev1.PodSucceeded:
		c.succeeded++
	case corev1.PodFailed:
		c.failed++
	default:
		c.unknown++
	}
	c.task(task).Add(phase, 1)
}

// addCounts counts a task's pods already counted by phase.
func (c *counts) addCounts(task string, pc *jobinfo.PhaseCounts) {
	if pc.Total() == 0 {
		return
	}
	c.pending += pc.Pending
	c.running += pc.Running
	c.succeeded += pc.Succeeded
	c.failed += pc.Failed
	c.unknown += pc.Unknown
	t := c.task(task)
	t.Pending += pc.Pending
	t.Running += pc.Running
	t.Succeeded += pc.Succeeded
	t.Failed += pc.Failed
	t.Unknown += pc.Unknown
	for phase, n := range pc.Other {
		c.unknown += n
		t.Add(phase, n)
	}
}

func (c *counts) task(name string) *jobinfo.PhaseCounts {
	for i := range c.tasks {
		if c.tasks[i].name == name {
			return &c.tasks[i].phases
		}
	}
	if c.tasks == nil {
		c.tasks = c.buf[:0]
	}
	c.tasks = append(c.tasks, taskCount{name: name})
	return &c.tasks[len(c.tasks)-1].phases
}

// apply writes the counts into status, replacing the old ones. The task
// counts map of was, the stored status, is kept when it already holds
// exactly these counts, so an unchanged status costs no new map.
func (c *counts) apply(s *vcjob.JobStatus, was map[string]vcjob.TaskState) (kept bool) {
	s.Pending, s.Running, s.Succeeded, s.Failed, s.Unknown, s.Terminating =
		c.pending, c.running, c.succeeded, c.failed, c.unknown, c.terminating
	if c.sameTasks(was) {
		s.TaskStatusCount = was
		return true
	}
	// Volcano builds the counts in a fresh map, empty when no pod is
	// counted, and compares statuses with reflect.DeepEqual: a stored
	// status without task counts (nil, as the API server hands back an
	// empty map) differs from one with none, and is written again.
	s.TaskStatusCount = make(map[string]vcjob.TaskState, len(c.tasks))
	for _, t := range c.tasks {
		m := map[corev1.PodPhase]int32{}
		for phase, n := range t.phases.ByPhase() {
			m[phase] = n
		}
		s.TaskStatusCount[t.name] = vcjob.TaskState{Phase: m}
	}
	return false
}

// sameTasks reports whether m holds exactly the task counts of c: the same
// tasks, each with the same phases and numbers. It looks entries up rather
// than ranging over maps, which costs more for the few entries there are.
func (c *counts) sameTasks(m map[string]vcjob.TaskState) bool {
	if len(c.tasks) == 0 {
		return m != nil && len(m) == 0
	}
	if len(m) != len(c.tasks) {
		return false
	}
	for i := range c.tasks {
		t := &c.tasks[i]
		ts, ok := m[t.name]
		if !ok || len(ts.Phase) != nonZero(&t.phases) {
			return false
		}
		for _, phase := range [...]corev1.PodPhase{corev1.PodPending, corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed, corev1.PodUnknown} {
			if n := t.phases.Of(phase); n != 0 {
				if have, ok := ts.Phase[phase]; !ok || have != n {
					return false
				}
			}
		}
		if len(t.phases.Other) > 0 {
			for phase, n := range t.phases.Other {
				if have, ok := ts.Phase[phase]; !ok || have != n {
					return false
				}
			}
		}
	}
	return true
}

func nonZero(pc *jobinfo.PhaseCounts) int {
	n := len(pc.Other)
	for _, v := range [...]int32{pc.Pending, pc.Running, pc.Succeeded, pc.Failed, pc.Unknown} {
		if v != 0 {
			n++
		}
	}
	return n
}

// AppendCondition records an entry into phase at now. An older condition
// of the same phase is removed first, so a re-entered phase moves to the
// end and the list never holds a phase twice.
func AppendCondition(s *vcjob.JobStatus, phase vcjob.JobPhase, now metav1.Time) {
	kept := s.Conditions[:0:0]
	for _, c := range s.Conditions {
		if c.Status != phase {
			kept = append(kept, c)
		}
	}
	t := now
	s.Conditions = append(kept, vcjob.JobCondition{Status: phase, LastTransitionTime: &t})
}

// enterPhase stamps a phase change: transition time and a condition.
func enterPhase(s *vcjob.JobStatus, now metav1.Time) {
	s.State.LastTransitionTime = now
	AppendCondition(s, s.State.Phase, now)
}

// statusEqual compares two statuses as the API server would see a write:
// nil and empty maps and lists are the same, times compare as instants.
// It is equality.Semantic.DeepEqual for a JobStatus, written out because
// it runs on every sync.
func statusEqual(a, b *vcjob.JobStatus) bool { return statusEqualTasks(a, b, false) }

// statusEqualTasks is statusEqual told that the task counts are one map
// (tasksSame), which it then need not compare.
func statusEqualTasks(a, b *vcjob.JobStatus, tasksSame bool) bool {
	if a.State.Phase != b.State.Phase || a.State.Reason != b.State.Reason || a.State.Message != b.State.Message ||
		!a.State.LastTransitionTime.Equal(&b.State.LastTransitionTime) ||
		a.MinAvailable != b.MinAvailable || a.Pending != b.Pending || a.Running != b.Running ||
		a.Succeeded != b.Succeeded || a.Failed != b.Failed || a.Terminating != b.Terminating ||
		a.Unknown != b.Unknown || a.Version != b.Version || a.RetryCount != b.RetryCount {
		return false
	}
	if (a.RunningDuration == nil) != (b.RunningDuration == nil) ||
		a.RunningDuration != nil && a.RunningDuration.Duration != b.RunningDuration.Duration {
		return false
	}
	if (len(a.ControlledResources) > 0 || len(b.ControlledResources) > 0) && !maps.Equal(a.ControlledResources, b.ControlledResources) ||
		len(a.Conditions) != len(b.Conditions) ||
		len(a.TaskStatusCount) != len(b.TaskStatusCount) || (a.TaskStatusCount == nil) != (b.TaskStatusCount == nil) {
		return false
	}
	if tasksSame {
		return conditionsEqual(a.Conditions, b.Conditions)
	}
	if !conditionsEqual(a.Conditions, b.Conditions) {
		return false
	}
	for task, ta := range a.TaskStatusCount {
		tb, ok := b.TaskStatusCount[task]
		if !ok || !maps.Equal(ta.Phase, tb.Phase) {
			return false
		}
	}
	return true
}

func conditionsEqual(a, b []vcjob.JobCondition) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true // one list: a status built from the stored one shares it
	}
	for i := range a {
		ca, cb := &a[i], &b[i]
		if ca.Status != cb.Status || (ca.LastTransitionTime == nil) != (cb.LastTransitionTime == nil) ||
			ca.LastTransitionTime != nil && !ca.LastTransitionTime.Equal(cb.LastTransitionTime) {
			return false
		}
	}
	return true
}

// Outcome is what a call ends with once its pod operations are done: the
// status to write (if Write), whether the phase changed, whether to delete
// the job's PodGroup, and the error the call returns. With an error nothing
// is written and the PodGroup stays.
type Outcome struct {
	Status         vcjob.JobStatus `json:"status"`
	Write          bool            `json:"write"`
	PhaseChanged   bool            `json:"phaseChanged"`
	DeletePodGroup bool            `json:"deletePodGroup"`
	Err            error           `json:"-"`
}
