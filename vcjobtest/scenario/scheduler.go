package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/validation"
)

// The script commands of this file play what Volcano's scheduler does
// when it cannot place a gang, and a user updating or deleting the job; Volcano's own
// end-to-end suites need both (a task that stays unschedulable, a running
// gang that loses a member it cannot replace, a job deleted in any phase).

// extState is what these commands keep between lines.
type extState struct {
	// deletedAt is the script line that deleted the job (0: not deleted).
	deletedAt int
	// podGroupEvents are the Events the simulated scheduler recorded on
	// the job's PodGroup, in order.
	podGroupEvents []record.Event
	// set is the PodGroup status the last podgroup or unschedulable
	// command wrote, before the job controller reacted.
	set *podgroup.Status
	// manifest is the job as loaded, for "create".
	manifest *vcjob.Job
}

// ReasonUnschedulable is the reason of the Event the scheduler records on
// a PodGroup it cannot place, and the type of the condition it sets.
const ReasonUnschedulable = string(podgroup.ConditionUnschedulable)

// parseExtra parses the verbs of this file; ok is false for any other.
func parseExtra(c *Command, args []string) (ok bool, err error) {
	switch c.verb {
	case "unschedulable":
		// The rest of the line, if any, is the scheduler's reason.
		c.word = strings.Join(args, " ")
		return true, nil
	case "delete", "release":
		// delete: the pods listed are held by a finalizer; release: the
		// pods whose finalizer goes.
		if c.verb == "release" {
			if err := wantArgs(c.verb, args, 1, 1<<10); err != nil {
				return true, err
			}
		}
		c.word = strings.Join(args, " ")
		return true, nil
	case "create":
		return true, wantArgs(c.verb, args, 0, 0)
	case "update":
		if err := wantArgs(c.verb, args, 1, 1<<10); err != nil {
			return true, err
		}
		for _, a := range args {
			if _, _, _, err := parseUpdate(a); err != nil {
				return true, err
			}
		}
		c.word = strings.Join(args, " ")
		return true, nil
	}
	return false, nil
}

// parseUpdate reads one FIELD=N of an update: minAvailable, or
// TASK.replicas or TASK.minAvailable.
func parseUpdate(arg string) (task, field string, n int32, err error) {
	k, v, ok := strings.Cut(arg, "=")
	num, perr := strconv.ParseInt(v, 10, 32)
	if !ok || perr != nil {
		return "", "", 0, fmt.Errorf("update: want FIELD=N, got %q; usage:\n%s", arg, usageOf("update"))
	}
	task, field, dotted := strings.Cut(k, ".")
	if !dotted {
		task, field = "", k
	}
	if (dotted && field != "replicas" && field != "minAvailable") || (!dotted && field != "minAvailable") {
		return "", "", 0, fmt.Errorf("update: unknown field %q (minAvailable, TASK.replicas, TASK.minAvailable)", k)
	}
	return task, field, int32(num), nil
}

// update is the user changing the job's spec, as Volcano's test does:
// the spec replaced by a copy with the fields changed, which the API
// server's update validation must accept.
func (s *sim) update(c Command) error {
	job := s.cluster.Job(s.ns, s.job)
	old := job.DeepCopy()
	for _, a := range strings.Fields(c.word) {
		task, field, n, _ := parseUpdate(a)
		if task == "" {
			job.Spec.MinAvailable = n
			continue
		}
		t := job.Task(task)
		if t == nil {
			return fmt.Errorf("line %d: %q: no task %q", c.Line, c.Text, task)
		}
		if field == "replicas" {
			t.Replicas = n
		} else {
			t.MinAvailable = &n
		}
	}
	if errs := validation.ValidateJobUpdate(job, old); len(errs) > 0 {
		return fmt.Errorf("line %d: %q: the API server would refuse the update: %w", c.Line, c.Text, errs.ToAggregate())
	}
	s.cluster.PutJob(job)
	return s.settle()
}

// runExtra runs the commands of this file and refuses every command but
// advance once the job is deleted; done is false for the others, which
// run as before (a podgroup command first clears what unschedulable set,
// once the gang is placed).
func (s *sim) runExtra(c Command) (done bool, err error) {
	if s.ext.deletedAt > 0 && c.verb != "advance" && c.verb != "create" && c.verb != "release" && c.verb != "controller" {
		return true, fmt.Errorf("line %d: %q: the job is gone: line %d deleted it (\"create\" creates it again)", c.Line, c.Text, s.ext.deletedAt)
	}
	switch c.verb {
	case "unschedulable":
		return true, s.unschedulable(c)
	case "delete":
		return true, s.deleteJob(c)
	case "release":
		return true, s.release(c)
	case "create":
		return true, s.recreate(c)
	case "update":
		return true, s.update(c)
	case "podgroup":
		s.placed(podgroup.Phase(c.word))
		if job := s.cluster.Job(s.ns, s.job); job != nil {
			s.ext.set = &podgroup.Status{Phase: podgroup.Phase(c.word), Conditions: s.cluster.PodGroup(job).Conditions}
		}
	}
	return false, nil
}

// unschedulable plays a scheduling cycle that cannot place the job's
// gang, as Volcano's scheduler closes its session: the PodGroup gets a
// true Unschedulable condition, then its phase from the pods (Unknown
// when some pod runs, as a running gang that lost a member it cannot
// replace; Running when minMember pods are bound or have succeeded;
// otherwise Pending, unless the PodGroup is Inqueue, which it stays), and
// the scheduler records a Warning Unschedulable Event on the PodGroup.
// The job's Pending pods stay unbound. The condition comes first, so the
// sync the phase change causes reads it.
func (s *sim) unschedulable(c Command) error {
	job := s.cluster.Job(s.ns, s.job)
	state := s.cluster.PodGroup(job)
	if !state.Exists {
		return fmt.Errorf("line %d: %q: the job has no PodGroup now (a whole-job kill deletes it; the next sync creates it again)", c.Line, c.Text)
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

// HoldFinalizer is the finalizer "delete POD..." puts on the pods it
// holds.
const HoldFinalizer = "vcjob.dev/simulator-hold"

// deleteJob is the user deleting the job (kubectl delete vcjob, no
// propagation option). Kubernetes' garbage collector removes what the
// job owns, its pods and PodGroup, which the simulator plays at once,
// the pods without a grace period, but for the pods the command lists:
// a finalizer (HoldFinalizer, put on first) holds them, being deleted,
// until "release". The job controller's handlers see it all, and its
// cache forgets the job; requests still queued for it find no job, its
// delayed actions go, and nothing happens to it afterwards until
// "create". Plugin objects and claims are left, as in RemoveJob; a real
// garbage collector deletes them too.
func (s *sim) deleteJob(c Command) error {
	for _, name := range strings.Fields(c.word) {
		p := s.podNamed(name)
		if p == nil {
			return fmt.Errorf("line %d: %q: no pod %s to hold", c.Line, c.Text, name)
		}
		p.Finalizers = append(p.Finalizers, HoldFinalizer)
		s.cluster.PutPod(p)
	}
	if err := s.settle(); err != nil {
		return err
	}
	removed := s.cluster.RemoveJob(s.ns, s.job)
	changes := s.cluster.Drain()
	s.out.Changes(changes, s.now)
	for _, ch := range changes {
		if ch.OldJob != nil && ch.NewJob == nil {
			_ = s.cache.OnJobDelete(removed)
			continue
		}
		if req, ok := ch.Notify(s.cache); ok {
			s.queue = append(s.queue, req)
		}
	}
	s.step.Delays.ForgetJob(s.ns, s.job)
	s.retries = nil
	s.ext.deletedAt = c.Line
	s.note("the job is deleted; the garbage collector removes its pods and PodGroup, the job controller forgets it")
	return s.settle()
}

// podNamed is the pod of that name or short name (TASK-INDEX), or nil.
func (s *sim) podNamed(name string) *corev1.Pod {
	if p := s.cluster.Pod(s.ns, name); p != nil {
		return p
	}
	return s.cluster.Pod(s.ns, s.job+"-"+name)
}

// release takes HoldFinalizer off the pods listed; one being deleted is
// then gone, as an API server removes a pod whose last finalizer goes.
func (s *sim) release(c Command) error {
	for _, name := range strings.Fields(c.word) {
		p := s.podNamed(name)
		if p == nil {
			return fmt.Errorf("line %d: %q: no pod %s", c.Line, c.Text, name)
		}
		p.Finalizers = slices.DeleteFunc(p.Finalizers, func(f string) bool { return f == HoldFinalizer })
		if p.DeletionTimestamp != nil && len(p.Finalizers) == 0 {
			s.cluster.RemovePod(p.Namespace, p.Name)
			continue
		}
		s.cluster.PutPod(p)
	}
	return s.settle()
}

// recreate is the user creating the deleted job again from its manifest:
// the same name and spec, a new UID.
func (s *sim) recreate(c Command) error {
	if s.ext.deletedAt == 0 {
		return fmt.Errorf("line %d: %q: the job exists: \"delete\" it first", c.Line, c.Text)
	}
	job := s.cluster.PutJob(s.ext.manifest)
	s.ext.deletedAt = 0
	s.note("the job is created again under its name, with UID %s", job.UID)
	return s.settle()
}

// NodeFor is the node the simulated scheduler binds a pod to: the one
// its required node affinity names by metadata.name or by the
// kubernetes.io/hostname label (the first value of the first term that
// names one), else node-0.
func NodeFor(p *corev1.Pod) string {
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, f := range term.MatchFields {
				if f.Key == "metadata.name" && f.Operator == corev1.NodeSelectorOpIn && len(f.Values) > 0 {
					return f.Values[0]
				}
			}
			for _, e := range term.MatchExpressions {
				if e.Key == corev1.LabelHostname && e.Operator == corev1.NodeSelectorOpIn && len(e.Values) > 0 {
					return e.Values[0]
				}
			}
		}
	}
	return "node-0"
}

func phaseOrNone(p podgroup.Phase) string {
	if p == "" {
		return "(no phase)"
	}
	return string(p)
}

// userDeletedSummary is the summary once the job was deleted.
func (s *sim) userDeletedSummary() string {
	return fmt.Sprintf("job deleted at line %d: the garbage collector removed its pods and PodGroup; delayed %d", s.ext.deletedAt, s.step.Delays.Len())
}
