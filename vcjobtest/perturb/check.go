package perturb

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
)

// Check names what a run must keep.
type Check string

// The checks.
const (
	// Converges: after the scenario and the drain the job has the phase
	// and retry count of the unperturbed run.
	Converges Check = "converges"
	// UniqueIndex: never two live pods (not being deleted, not finished)
	// of one job version with the same task and index.
	UniqueIndex Check = "unique-index"
	// NoCreateAfterEnd: no pod is created for a job in a terminal phase
	// (Completed, Failed, Terminated, Aborted).
	NoCreateAfterEnd Check = "no-create-after-end"
	// Monotonic: a status write never lowers status.version or the retry
	// count of the same job (UID).
	Monotonic Check = "monotonic"
	// Stable: after the drain and a relist, processing the job raises no
	// further change.
	Stable Check = "stable"
	// Live: a stable job is not left waiting for what will not come
	// (Stuck).
	Live Check = "live"
)

// Checks lists every check, in the order reports list them.
func Checks() []Check {
	return []Check{Converges, UniqueIndex, NoCreateAfterEnd, Monotonic, Stable, Live}
}

// Violation is one check a run broke, with what broke it.
type Violation struct {
	Check  Check  `json:"check"`
	Detail string `json:"detail"`
}

func (v Violation) String() string { return string(v.Check) + ": " + v.Detail }

// Violations are the checks the run broke, each once (its first detail),
// in the order of Checks.
func (r *Run) Violations() []Violation {
	out := append([]Violation(nil), r.violations...)
	order := map[Check]int{}
	for i, c := range Checks() {
		order[c] = i
	}
	sort.SliceStable(out, func(i, j int) bool { return order[out[i].Check] < order[out[j].Check] })
	return out
}

// Violate records a broken check (drivers record Stable and Live, and
// Compare records Converges); a check broken again keeps its first detail.
func (r *Run) Violate(c Check, format string, args ...any) {
	if r.seen[c] {
		return
	}
	r.seen[c] = true
	r.violations = append(r.violations, Violation{Check: c, Detail: fmt.Sprintf(format, args...)})
}

// Note records what the driver could not play as written (a script line
// the perturbed world had no pod for): it explains a run's end, it
// breaks no check.
func (r *Run) Note(format string, args ...any) {
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
}

// Notes are the driver's notes, in order.
func (r *Run) Notes() []string { return append([]string(nil), r.notes...) }

// Terminal reports whether a job in phase p is done with its pods:
// finished, or Aborted (which only a ResumeJob leaves).
func Terminal(p vcjob.JobPhase) bool { return p.IsFinished() || p == vcjob.Aborted }

func (r *Run) checkCreate(pod *corev1.Pod) {
	job := r.world.StoredJob(pod.Namespace, pod.Annotations[vcjob.JobNameKey])
	if job != nil && Terminal(job.Status.State.Phase) {
		r.Violate(NoCreateAfterEnd, "%s created while the job is %s", pod.Name, job.Status.State.Phase)
	}
}

func (r *Run) checkIndexes(namespace, job string) {
	if err := DuplicateIndex(r.world.Pods(namespace, job)); err != "" {
		r.Violate(UniqueIndex, "%s", err)
	}
}

// DuplicateIndex names two live pods of one job version with the same
// task and index, or is "".
func DuplicateIndex(pods []*corev1.Pod) string {
	live := map[string]string{}
	for _, p := range pods {
		if p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		k := strings.Join([]string{p.Annotations[vcjob.JobVersionKey], p.Annotations[vcjob.TaskSpecKey], p.Annotations[vcjob.TaskIndexKey]}, "/")
		if other, ok := live[k]; ok {
			return fmt.Sprintf("%s and %s are both live with version/task/index %s", other, p.Name, k)
		}
		live[k] = p.Name
	}
	return ""
}

func (r *Run) checkStatus(stored, job *vcjob.Job, status *vcjob.JobStatus) {
	if stored == nil || stored.UID != job.UID {
		return
	}
	old := stored.Status
	if status.Version < old.Version {
		r.Violate(Monotonic, "status.version %d written over %d", status.Version, old.Version)
	}
	if status.RetryCount < old.RetryCount {
		r.Violate(Monotonic, "retryCount %d written over %d", status.RetryCount, old.RetryCount)
	}
}

// Final is a job's end state as the checks compare it.
type Final struct {
	// Gone: the job no longer exists (deleted, collected).
	Gone       bool           `json:"gone,omitempty"`
	Phase      vcjob.JobPhase `json:"phase"`
	RetryCount int32          `json:"retryCount"`
}

func (f Final) String() string {
	if f.Gone {
		return "gone"
	}
	return fmt.Sprintf("%s retryCount %d", orNone(f.Phase), f.RetryCount)
}

func orNone(p vcjob.JobPhase) string {
	if p == "" {
		return "(none)"
	}
	return string(p)
}

// FinalOf is the job's end state in w.
func FinalOf(w World, namespace, name string) Final {
	job := w.StoredJob(namespace, name)
	if job == nil {
		return Final{Gone: true}
	}
	return Final{Phase: job.Status.State.Phase, RetryCount: job.Status.RetryCount}
}

// Compare records Converges when the run ended otherwise than the
// unperturbed run of its scenario.
func (r *Run) Compare(got, base Final) {
	if got != base {
		r.Violate(Converges, "ends %s, unperturbed %s", got, base)
	}
}

// Fingerprint is what processing may change of a job in w: its status
// (but its times), its pods (phase, terminating, out of sync, version)
// and its PodGroup. Drivers compare it around a step for Stable.
func Fingerprint(w World, namespace, name string) string {
	job := w.StoredJob(namespace, name)
	if job == nil {
		return "gone"
	}
	st := job.Status
	var b strings.Builder
	// Not status.version: Volcano's kill of a finished job bumps it on
	// every request (leave-finished-jobs corrects that), and the bump
	// raises no request, so a job that only bumps it is settled.
	fmt.Fprintf(&b, "%s %d p%d r%d s%d f%d t%d u%d", st.State.Phase, st.RetryCount,
		st.Pending, st.Running, st.Succeeded, st.Failed, st.Terminating, st.Unknown)
	for _, p := range w.Pods(namespace, name) {
		fmt.Fprintf(&b, " %s=%s/%v/%s/%s", p.Name, p.Status.Phase, p.DeletionTimestamp != nil,
			p.Annotations[vcjob.PodOutOfSyncKey], p.Annotations[vcjob.JobVersionKey])
	}
	pg := w.PodGroup(job)
	fmt.Fprintf(&b, " pg=%v/%s", pg.Exists, pg.Phase)
	return b.String()
}

// Stuck says why a settled job waits for what will not come, or is "":
// Aborting, Completing or Terminating (which wait for pods to go) when
// none is going, or Pending or Restarting with no pod at all though its
// PodGroup is admitted (Inqueue or Running), so that a sync would go on.
// A Restarting or Pending job whose PodGroup the scheduler has not
// admitted waits for the scheduler, which is not stuck.
func Stuck(w World, namespace, name string) string {
	job := w.StoredJob(namespace, name)
	if job == nil || job.DeletionTimestamp != nil {
		return ""
	}
	pods := w.Pods(namespace, name)
	terminating := 0
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			terminating++
		}
	}
	phase := job.Status.State.Phase
	switch phase {
	case vcjob.Aborting, vcjob.Completing, vcjob.Terminating:
		if terminating == 0 {
			return fmt.Sprintf("%s with no pod terminating", phase)
		}
	case vcjob.Pending, vcjob.Restarting:
		pg := w.PodGroup(job)
		if len(pods) == 0 && pg.Exists && (pg.Phase == "Inqueue" || pg.Phase == "Running") && totalReplicas(job) > 0 {
			return fmt.Sprintf("%s with PodGroup %s and no pod", phase, pg.Phase)
		}
	}
	return ""
}

func totalReplicas(job *vcjob.Job) int32 {
	var n int32
	for _, t := range job.Spec.Tasks {
		n += t.Replicas
	}
	return n
}
