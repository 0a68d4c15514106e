package rapidgen

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/worker"
)

// InvariantError is one broken invariant: its name and what broke it.
type InvariantError struct {
	Invariant string
	Detail    string
}

func (e *InvariantError) Error() string { return e.Invariant + ": " + e.Detail }

type violations []error

func (v *violations) add(invariant, format string, args ...any) {
	*v = append(*v, &InvariantError{Invariant: invariant, Detail: fmt.Sprintf(format, args...)})
}

func (v violations) err() error { return errors.Join(v...) }

// The invariants CheckStep and CheckEffects check, by the names their
// errors carry.
const (
	InvPhaseKnown        = "phaseKnown"        // the phase is one of the ten; a written status has one
	InvNothingRan        = "nothingRan"        // a delayed, dropped or skipped request changes nothing
	InvDelayed           = "delayed"           // a delay registers (or drops) instead of running, and only then
	InvTable             = "table"             // the transition is statemachine.Lookup's for the state and action, and its call is the one made
	InvPhaseTo           = "phaseTo"           // the phase only moves to a phase the transition lists (or "" to Pending)
	InvFinishedStays     = "finishedStays"     // Completed, Terminated and Failed never change
	InvFinishedOnlyKills = "finishedOnlyKills" // a finished job only sees KillJob calls that create nothing
	InvRetryCount        = "retryCount"        // +1 exactly on a move into Restarting from Pending/Running/Aborting/Aborted; never down, never above maxRetry
	InvVersion           = "version"           // +1 exactly when a KillJob wrote the status; a KillJob without error writes it
	InvFailedWhy         = "failedWhy"         // Failed only through maxRetry (Restarting) or Running's all-finished rules
	InvCompletedWhy      = "completedWhy"      // Completed only through minSuccess or all pods finished (Running), or an idle Completing
	InvIdleWhy           = "idleWhy"           // Aborted, Terminated (and Completed from Completing) only with nothing pending, running or terminating
	InvCreatedPods       = "createdPods"       // only SyncJob creates, each pod once, <job>-<task>-<i> with i below replicas
	InvTargetedKill      = "targetedKill"      // KillTarget deletes only pods of its task, pod or partition
	InvKillSet           = "killSet"           // a kill deletes exactly the pods its plan names (retain set, target)
	InvSyncDeletes       = "syncDeletes"       // SyncJob deletes only out-of-sync pods and pods beyond the replicas
	InvExisting          = "existing"          // deleted pods existed; created pods did not
	InvPodMetadata       = "podMetadata"       // a created pod carries Volcano's labels and annotations
	InvEvents            = "events"            // the Events are processNextReq's for the decision (none for a fired action), then the call's; a call that succeeded records no Warning but PodGroupPending
)

// CheckStep checks one processing step (worker.Step's Process or Fire)
// from the job and the step's record alone: before is the job the step
// decided on (its snapshot), after the job once the step is done. It
// returns every broken invariant (as *InvariantError values joined with
// errors.Join), or nil. See the Inv constants for what is checked.
//
// A job carrying the behavior.Annotation is checked under the
// semantics it names (see CheckStepWith).
func CheckStep(before, after *vcjob.Job, rec worker.Record) error {
	return CheckStepWith(before, after, rec, behavior.Set{})
}

// CheckStepWith is CheckStep for a step decided under the semantics base
// (the embedder's; the job's annotation applies on top) and the policy
// extensions the record shows (KeepRetries, FailJob): the transition is
// statemachine.LookupWith's, a finished job with nothing left to delete
// may see no call at all, a resume or a kept retry counts none, and a
// restart beyond the retry budget may fail the job.
func CheckStepWith(before, after *vcjob.Job, rec worker.Record, base behavior.Set) error {
	if before == nil || after == nil {
		return errors.New("rapidgen: CheckStep needs the job before and after the step")
	}
	var v violations
	checkPhaseKnown(&v, before, after, rec)
	checkEvents(&v, rec)
	checkDelayed(&v, rec)
	if rec.Transition == nil {
		checkNothingRan(&v, before, after, rec)
		return v.err()
	}
	state := statemachine.StateOf(before)
	checkTransition(&v, before, after, rec, state, base)
	checkFinishedStays(&v, before, after, rec)
	checkRetryCount(&v, before, after, rec, state)
	checkVersion(&v, before, after, rec)
	checkWhyFinished(&v, before, after, rec)
	checkCreatedPods(&v, before, rec)
	checkTargetedKill(&v, before, rec)
	return v.err()
}

// checkPhaseKnown: the job always has one of the known phases, once it
// has one.
func checkPhaseKnown(v *violations, before, after *vcjob.Job, rec worker.Record) {
	bp, ap := before.Status.State.Phase, after.Status.State.Phase
	if ap != "" && !ap.IsKnown() {
		v.add(InvPhaseKnown, "phase %q is not one of %v", ap, vcjob.Phases())
	}
	if ap == "" && bp != "" {
		v.add(InvPhaseKnown, "phase %q was lost", bp)
	}
	if st := rec.Effects.Status; rec.Effects.StatusWritten && st != nil && st.State.Phase == "" {
		v.add(InvPhaseKnown, "a status without a phase was written")
	}
}

// checkDelayed: a decided step with a delay registers (or drops) it and
// runs nothing; one without runs at once.
func checkDelayed(v *violations, rec worker.Record) {
	if rec.Fired != nil || rec.Skipped != "" {
		return
	}
	tr := rec.Transition
	delayed := rec.Registered != nil || rec.DelayDropped
	if (rec.Delay > 0) != delayed || (delayed && tr != nil) {
		v.add(InvDelayed, "delay %s, registered %v, dropped %v, ran %v", rec.Delay, rec.Registered != nil, rec.DelayDropped, tr != nil)
	}
}

// checkNothingRan: a step that ran no transition changed nothing.
func checkNothingRan(v *violations, before, after *vcjob.Job, rec worker.Record) {
	b, a := &before.Status, &after.Status
	if !equality.Semantic.DeepEqual(b, a) {
		v.add(InvNothingRan, "nothing ran (%s) but the status changed: %s", why(rec), statusDiff(b, a))
	}
	if len(rec.Effects.Created)+len(rec.Effects.Deleted) > 0 {
		v.add(InvNothingRan, "nothing ran (%s) but pods were created %v or deleted %v", why(rec), rec.Effects.Created, rec.Effects.Deleted)
	}
}

// checkTransition: the transition is the table's for the job's state and
// the action, the cluster saw its call, and the job moved only to one of
// its phases.
func checkTransition(v *violations, before, after *vcjob.Job, rec worker.Record, state statemachine.State, base behavior.Set) {
	tr := rec.Transition
	bp, ap := before.Status.State.Phase, after.Status.State.Phase
	if want := tableTransition(before, rec, state, base); !reflect.DeepEqual(*tr, want) {
		v.add(InvTable, "%s in state %s: transition %+v, the table says %+v", rec.Action, state, *tr, want)
	}
	if rec.Effects.Call != tr.Call {
		v.add(InvTable, "the transition calls %s, the cluster saw %q", tr.Call, rec.Effects.Call)
	}
	if ap != bp && !(bp == "" && ap == vcjob.Pending) && !containsPhase(tr.To, ap) {
		v.add(InvPhaseTo, "%s in %s moved %q -> %q; the transition leads only to %v", rec.Action, state, bp, ap, tr.To)
	}
}

// tableTransition is the transition the step must have run: the table's
// row under the job's behaviour and the marks the record shows (KeepRetries,
// FailJob), with a row that leaves an idle job alone (LeaveFinishedJobs)
// taken as the call the step made of the two it allows.
func tableTransition(before *vcjob.Job, rec worker.Record, state statemachine.State, base behavior.Set) statemachine.Transition {
	var marks statemachine.Mark
	if rec.KeepRetries {
		marks |= statemachine.MarkKeepRetries
	}
	if rec.FailJob {
		marks |= statemachine.MarkFailJob
	}
	want := statemachine.LookupFor(state, rec.Action, marks, base.For(before))
	if want.Call == statemachine.CallKillJobUnlessIdle {
		want.Call = statemachine.CallKillJob
		if rec.Transition.Call == statemachine.CallNone {
			want.Call, want.To = statemachine.CallNone, nil
		}
	}
	return want
}

// checkFinishedStays: a finished job stays in its phase and sees no call
// but a kill.
func checkFinishedStays(v *violations, before, after *vcjob.Job, rec worker.Record) {
	tr := rec.Transition
	bp, ap := before.Status.State.Phase, after.Status.State.Phase
	if !bp.IsFinished() {
		return
	}
	if ap != bp {
		v.add(InvFinishedStays, "the job was %s and is now %q", bp, ap)
	}
	if (tr.Call != statemachine.CallKillJob && tr.Call != statemachine.CallNone) || len(rec.Effects.Created) > 0 {
		v.add(InvFinishedOnlyKills, "the job is %s but the call was %s creating %v", bp, tr.Call, rec.Effects.Created)
	}
}

// checkRetryCount: retryCount grows by one when a restartable job moves
// into Restarting (not on a resume), never otherwise, and never past
// maxRetry.
func checkRetryCount(v *violations, before, after *vcjob.Job, rec worker.Record, state statemachine.State) {
	tr := rec.Transition
	b, a := &before.Status, &after.Status
	restartable := state == statemachine.StatePending || state == statemachine.StateRunning ||
		state == statemachine.StateAborting || state == statemachine.StateAborted
	moved := rec.Effects.StatusWritten && restartable && a.State.Phase == vcjob.Restarting && tr.Update != statemachine.UpdateResume
	wantRetry := b.RetryCount
	if moved {
		wantRetry++
	}
	switch {
	case a.RetryCount < b.RetryCount:
		v.add(InvRetryCount, "retryCount went down %d -> %d", b.RetryCount, a.RetryCount)
	case a.RetryCount != wantRetry:
		v.add(InvRetryCount, "retryCount %d -> %d, want %d (moved into Restarting from %s: %v)", b.RetryCount, a.RetryCount, wantRetry, state, moved)
	case a.RetryCount > b.RetryCount && tr.Update != statemachine.UpdateRestart:
		v.add(InvRetryCount, "retryCount grew under update rule %s", tr.Update)
	}
	if max := before.Spec.MaxRetry; max > 0 && a.RetryCount > max {
		v.add(InvRetryCount, "retryCount %d is above maxRetry %d", a.RetryCount, max)
	}
}

// checkVersion: the version grows by one with each kill's status write,
// and a kill that succeeded wrote the status (unless the job is being
// deleted).
func checkVersion(v *violations, before, after *vcjob.Job, rec worker.Record) {
	tr := rec.Transition
	b, a := &before.Status, &after.Status
	wantVersion := b.Version
	if tr.Call == statemachine.CallKillJob && rec.Effects.StatusWritten {
		wantVersion++
	}
	if a.Version != wantVersion {
		v.add(InvVersion, "version %d -> %d, want %d (call %s, status written %v)", b.Version, a.Version, wantVersion, tr.Call, rec.Effects.StatusWritten)
	}
	if tr.Call == statemachine.CallKillJob && rec.Err == nil && before.DeletionTimestamp == nil && !rec.Effects.StatusWritten {
		v.add(InvVersion, "KillJob returned no error but wrote no status")
	}
}

// checkWhyFinished: a job that moved into Failed, Completed, Aborted or
// Terminated had a reason the update rule allows.
func checkWhyFinished(v *violations, before, after *vcjob.Job, rec worker.Record) {
	tr := rec.Transition
	a := &after.Status
	bp, ap := before.Status.State.Phase, a.State.Phase
	if ap == bp {
		return
	}
	total := before.TotalReplicas()
	finished := a.Succeeded+a.Failed == total
	idle := a.Pending == 0 && a.Running == 0 && a.Terminating == 0
	switch ap {
	case vcjob.Failed:
		switch {
		case tr.Update == statemachine.UpdateRestarting && a.RetryCount >= before.Spec.MaxRetry:
		case tr.Update == statemachine.UpdateRunningSync && finished:
		case tr.Update == statemachine.UpdateFail && rec.FailJob:
		default:
			v.add(InvFailedWhy, "Failed from %q under %s with retryCount %d (maxRetry %d), succeeded+failed %d of %d", bp, tr.Update, a.RetryCount, before.Spec.MaxRetry, a.Succeeded+a.Failed, total)
		}
	case vcjob.Completed:
		ms := before.Spec.MinSuccess
		switch {
		case tr.Update == statemachine.UpdateRunningSync && (finished || (ms != nil && a.Succeeded >= *ms)):
		case tr.Update == statemachine.UpdateCompleted && idle:
		default:
			v.add(InvCompletedWhy, "Completed from %q under %s: succeeded %d failed %d of %d, minSuccess %v, idle %v", bp, tr.Update, a.Succeeded, a.Failed, total, ms, idle)
		}
	case vcjob.Aborted, vcjob.Terminated:
		if !idle {
			v.add(InvIdleWhy, "%s with pending %d running %d terminating %d", ap, a.Pending, a.Running, a.Terminating)
		}
	}
}

// checkCreatedPods: only a sync creates pods, each once, each named for an
// index below its task's replicas.
func checkCreatedPods(v *violations, before *vcjob.Job, rec worker.Record) {
	seen := map[string]bool{}
	if len(rec.Effects.Created) > 0 && rec.Transition.Call != statemachine.CallSyncJob {
		v.add(InvCreatedPods, "%s created pods %v", rec.Transition.Call, rec.Effects.Created)
	}
	for _, name := range rec.Effects.Created {
		if seen[name] {
			v.add(InvCreatedPods, "pod %s created twice", name)
		}
		seen[name] = true
		task, idx, ok := PodTask(before, name)
		if !ok || idx >= int(task.Replicas) {
			v.add(InvCreatedPods, "pod %s is not <job>-<task>-<index> for an index below a task's replicas", name)
		}
	}
}

// checkTargetedKill: a targeted kill deletes only pods its target names,
// judged by their names.
func checkTargetedKill(v *violations, before *vcjob.Job, rec worker.Record) {
	if rec.Transition.Call != statemachine.CallKillTarget {
		return
	}
	for _, name := range rec.Effects.Deleted {
		if !nameInTarget(before, name, rec.Target) {
			v.add(InvTargetedKill, "target %s, but deleted %s", targetString(rec.Target), name)
		}
	}
}

// checkEvents checks a step's Events against its decision and its call.
func checkEvents(v *violations, rec worker.Record) {
	if rec.Skipped != "" {
		if len(rec.Events) > 0 {
			v.add(InvEvents, "a skipped step recorded %v", rec.Events)
		}
		return
	}
	var want []record.Event
	switch {
	case rec.Rule.Kind == worker.RuleGiveUp:
		if len(rec.Events) == 0 || rec.Events[0].Reason != worker.ReasonExecuteAction || !strings.HasSuffix(rec.Events[0].Message, " for retry limit reached") {
			v.add(InvEvents, "a request given up recorded %v, not the retry-limit Event first", rec.Events)
			return
		}
		want = append(want, rec.Events[0])
	case rec.Fired == nil:
		want = worker.DecisionEvents(rec.Action, rec.Delay)
	}
	want = append(want, rec.Effects.Events...)
	if !slices.Equal(want, rec.Events) {
		v.add(InvEvents, "%s: recorded %v, want the decision's then the call's: %v", why(rec), rec.Events, want)
	}
	if rec.Err == nil {
		for _, e := range rec.Effects.Events {
			if e.Type == record.Warning && e.Reason != statemachine.ReasonPodGroupPending {
				v.add(InvEvents, "a call that succeeded recorded %s", e)
			}
		}
	}
}

// CheckEffects checks the pods a step deleted and created against the
// pods the step's job info held (podsBefore): deleted pods existed and
// created ones did not; a whole-job kill deletes exactly the pods not
// already terminating that its retain set does not keep (always soft on the
// last retry); a targeted kill exactly its target's pods not already
// terminating (nothing for an unknown or empty partition); a sync deletes
// only out-of-sync pods and pods beyond the replicas. Exactness is only
// required of steps without error.
func CheckEffects(before *vcjob.Job, podsBefore []*corev1.Pod, rec worker.Record) error {
	if before == nil {
		return errors.New("rapidgen: CheckEffects needs the job before the step")
	}
	tr := rec.Transition
	if tr == nil {
		return nil // CheckStep reports effects of a step that ran nothing
	}
	var v violations
	byName := map[string]*corev1.Pod{}
	for _, p := range podsBefore {
		byName[p.Name] = p
	}
	deleted := checkExisting(&v, byName, rec)
	var want map[string]bool
	switch tr.Call {
	case statemachine.CallKillJob:
		want = killJobSet(before, podsBefore, tr.Retain)
	case statemachine.CallKillTarget:
		want = killTargetSet(before, podsBefore, rec.Target)
		for name := range deleted {
			if p := byName[name]; p != nil && !rec.Target.Takes(p) {
				v.add(InvTargetedKill, "target %s, but deleted %s (task %q, partition %q)", targetString(rec.Target), name, p.Annotations[vcjob.TaskSpecKey], p.Labels[vcjob.PartitionIDKey])
			}
		}
	case statemachine.CallSyncJob:
		checkSyncDeletes(&v, before, byName, deleted)
	}
	if want != nil {
		checkKillSet(&v, byName, deleted, want, rec)
	}
	return v.err()
}

// checkExisting: the step created only pods that did not exist and deleted
// only pods that did. It returns the names deleted.
func checkExisting(v *violations, byName map[string]*corev1.Pod, rec worker.Record) map[string]bool {
	for _, name := range rec.Effects.Created {
		if byName[name] != nil {
			v.add(InvExisting, "created %s, which existed", name)
		}
	}
	deleted := map[string]bool{}
	for _, name := range rec.Effects.Deleted {
		deleted[name] = true
		if byName[name] == nil {
			v.add(InvExisting, "deleted %s, which did not exist", name)
		}
	}
	return deleted
}

// killJobSet is what a whole-job kill must delete: the pods not already
// terminating that retain does not keep (soft on the last retry), none of
// a job being deleted.
func killJobSet(before *vcjob.Job, podsBefore []*corev1.Pod, retain statemachine.Retain) map[string]bool {
	want := map[string]bool{}
	if before.Status.RetryCount >= before.Spec.MaxRetry-1 {
		retain = statemachine.RetainSoft
	}
	if before.DeletionTimestamp == nil {
		for _, p := range podsBefore {
			if p.DeletionTimestamp == nil && !retain.Keeps(p.Status.Phase) {
				want[p.Name] = true
			}
		}
	}
	return want
}

// killTargetSet is what a targeted kill must delete: its target's pods not
// already terminating, none for a partition of an unknown or unpartitioned
// task.
func killTargetSet(before *vcjob.Job, podsBefore []*corev1.Pod, target request.Target) map[string]bool {
	want := map[string]bool{}
	for _, p := range podsBefore {
		if p.DeletionTimestamp == nil && target.Takes(p) {
			want[p.Name] = true
		}
	}
	if target.Level == vcjob.PartitionLevel {
		task := before.Task(target.TaskName)
		if task == nil || task.PartitionPolicy == nil {
			want = map[string]bool{}
		}
	}
	return want
}

// checkSyncDeletes: a sync deletes only out-of-sync pods and pods beyond
// their task's replicas.
func checkSyncDeletes(v *violations, before *vcjob.Job, byName map[string]*corev1.Pod, deleted map[string]bool) {
	for name := range deleted {
		p := byName[name]
		if p == nil {
			continue
		}
		task, idx, ok := PodTask(before, name)
		beyond := !ok || idx >= int(task.Replicas) || p.Annotations[vcjob.TaskSpecKey] != task.Name
		if p.Annotations[vcjob.PodOutOfSyncKey] != "true" && !beyond {
			v.add(InvSyncDeletes, "deleted %s, which is in range and in sync", name)
		}
	}
}

// checkKillSet: a kill deleted nothing outside want and, without error,
// all of it.
func checkKillSet(v *violations, byName map[string]*corev1.Pod, deleted, want map[string]bool, rec worker.Record) {
	tr := rec.Transition
	for name := range deleted {
		if !want[name] {
			v.add(InvKillSet, "%s deleted %s, which it must leave alone (phase %s, terminating %v)", tr.Call, name, phaseOf(byName[name]), terminating(byName[name]))
		}
	}
	if rec.Err != nil {
		return
	}
	var missing []string
	for name := range want {
		if !deleted[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		v.add(InvKillSet, "%s (retain %q) left %v alive", tr.Call, tr.Retain, missing)
	}
}

// CheckPod checks a pod the controller created for job (the job as it was
// before the step that created it): name, namespace, owner, and Volcano's
// labels and annotations, with job-version and job-retry-count from the
// job's status.
func CheckPod(job *vcjob.Job, pod *corev1.Pod) error {
	var v violations
	task, idx, ok := PodTask(job, pod.Name)
	if !ok || pod.Annotations[vcjob.TaskSpecKey] != task.Name {
		v.add(InvPodMetadata, "pod %s is not <job>-<task>-<index> of a task of %s", pod.Name, job.Name)
		return v.err()
	}
	wantAnn := map[string]string{
		vcjob.TaskSpecKey:      task.Name,
		vcjob.TaskIndexKey:     strconv.Itoa(idx),
		vcjob.JobNameKey:       job.Name,
		vcjob.PodGroupNameKey:  podgroup.Name(job),
		vcjob.QueueNameKey:     job.Spec.Queue,
		vcjob.JobVersionKey:    strconv.Itoa(int(job.Status.Version)),
		vcjob.JobRetryCountKey: strconv.Itoa(int(job.Status.RetryCount)),
		vcjob.TemplateUIDKey:   job.Name + "-" + task.Name,
	}
	wantLab := map[string]string{
		vcjob.TaskSpecKey:     task.Name,
		vcjob.TaskIndexKey:    strconv.Itoa(idx),
		vcjob.JobNameKey:      job.Name,
		vcjob.JobNamespaceKey: job.Namespace,
		vcjob.QueueNameKey:    job.Spec.Queue,
	}
	for k, val := range task.Template.Labels {
		if _, ours := wantLab[k]; !ours {
			wantLab[k] = val
		}
	}
	if pp := task.PartitionPolicy; pp != nil && pp.PartitionSize > 0 {
		wantLab[vcjob.PartitionIDKey] = strconv.Itoa(idx / int(pp.PartitionSize))
	} else if id, ok := pod.Labels[vcjob.PartitionIDKey]; ok && pp == nil {
		v.add(InvPodMetadata, "pod %s of an unpartitioned task has partition-id %q", pod.Name, id)
	}
	for _, k := range sortedKeys(wantAnn) {
		if got, ok := pod.Annotations[k]; !ok || got != wantAnn[k] {
			v.add(InvPodMetadata, "pod %s annotation %s = %q (present %v), want %q", pod.Name, k, got, ok, wantAnn[k])
		}
	}
	for _, k := range sortedKeys(wantLab) {
		if got, ok := pod.Labels[k]; !ok || got != wantLab[k] {
			v.add(InvPodMetadata, "pod %s label %s = %q (present %v), want %q", pod.Name, k, got, ok, wantLab[k])
		}
	}
	if pod.Namespace != job.Namespace {
		v.add(InvPodMetadata, "pod %s in namespace %q, job in %q", pod.Name, pod.Namespace, job.Namespace)
	}
	if len(pod.OwnerReferences) != 1 || pod.OwnerReferences[0].UID != job.UID || pod.OwnerReferences[0].Controller == nil || !*pod.OwnerReferences[0].Controller {
		v.add(InvPodMetadata, "pod %s owners %v: want the job as its only, controlling owner", pod.Name, pod.OwnerReferences)
	}
	return v.err()
}

// PodTask finds the task and index of a pod named <job>-<task>-<index>;
// ok is false when name is not such a name for one of job's tasks.
func PodTask(job *vcjob.Job, name string) (task *vcjob.TaskSpec, index int, ok bool) {
	for i := range job.Spec.Tasks {
		t := &job.Spec.Tasks[i]
		prefix := job.Name + "-" + t.Name + "-"
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		rest := name[len(prefix):]
		n, err := strconv.Atoi(rest)
		if err != nil || n < 0 || strconv.Itoa(n) != rest {
			continue
		}
		return t, n, true
	}
	return nil, 0, false
}

// nameInTarget judges a pod by its name alone: its task from the name, its
// partition from its index (as the controller labels the pods it creates).
func nameInTarget(job *vcjob.Job, name string, target request.Target) bool {
	task, idx, ok := PodTask(job, name)
	if !ok || task.Name != target.TaskName {
		return false
	}
	switch target.Level {
	case vcjob.TaskLevel:
		return true
	case vcjob.PodLevel:
		return name == target.PodName
	case vcjob.PartitionLevel:
		pp := task.PartitionPolicy
		return pp != nil && target.PartitionID != "" && strconv.Itoa(idx/int(max(pp.PartitionSize, 1))) == target.PartitionID
	}
	return false
}

func targetString(t request.Target) string {
	s := t.Level.String()
	if t.TaskName != "" {
		s += " task=" + t.TaskName
	}
	if t.PodName != "" {
		s += " pod=" + t.PodName
	}
	if t.PartitionID != "" {
		s += " partition=" + t.PartitionID
	}
	return s
}

func why(rec worker.Record) string {
	switch {
	case rec.Skipped != "":
		return "skipped: " + rec.Skipped
	case rec.Registered != nil:
		return "delayed " + rec.Delay.String()
	case rec.DelayDropped:
		return "delay dropped"
	}
	return "no transition"
}

func statusDiff(a, b *vcjob.JobStatus) string {
	return fmt.Sprintf("phase %q->%q retry %d->%d version %d->%d", a.State.Phase, b.State.Phase, a.RetryCount, b.RetryCount, a.Version, b.Version)
}

func containsPhase(ps []vcjob.JobPhase, p vcjob.JobPhase) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

func phaseOf(p *corev1.Pod) corev1.PodPhase {
	if p == nil {
		return ""
	}
	return p.Status.Phase
}

func terminating(p *corev1.Pod) bool { return p != nil && p.DeletionTimestamp != nil }

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
