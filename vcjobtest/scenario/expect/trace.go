package expect

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/record"
)

// Trace is one run of a job: its writes and a snapshot after each line.
type Trace struct {
	// Job is the job's name.
	Job string
	// Writes are the job object as each write of it left it (creation,
	// status writes, spec updates), in order, each with the script line it
	// happened during (0: the creation and what followed it).
	Writes []Write
	// Snapshots are the cluster after each script line, by line (0: after
	// the job's creation settled).
	Snapshots map[int]*Snapshot
	// Last is the last script line run.
	Last int
}

// Write is the job object as one write left it.
type Write struct {
	Line int
	Job  *vcjob.Job
}

// Snapshot is what a test can read of the cluster at one point.
type Snapshot struct {
	// Job is the job as stored; nil when it is gone.
	Job *vcjob.Job
	// Pods are the pods the job controls, terminating ones included,
	// sorted by name.
	Pods []*corev1.Pod
	// PodGroup is the job's PodGroup; nil when there is none.
	PodGroup *podgroup.PodGroup
	// Objects are the plugin objects and claims by "Kind/name".
	Objects map[string]runtime.Object
	// JobEvents and PodGroupEvents are the Kubernetes Events recorded on
	// the job and on its PodGroup so far.
	JobEvents, PodGroupEvents []record.Event
}

// At is the snapshot after line (End: the last).
func (t *Trace) At(line int) (*Snapshot, error) {
	if line == End {
		line = t.Last
	}
	s := t.Snapshots[line]
	if s == nil {
		return nil, fmt.Errorf("no snapshot after script line %d (the script's lines are %s)", line, t.lines())
	}
	return s, nil
}

func (t *Trace) lines() string {
	var ls []int
	for l := range t.Snapshots {
		ls = append(ls, l)
	}
	sort.Ints(ls)
	return strings.Trim(fmt.Sprint(ls), "[]")
}

// Check makes every expectation on the trace and returns what failed,
// one error per expectation, naming it.
func Check(exps []Expectation, t *Trace) []error {
	var errs []error
	for _, e := range exps {
		if err := e.Check(t); err != nil {
			errs = append(errs, fmt.Errorf("expect line %d %q: %w", e.Line, e.Text, err))
		}
	}
	return errs
}

// Check makes one expectation on the trace.
func (e Expectation) Check(t *Trace) error {
	switch e.verb {
	case "phases":
		return checkPhases(t, e.After, e.from, e.args)
	case "states":
		return checkStates(t, e.After, e.args)
	case "recreated":
		return checkRecreated(t, e.After, e.from, e.args)
	case "consistently":
		return checkConsistently(t, e.After, e.from, e.args)
	}
	s, err := t.At(e.After)
	if err != nil {
		return err
	}
	return e.checkSnapshot(t, s)
}

// writesUntil are the writes made by the end of script line after.
func (t *Trace) writesUntil(after int) []Write {
	if after == End {
		return t.Writes
	}
	var out []Write
	for _, w := range t.Writes {
		if w.Line <= after {
			out = append(out, w)
		}
	}
	return out
}

// checkPhases is WaitJobPhases opened just before script line from: the
// last write before it (a watch's initial list), then every write since,
// walked as a subsequence of the phases, each phase counting only with
// its check: Pending with no pod counted or total replicas (of the job
// as created) less terminating at least status.minAvailable; Running
// with running at least spec.minAvailable; the *ing phases with
// terminating > 0; the finished ones with nothing pending, running or
// terminating.
func checkPhases(t *Trace, after, from int, phases []string) error {
	writes := t.writesUntil(after)
	if len(writes) == 0 {
		return fmt.Errorf("no write of the job")
	}
	var total int32
	for _, task := range writes[0].Job.Spec.Tasks {
		total += task.Replicas
	}
	start := 0
	for i, w := range writes {
		if w.Line < from {
			start = i
		}
	}
	seen := writes[start:]
	i := 0
	var got []string
	for _, w := range seen {
		st := w.Job.Status
		got = append(got, describe(w.Job))
		if i == len(phases) || string(st.State.Phase) != phases[i] {
			continue
		}
		if phaseCounted(vcjob.JobPhase(phases[i]), w.Job, total) {
			i++
		}
	}
	if i < len(phases) {
		return fmt.Errorf("waited for %s: only %s came, in the writes %s", phases[i], strings.Join(phases[:i], " "), strings.Join(got, ", "))
	}
	return nil
}

func phaseCounted(phase vcjob.JobPhase, job *vcjob.Job, total int32) bool {
	st := job.Status
	switch phase {
	case vcjob.Pending:
		return st.Pending+st.Succeeded+st.Failed+st.Running == 0 || total-st.Terminating >= st.MinAvailable
	case vcjob.Running:
		return st.Running >= job.Spec.MinAvailable
	case vcjob.Restarting, vcjob.Aborting, vcjob.Terminating, vcjob.Completing:
		return st.Terminating > 0
	default:
		return st.Pending == 0 && st.Running == 0 && st.Terminating == 0
	}
}

func describe(j *vcjob.Job) string {
	st := j.Status
	p := string(st.State.Phase)
	if p == "" {
		p = "(none)"
	}
	return fmt.Sprintf("%s[p%d r%d s%d f%d t%d]", p, st.Pending, st.Running, st.Succeeded, st.Failed, st.Terminating)
}

// checkStates is WaitJobStates: each phase written in order (a poll may
// miss a short one; a settled run shows every one), the last being the
// phase at the point.
func checkStates(t *Trace, after int, phases []string) error {
	writes := t.writesUntil(after)
	i := 0
	var got []string
	for _, w := range writes {
		p := string(w.Job.Status.State.Phase)
		if len(got) == 0 || got[len(got)-1] != p {
			got = append(got, p)
		}
		if i < len(phases) && p == phases[i] {
			i++
		}
	}
	if i < len(phases) {
		return fmt.Errorf("waited for %s: phases written %s", phases[i], strings.Join(got, " "))
	}
	if s, err := t.At(after); err != nil {
		return err
	} else if s.Job == nil || string(s.Job.Status.State.Phase) != phases[len(phases)-1] {
		return fmt.Errorf("the phase is %s, not %s", phaseOf(s.Job), phases[len(phases)-1])
	}
	return nil
}

func phaseOf(j *vcjob.Job) string {
	if j == nil {
		return "(job gone)"
	}
	if j.Status.State.Phase == "" {
		return "(none)"
	}
	return string(j.Status.State.Phase)
}

// checkRecreated compares the pods after the point with those before
// script line from.
func checkRecreated(t *Trace, after, from int, names []string) error {
	before, err := t.At(from - 1)
	if err != nil {
		return err
	}
	now, err := t.At(after)
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, n := range names {
		want[fullName(t.Job, n)] = true
	}
	var problems []string
	for _, old := range before.Pods {
		p := findPod(now, old.Name)
		switch {
		case p == nil:
			problems = append(problems, old.Name+" is gone")
		case p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning:
			problems = append(problems, fmt.Sprintf("%s is %s", p.Name, podState(p)))
		case (p.UID != old.UID) != want[old.Name]:
			problems = append(problems, fmt.Sprintf("%s new %v, want %v", p.Name, p.UID != old.UID, want[old.Name]))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

func fullName(job, name string) string {
	if strings.HasPrefix(name, job+"-") {
		return name
	}
	return job + "-" + name
}

func findPod(s *Snapshot, name string) *corev1.Pod {
	for _, p := range s.Pods {
		if p.Name == name {
			return p
		}
	}
	return nil
}

func podState(p *corev1.Pod) string {
	s := string(p.Status.Phase)
	if p.DeletionTimestamp != nil {
		s += ",terminating"
	}
	return s
}

func describePods(s *Snapshot) string {
	var out []string
	for _, p := range s.Pods {
		out = append(out, p.Name+"="+podState(p))
	}
	return "[" + strings.Join(out, " ") + "]"
}

// countPods counts the job's pods in any of phases.
func countPods(s *Snapshot, phases ...corev1.PodPhase) int {
	n := 0
	for _, p := range s.Pods {
		if slices.Contains(phases, p.Status.Phase) {
			n++
		}
	}
	return n
}

func atoi(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("bad number %q", s)
	}
	return n, nil
}

// checkSnapshot makes the checks that read one snapshot.
func (e Expectation) checkSnapshot(t *Trace, s *Snapshot) error {
	a := e.args
	switch e.verb {
	case "gone":
		if s.Job != nil {
			return fmt.Errorf("the job exists (%s)", describe(s.Job))
		}
		return nil
	case "cleaned-up":
		switch {
		case s.Job != nil:
			return fmt.Errorf("the job exists (%s)", describe(s.Job))
		case s.PodGroup != nil:
			return fmt.Errorf("PodGroup %s exists", s.PodGroup.Name)
		case len(s.Pods) > 0:
			return fmt.Errorf("pods %s", describePods(s))
		}
		return nil
	case "status":
		return checkStatus(s, a[0], a[1])
	case "pod":
		return checkPod(s, fullName(t.Job, a[0]), a[1])
	case "pods", "owned-pods":
		n, err := atoi(a[0])
		if err != nil {
			return err
		}
		got := len(s.Pods)
		if e.verb == "owned-pods" {
			if got, err = ownedPods(s); err != nil {
				return err
			}
		}
		if got != n {
			return fmt.Errorf("%d pods %s", got, describePods(s))
		}
		return nil
	case "ready", "pending-pods", "completed":
		return checkCount(e.verb, a, s)
	case "ready-by-priority":
		return checkByPriority(a, s)
	case "event", "no-event":
		return checkEvent(e.verb == "event", a[0], strings.Join(a[1:], " "), s.JobEvents)
	case "podgroup-event":
		if s.PodGroup == nil {
			return fmt.Errorf("the job has no PodGroup")
		}
		return checkEvent(true, a[0], "", s.PodGroupEvents)
	case "podgroup":
		return checkPodGroup(s, a[0])
	case "minresources":
		return checkMinResources(s, a)
	}
	return e.checkObjects(t, s)
}

func checkStatus(s *Snapshot, field, value string) error {
	if s.Job == nil {
		return fmt.Errorf("the job is gone")
	}
	want, err := atoi(value)
	if err != nil {
		return err
	}
	st := s.Job.Status
	got, ok := map[string]int32{"retryCount": st.RetryCount, "version": st.Version, "pending": st.Pending, "running": st.Running,
		"succeeded": st.Succeeded, "failed": st.Failed, "terminating": st.Terminating, "minAvailable": st.MinAvailable}[field]
	if !ok {
		return fmt.Errorf("unknown status field %q", field)
	}
	if int(got) != want {
		return fmt.Errorf("status.%s is %d (%s)", field, got, describe(s.Job))
	}
	return nil
}

func checkPod(s *Snapshot, name, want string) error {
	p := findPod(s, name)
	switch {
	case want == "gone":
		if p != nil {
			return fmt.Errorf("%s is %s", name, podState(p))
		}
	case p == nil:
		return fmt.Errorf("%s is gone (pods %s)", name, describePods(s))
	case want == "kept":
		if p.DeletionTimestamp != nil {
			return fmt.Errorf("%s is being deleted", name)
		}
	case string(p.Status.Phase) != want:
		return fmt.Errorf("%s is %s", name, podState(p))
	}
	return nil
}

func checkCount(verb string, a []string, s *Snapshot) error {
	if s.Job == nil && len(a) == 0 {
		return fmt.Errorf("the job is gone")
	}
	n := 0
	if len(a) == 1 {
		var err error
		if n, err = atoi(a[0]); err != nil {
			return err
		}
	} else {
		n = int(s.Job.Spec.MinAvailable)
	}
	phases := map[string][]corev1.PodPhase{"ready": {corev1.PodRunning, corev1.PodSucceeded},
		"pending-pods": {corev1.PodPending}, "completed": {corev1.PodSucceeded}}[verb]
	if got := countPods(s, phases...); got < n {
		return fmt.Errorf("%d pods %v, want at least %d: %s", got, phases, n, describePods(s))
	}
	return nil
}

func checkByPriority(a []string, s *Snapshot) error {
	for _, kv := range a {
		class, v, ok := strings.Cut(kv, "=")
		n, err := atoi(v)
		if !ok || err != nil {
			return fmt.Errorf("want CLASS=N, got %q", kv)
		}
		got := 0
		for _, p := range s.Pods {
			if p.Spec.PriorityClassName == class && (p.Status.Phase == corev1.PodRunning || p.Status.Phase == corev1.PodSucceeded) {
				got++
			}
		}
		if got < n {
			return fmt.Errorf("%d ready pods of priority class %s, want at least %d", got, class, n)
		}
	}
	return nil
}

func checkEvent(want bool, reason, text string, events []record.Event) error {
	for _, ev := range events {
		if ev.Reason == reason && strings.Contains(ev.Message, text) {
			if !want {
				return fmt.Errorf("there is: %s %s %q", ev.Type, ev.Reason, ev.Message)
			}
			return nil
		}
	}
	if !want {
		return nil
	}
	var have []string
	for _, ev := range events {
		have = append(have, fmt.Sprintf("%s %q", ev.Reason, ev.Message))
	}
	return fmt.Errorf("no Event %s containing %q among [%s]", reason, text, strings.Join(have, "; "))
}

func checkPodGroup(s *Snapshot, want string) error {
	switch {
	case want == "absent":
		if s.PodGroup != nil {
			return fmt.Errorf("PodGroup %s exists (%s)", s.PodGroup.Name, s.PodGroup.Status.Phase)
		}
	case s.PodGroup == nil:
		return fmt.Errorf("the job has no PodGroup")
	case want != "present" && string(s.PodGroup.Status.Phase) != want:
		return fmt.Errorf("PodGroup phase %q", s.PodGroup.Status.Phase)
	}
	return nil
}

// checkMinResources: every key of minResources is one listed, with the
// listed value (keys listed but absent are fine, as in Volcano's test).
func checkMinResources(s *Snapshot, a []string) error {
	if s.PodGroup == nil || s.PodGroup.Spec.MinResources == nil {
		return fmt.Errorf("no PodGroup minResources")
	}
	want := map[corev1.ResourceName]resource.Quantity{}
	for _, kv := range a {
		k, v, ok := strings.Cut(kv, "=")
		q, err := resource.ParseQuantity(v)
		if !ok || err != nil {
			return fmt.Errorf("want KEY=QUANTITY, got %q", kv)
		}
		want[corev1.ResourceName(k)] = q
	}
	var problems []string
	for k, got := range *s.PodGroup.Spec.MinResources {
		w, ok := want[k]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s=%s is not expected", k, got.String()))
		case w.Value() != got.Value():
			problems = append(problems, fmt.Sprintf("%s=%s, want %s", k, got.String(), w.String()))
		}
	}
	sort.Strings(problems)
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

func ownedPods(s *Snapshot) (int, error) {
	if s.Job == nil {
		return 0, fmt.Errorf("the job is gone")
	}
	n := 0
	for _, p := range s.Pods {
		if metav1.IsControlledBy(p, s.Job) {
			n++
		}
	}
	return n, nil
}

// checkConsistently holds every condition on each write from script
// line from's to the point, and on the point's job.
func checkConsistently(t *Trace, after, from int, conds []string) error {
	s, err := t.At(after)
	if err != nil {
		return err
	}
	if s.Job == nil {
		return fmt.Errorf("the job is gone")
	}
	jobs := []*vcjob.Job{}
	for _, w := range t.writesUntil(after) {
		if w.Line >= from {
			jobs = append(jobs, w.Job)
		}
	}
	jobs = append(jobs, s.Job)
	for _, c := range conds {
		for _, j := range jobs {
			if err := holds(c, j, s.Job); err != nil {
				return fmt.Errorf("%s: %w (%s)", c, err, describe(j))
			}
		}
	}
	return nil
}

func holds(cond string, j, now *vcjob.Job) error {
	if p, ok := strings.CutPrefix(cond, "!"); ok {
		if string(j.Status.State.Phase) == p {
			return fmt.Errorf("the phase was %s", p)
		}
		return nil
	}
	if cond == "same-uid" {
		if j.UID != now.UID {
			return fmt.Errorf("UID %s, not %s", j.UID, now.UID)
		}
		return nil
	}
	k, v, ok := strings.Cut(cond, "=")
	n, err := atoi(v)
	if !ok || err != nil {
		return fmt.Errorf("unknown condition")
	}
	got, ok := map[string]int32{"version": j.Status.Version, "retryCount": j.Status.RetryCount}[k]
	if !ok {
		return fmt.Errorf("unknown condition")
	}
	if int(got) != n {
		return fmt.Errorf("%s was %d", k, got)
	}
	return nil
}
