package statemachine

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

// counts are the pod counts a call writes into the status.
type counts struct {
	pending, running, succeeded, failed, unknown, terminating int32
	tasks                                                     map[string]vcjob.TaskState
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
	if c.tasks == nil {
		c.tasks = map[string]vcjob.TaskState{}
	}
	ts, ok := c.tasks[task]
	if !ok {
		ts = vcjob.TaskState{Phase: map[corev1.PodPhase]int32{}}
		c.tasks[task] = ts
	}
	ts.Phase[phase]++
}

// apply writes the counts into status, replacing the old ones.
func (c *counts) apply(s *vcjob.JobStatus) {
	s.Pending, s.Running, s.Succeeded, s.Failed, s.Unknown, s.Terminating =
		c.pending, c.running, c.succeeded, c.failed, c.unknown, c.terminating
	s.TaskStatusCount = c.tasks
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
// nil and empty maps and lists are the same.
func statusEqual(a, b *vcjob.JobStatus) bool {
	return equality.Semantic.DeepEqual(a, b)
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
