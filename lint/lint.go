package lint

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/policy"
)

// Severity ranks a lint finding.
type Severity string

// The severities, from the most to the least serious.
const (
	// SeverityError: the job does not do what it says (a policy that can
	// never act as written, a completion rule that cannot be met).
	SeverityError Severity = "error"
	// SeverityWarning: Volcano does something the author very likely did
	// not mean (a dead policy, a restart that kills nothing).
	SeverityWarning Severity = "warning"
	// SeverityInfo: a surprise worth knowing that may well be intended.
	SeverityInfo Severity = "info"
)

// Finding is one thing Lint has to say about a job: where (a field path in
// the manifest, as spec.tasks[1].policies[0].event), how serious, a stable
// short code and a one-line message.
type Finding struct {
	Path     string   `json:"path"`
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	Message  string   `json:"message"`
}

func (f Finding) String() string {
	return fmt.Sprintf("%s: %s: %s [%s]", f.Path, f.Severity, f.Message, f.Code)
}

// Check describes one kind of finding: its code, its severity and what it
// is about.
type Check struct {
	Code     string   `json:"code"`
	Severity Severity `json:"severity"`
	Summary  string   `json:"summary"`
}

// The finding codes. They are stable: tools may match on them.
const (
	CodePendingWithoutTimeout        = "pending-without-timeout"
	CodePolicyShadowed               = "policy-shadowed"
	CodeJobPolicyOverridden          = "job-policy-overridden"
	CodeEventWithoutTask             = "event-without-task"
	CodeEventNeverRaised             = "event-never-raised"
	CodeUnknownEvent                 = "unknown-event"
	CodeUnknownAction                = "unknown-action"
	CodePolicyWithoutTrigger         = "policy-without-trigger"
	CodeTargetedRestartWithoutTarget = "targeted-restart-without-target"
	CodeRestartPartitionUnpartition  = "restart-partition-unpartitioned"
	CodeRestartPodOnEvicted          = "restart-pod-on-evicted"
	CodeResumeOnEvent                = "resume-on-event"
	CodeShortPendingTimeout          = "short-pending-timeout"
	CodeAnyEventCatchesTaskCompleted = "any-event-catches-task-completed"
	CodeAnyEventTimeoutArmsPending   = "any-event-timeout-arms-pending"
	CodeUnknownOnlyBeforeFirstKill   = "unknown-only-before-first-kill"
	CodeExitCodeZero                 = "exit-code-zero"
	CodeExitCodeOutOfRange           = "exit-code-out-of-range"
	CodeExitCodeRestartsInPlace      = "exit-code-restarts-in-place"
	CodeTaskCompletedNeverRaised     = "task-completed-never-raised"
	CodeTaskFailedNeverRaised        = "task-failed-never-raised"
	CodeMaxRetryZero                 = "max-retry-zero"
	CodeMaxRetryOne                  = "max-retry-one"
	CodeMinSuccessExceedsReplicas    = "min-success-exceeds-replicas"
	CodeMinAvailableZero             = "min-available-zero"
	CodeDependsOnEmptyTask           = "depends-on-empty-task"
	CodeDependsOnAlwaysReady         = "depends-on-always-ready"
	CodeTaskWithoutReplicas          = "task-without-replicas"
	// vcjob's own annotations, and where Volcano's semantics bite.
	CodeSemanticsAnnotationInvalid = "semantics-annotation-invalid"
	CodeExtensionsInvalid          = "extensions-invalid"
	CodeFinishedNotCounted         = "finished-not-counted-after-kill"
)

var checks = []Check{
	{CodePendingWithoutTimeout, SeverityWarning, "a PodPending policy without a timeout never fires"},
	{CodePolicyShadowed, SeverityWarning, "an earlier policy of the same list (\"*\", the same event, a PodFailed event before an exit code) always matches first"},
	{CodeJobPolicyOverridden, SeverityWarning, "a job policy for an event every task already handles in its own policies never fires"},
	{CodeEventWithoutTask, SeverityWarning, "a task policy for Unknown never fires: PodGroup requests name no task"},
	{CodeEventNeverRaised, SeverityWarning, "Volcano's controller never raises JobUpdated (a job update is OutOfSync)"},
	{CodeUnknownEvent, SeverityError, "the event is not one a policy may name: the policy never matches it"},
	{CodeUnknownAction, SeverityError, "the action is not one a policy may name"},
	{CodePolicyWithoutTrigger, SeverityError, "the policy names neither an event nor an exit code: it never matches"},
	{CodeTargetedRestartWithoutTarget, SeverityWarning, "RestartPod/RestartTask on an event that names no pod restarts the job (retry +1) and kills nothing; RestartPartition does nothing"},
	{CodeRestartPartitionUnpartition, SeverityError, "RestartPartition for a task without a partitionPolicy does nothing at all"},
	{CodeRestartPodOnEvicted, SeverityInfo, "RestartPod on PodEvicted: the pod is already gone, so it only counts a retry"},
	{CodeResumeOnEvent, SeverityWarning, "ResumeJob only acts in Aborting/Aborted; elsewhere it syncs, or kills every pod in Restarting"},
	{CodeShortPendingTimeout, SeverityWarning, "a PodPending timeout under 1m fires while images are still being pulled"},
	{CodeAnyEventCatchesTaskCompleted, SeverityWarning, "\"*\" also matches TaskCompleted: a task finishing triggers the action instead of completion"},
	{CodeAnyEventTimeoutArmsPending, SeverityInfo, "\"*\" with a timeout also arms on every pod creation (PodPending)"},
	{CodeUnknownOnlyBeforeFirstKill, SeverityInfo, "Unknown requests carry job version 0: the policy stops firing once the job has been killed"},
	{CodeExitCodeZero, SeverityError, "exit code 0 is success; validation refuses it, and it would match every request that carries no exit code"},
	{CodeExitCodeOutOfRange, SeverityWarning, "a Linux container exits with 0-255: a negative or larger code never matches"},
	{CodeExitCodeRestartsInPlace, SeverityWarning, "with restartPolicy Always/OnFailure the kubelet restarts a failed container in place, so the pod does not fail with that code"},
	{CodeTaskCompletedNeverRaised, SeverityWarning, "with restartPolicy Always pods never succeed, so TaskCompleted is never raised"},
	{CodeTaskFailedNeverRaised, SeverityWarning, "with restartPolicy Never containers never restart, so TaskFailed is never raised"},
	{CodeMaxRetryZero, SeverityInfo, "maxRetry unset (0) with restart actions: the CRD and the webhook make it 3, so the 3rd restart fails the job"},
	{CodeMaxRetryOne, SeverityWarning, "maxRetry 1 with restart actions: the first restart fails the job"},
	{CodeMinSuccessExceedsReplicas, SeverityError, "minSuccess above the total replicas can never be met: the job ends Failed"},
	{CodeMinAvailableZero, SeverityWarning, "job minAvailable 0 (after defaults): Running at once, and Completed even when every pod fails"},
	{CodeDependsOnEmptyTask, SeverityWarning, "dependsOn names a task with 0 replicas: it counts as ready at once"},
	{CodeDependsOnAlwaysReady, SeverityWarning, "dependsOn names a task with minAvailable 0: it counts as ready at once"},
	{CodeTaskWithoutReplicas, SeverityInfo, "a task with 0 replicas creates no pod and never completes"},
	{CodeTTLAbortedNeverDeleted, SeverityWarning, "ttlSecondsAfterFinished on a job its policies can abort: the garbage collector deletes Completed, Failed and Terminated jobs, never an Aborted one"},
	{CodeExitCodeWithoutAction, SeverityWarning, "an exit-code policy without an action: Volcano admits it, and a pod failing with that code resolves to the empty action (a sync in Pending and Running, a whole-job kill in Restarting)"},
	{CodeTopologyPolicyNotGuaranteed, SeverityWarning, "topologyPolicy on pods that are not of Guaranteed QoS class: Volcano admits it, but the kubelet pins CPUs (and aligns NUMA) only for Guaranteed pods"},
	{CodePodNameTooLong, SeverityWarning, "a pod name <job>-<task>-<index> longer than 63 characters: Volcano's webhook checks one name per task, but the pod (its hostname, with the svc plugin) cannot be created"},
	{CodeCronScheduleNeverFires, SeverityError, "a CronJob schedule on a date that never exists (30 February): Volcano admits it, and it never runs"},
	{CodeCronJobTemplateInvalid, SeverityError, "a CronJob job template that Volcano's Job webhook refuses: the CronJob is admitted, and every run fails to create its Job"},
	{CodeCronTimeZoneUnset, SeverityInfo, "a CronJob without timeZone: Volcano reads its schedule in the zone of the controller process, which the CronJob does not say"},
	{CodeCronForbidAbortedRun, SeverityWarning, "Forbid with a job template that can abort: Volcano counts an Aborted run as active, so it holds every later run back until the job is resumed or deleted"},
	{CodeSemanticsAnnotationInvalid, SeverityError, "the vcjob.dev/semantics annotation does not parse: decisions ignore it"},
	{CodeExtensionsInvalid, SeverityError, "the vcjob.dev/policy annotation does not decode or validate: decisions get no extension (or a wrong one)"},
	{CodeFinishedNotCounted, SeverityWarning, "a minSuccess job with kills that keep Succeeded pods: Volcano zeroes their count (volcano#4616); the count-finished-after-kill correction keeps it"},
}

// Checks lists every kind of finding Lint reports, in a fixed order.
func Checks() []Check { return append([]Check(nil), checks...) }

// severityOf is the fixed severity of a code.
func severityOf(code string) Severity {
	for _, c := range checks {
		if c.Code == code {
			return c.Severity
		}
	}
	return SeverityError
}

// HasErrors reports whether any finding has SeverityError.
func HasErrors(findings []Finding) bool {
	for _, f := range findings {
		if f.Severity == SeverityError {
			return true
		}
	}
	return false
}

// MinPendingTimeout is the shortest PodPending timeout Lint accepts without
// a warning: pulling an image alone often takes longer.
const MinPendingTimeout = time.Minute

// Lint reports what Volcano will do with job that its author probably does
// not expect: policies that can never fire or that do nothing, restarts
// that kill nothing, completion rules that cannot be met, dependencies that
// never wait. Each finding names the field at fault.
//
// Lint reads the job as written and never changes it. Where Volcano's
// defaults change what a field means (task names, minAvailable, maxRetry 0
// becoming 3), it reasons on the defaulted values and says so. It is no
// substitute for validation.ValidateJob, but it never panics, whatever the job:
// an invalid job gets the findings that still make sense.
func Lint(job *vcjob.Job) []Finding {
	if job == nil {
		return nil
	}
	a := newAnalysis(job)
	var l linter
	l.a = a
	l.jobFields()
	l.policies(a.lists[0])
	for i := range job.Spec.Tasks {
		l.task(i)
		l.policies(a.lists[i+1])
	}
	l.ttl()
	l.admission()
	l.semantics()
	return l.out
}

type linter struct {
	a   *analysis
	out []Finding
	// aborts are the live AbortJob policies, as "PATH on EVENTS".
	aborts []string
}

func (l *linter) add(path *field.Path, code, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	msg = strings.ReplaceAll(msg, "\n", " ")
	l.out = append(l.out, Finding{Path: path.String(), Severity: severityOf(code), Code: code, Message: msg})
}

// jobFields lints spec fields outside the policies.
func (l *linter) jobFields() {
	a := l.a
	spec := &a.given.Spec
	specPath := field.NewPath("spec")
	total := a.total
	if ms := spec.MinSuccess; ms != nil && int64(*ms) > total {
		l.add(specPath.Child("minSuccess"), CodeMinSuccessExceedsReplicas,
			"minSuccess %d is more than the %d replicas of all tasks: the job never completes on its own, and once every pod has finished it is Failed", *ms, total)
	}
	if total > 0 && spec.MinSuccess == nil && a.defaulted.Spec.MinAvailable == 0 {
		l.add(specPath.Child("minAvailable"), CodeMinAvailableZero,
			"minAvailable is 0 after defaults (every task's minAvailable is 0): the job is Running before any pod runs, and Completed once all pods finish even if every one failed")
	}
	restarts := a.restartActions()
	if spec.MaxRetry == 0 && len(restarts) > 0 {
		l.add(specPath.Child("maxRetry"), CodeMaxRetryZero,
			"maxRetry is not set (0) and policies restart (%s): the CRD's schema and Volcano's webhook (vcjob.SetDefaults) make it 3, so the 3rd restart fails the job; set maxRetry to n+1 to allow n restarts",
			strings.Join(restarts, ", "))
	}
	if spec.MaxRetry == 1 && len(restarts) > 0 {
		l.add(specPath.Child("maxRetry"), CodeMaxRetryOne,
			"maxRetry 1 with restarting policies (%s): the first restart reaches maxRetry and fails the job; to allow n restarts set maxRetry n+1",
			strings.Join(restarts, ", "))
	}
}

func (l *linter) policies(list *policyList) {
	for i := range list.policies {
		l.policy(list, i)
	}
}

// task lints task i's replicas and dependencies.
func (l *linter) task(i int) {
	a := l.a
	taskPath := field.NewPath("spec", "tasks").Index(i)
	task := &a.given.Spec.Tasks[i]
	if task.Replicas == 0 {
		l.add(taskPath.Child("replicas"), CodeTaskWithoutReplicas,
			"task %q has 0 replicas: it creates no pod, is never completed (TaskCompleted needs replicas > 0), and its policies only matter after a scale-up", a.taskName(i))
	}
	if task.DependsOn == nil {
		return
	}
	for k, name := range task.DependsOn.Name {
		p := taskPath.Child("dependsOn", "name").Index(k)
		j := a.taskIndex(name)
		if j < 0 {
			continue // validation reports it
		}
		dep := &a.defaulted.Spec.Tasks[j]
		switch {
		case dep.Replicas == 0:
			l.add(p, CodeDependsOnEmptyTask,
				"task %q has 0 replicas, so it counts as ready at once: %q does not wait for it", name, a.taskName(i))
		case dep.MinAvailable != nil && *dep.MinAvailable == 0:
			l.add(p, CodeDependsOnAlwaysReady,
				"task %q has minAvailable 0, so it counts as ready at once: %q starts without waiting for it", name, a.taskName(i))
		}
	}
}

// policy lints one policy of one list.
func (l *linter) policy(list *policyList, i int) {
	a := l.a
	p := list.policies[i]
	pp := list.path.Index(i)

	if p.Action == "" && p.ExitCode != nil && len(policy.Events(p)) == 0 {
		l.exitCodeWithoutAction(&p, pp)
	} else if !slices.Contains(vcjob.PolicyActions(), p.Action) {
		if p.Action == "" {
			l.add(pp.Child("action"), CodeUnknownAction, "no action: the policy still matches, and the state machine treats the empty action as any other (a sync in Pending and Running, a whole-job kill in Restarting)")
		} else {
			l.add(pp.Child("action"), CodeUnknownAction, "%q is not an action (want one of %s): the policy still matches, and the state machine treats it as any other action (a sync in Pending and Running, a whole-job kill in Restarting)", p.Action, joinActions(vcjob.PolicyActions()))
		}
	}
	if len(policy.Events(p)) == 0 && p.ExitCode == nil {
		l.add(pp, CodePolicyWithoutTrigger, "the policy names no event and no exit code: it never matches")
		return
	}

	trs := a.triggers(list, i)
	for _, tr := range trs {
		if tr.skip != "" {
			l.add(tr.path, tr.skipCode, "%s", tr.skip)
		}
	}

	// Dead triggers: written events or exit codes that no request ever
	// reaches this policy with. "*" is reported only when every event it
	// stands for is dead.
	var live, anyMisses []firing
	var anyPath *field.Path
	anyHit := false
	for _, tr := range trs {
		if tr.skip != "" {
			continue
		}
		fs := a.fire(list, i, tr)
		live = append(live, fs.hits...)
		if tr.viaAny {
			anyPath = tr.path
			anyHit = anyHit || len(fs.hits) > 0
			anyMisses = append(anyMisses, fs.misses...)
			continue
		}
		if len(fs.hits) == 0 && len(fs.misses) > 0 {
			l.dead(list, tr, fs.misses)
		}
	}
	if anyPath != nil && !anyHit && len(anyMisses) > 0 {
		l.dead(list, trigger{path: anyPath, event: vcjob.AnyEvent, viaAny: true}, anyMisses)
	}
	if len(live) == 0 {
		return
	}
	l.noteAbort(pp, p, live)
	l.actions(list, i, live)
}

// dead reports a trigger that never reaches its policy, naming what wins
// instead.
func (l *linter) dead(list *policyList, tr trigger, misses []firing) {
	a := l.a
	what := a.describeTrigger(tr)
	var sameList, tasks, other []string
	for _, m := range misses {
		w := a.rulePath(m.decision.Rule)
		switch {
		case w == "":
			other = appendUnique(other, m.decision.Rule.String())
		case m.decision.Rule.Kind == policy.RuleTaskPolicy && list.task < 0:
			tasks = appendUnique(tasks, w)
		case a.sameList(list, m.decision.Rule):
			sameList = appendUnique(sameList, w)
		default:
			other = appendUnique(other, w)
		}
	}
	switch {
	case len(sameList) > 0:
		l.add(tr.path, CodePolicyShadowed, "%s never reaches this policy: %s matches first", what, strings.Join(sameList, ", "))
	case len(tasks) > 0 && len(other) == 0:
		l.add(tr.path, CodeJobPolicyOverridden, "%s never reaches this job policy: every task handles it first (%s)", what, strings.Join(tasks, ", "))
	default:
		all := append(append(tasks, sameList...), other...)
		l.add(tr.path, CodePolicyShadowed, "%s never reaches this policy: it resolves by %s", what, strings.Join(all, ", "))
	}
}

// actions lints what the policy's action does for the requests that
// actually reach it.
func (l *linter) actions(list *policyList, i int, live []firing) {
	p := list.policies[i]
	pp := list.path.Index(i)
	l.targetedActions(pp.Child("action"), p, live)
	l.actionsByEvent(pp, p, live)
	l.impossibleFirings(pp, p, live)
}

// targetedActions lints actions that need a target the requests reaching
// them do not give: a pod or task, or a partitioned task.
func (l *linter) targetedActions(ap *field.Path, p vcjob.LifecyclePolicy, live []firing) {
	var noTask []firing
	var tasksReached []int
	for _, f := range live {
		if f.task < 0 {
			noTask = append(noTask, f)
		} else {
			tasksReached = appendUniqueInt(tasksReached, f.task)
		}
	}

	switch p.Action {
	case vcjob.ResumeJobAction:
		l.add(ap, CodeResumeOnEvent,
			"ResumeJob only resumes an Aborting or Aborted job; in Pending or Running it just syncs, and in Restarting it kills every pod")
	case vcjob.RestartPodAction, vcjob.RestartTaskAction, vcjob.RestartPartitionAction:
		if len(noTask) > 0 {
			ev := noTask[0].event
			if p.Action == vcjob.RestartPartitionAction {
				l.add(ap, CodeTargetedRestartWithoutTarget,
					"%s names no task or pod, so RestartPartition on it does nothing at all", ev)
			} else {
				l.add(ap, CodeTargetedRestartWithoutTarget,
					"%s names no task or pod, so %s on it moves the job to Restarting and counts a retry while killing nothing; use RestartJob", ev, p.Action)
			}
		}
	}
	if p.Action == vcjob.RestartPartitionAction && len(tasksReached) > 0 {
		partitioned := false
		var names []string
		for _, t := range tasksReached {
			if l.a.defaulted.Spec.Tasks[t].PartitionPolicy != nil {
				partitioned = true
			}
			names = append(names, fmt.Sprintf("%q", l.a.taskName(t)))
		}
		if !partitioned {
			l.add(ap, CodeRestartPartitionUnpartition,
				"task %s has no partitionPolicy: RestartPartition finds no partition and does nothing at all (no kill, no retry)", strings.Join(names, ", "))
		}
	}
}

// actionsByEvent lints what the action does on particular events: an
// evicted pod, a Pending timeout, "*" catching TaskCompleted or PodPending,
// Unknown after the first kill.
func (l *linter) actionsByEvent(pp *field.Path, p vcjob.LifecyclePolicy, live []firing) {
	byEvent := map[vcjob.Event][]firing{}
	for _, f := range live {
		byEvent[f.event] = append(byEvent[f.event], f)
	}
	if p.Action == vcjob.RestartPodAction {
		for _, f := range byEvent[vcjob.PodEvictedEvent] {
			if !f.viaAny {
				l.add(pp.Child("action"), CodeRestartPodOnEvicted,
					"on PodEvicted the pod is already gone: RestartPod kills nothing and only counts a retry (the next sync recreates the pod with or without this policy)")
				break
			}
		}
	}
	if fs := byEvent[vcjob.PodPendingEvent]; len(fs) > 0 && p.Timeout != nil && p.Timeout.Duration < MinPendingTimeout {
		d := p.Timeout.Duration
		when := fmt.Sprintf("after only %s", d)
		if d <= 0 {
			when = "at once"
		}
		l.add(pp.Child("timeout"), CodeShortPendingTimeout,
			"%s runs %s on every pod that stays Pending; pulling an image alone often takes longer than %s", p.Action, when, MinPendingTimeout)
	}
	for _, f := range byEvent[vcjob.TaskCompletedEvent] {
		if f.viaAny && p.Action != vcjob.CompleteJobAction {
			l.add(f.path, CodeAnyEventCatchesTaskCompleted,
				"\"*\" also matches TaskCompleted: when all pods of a task succeed the job gets %s instead of completing", p.Action)
			break
		}
	}
	for _, f := range byEvent[vcjob.PodPendingEvent] {
		if f.viaAny {
			l.add(pp.Child("timeout"), CodeAnyEventTimeoutArmsPending,
				"\"*\" with a timeout also matches PodPending: every pod creation schedules %s, cancelled only when that pod leaves Pending", p.Action)
			break
		}
	}
	for _, f := range byEvent[vcjob.JobUnknownEvent] {
		if !f.viaAny {
			l.add(f.path, CodeUnknownOnlyBeforeFirstKill,
				"Unknown comes from the PodGroup with job version 0: once the job has been killed (restarted, aborted, ...) it is stale and only syncs")
			break
		}
	}
}

// impossibleFirings lints triggers whose pod phase the task's restart
// policy makes impossible: an exit code, TaskCompleted or TaskFailed no
// pod of the task can ever raise.
func (l *linter) impossibleFirings(pp *field.Path, p vcjob.LifecyclePolicy, live []firing) {
	inPlace := func(r corev1.RestartPolicy) bool { return r != corev1.RestartPolicyNever }
	var codeFirings, completed, failed []firing
	for _, f := range live {
		switch {
		case f.exitCode != nil:
			codeFirings = append(codeFirings, f)
		case f.viaAny:
		case f.event == vcjob.TaskCompletedEvent:
			completed = append(completed, f)
		case f.event == vcjob.TaskFailedEvent:
			failed = append(failed, f)
		}
	}
	if names, ok := l.allTasks(codeFirings, inPlace); ok {
		l.add(pp.Child("exitCode"), CodeExitCodeRestartsInPlace,
			"task %s restarts a failed container in place, so a container exiting %d does not fail the pod (its restart count grows: see TaskFailed); the pod fails only when the kubelet gives up on it (eviction, deadline); use restartPolicy Never", names, *p.ExitCode)
	}
	if names, ok := l.allTasks(completed, func(r corev1.RestartPolicy) bool { return r == corev1.RestartPolicyAlways }); ok {
		l.add(completed[0].path, CodeTaskCompletedNeverRaised,
			"task %s restarts containers even after they succeed, so its pods never succeed and TaskCompleted is never raised", names)
	}
	if names, ok := l.allTasks(failed, func(r corev1.RestartPolicy) bool { return r == corev1.RestartPolicyNever }); ok {
		l.add(failed[0].path, CodeTaskFailedNeverRaised,
			"task %s never restarts containers, so their restart counts stay 0 and TaskFailed is never raised (a failed pod raises PodFailed)", names)
	}
}

// allTasks reports whether every firing names a task whose restart policy
// is bad, with those tasks and policies listed; false for no firings.
func (l *linter) allTasks(fs []firing, bad func(corev1.RestartPolicy) bool) (string, bool) {
	if len(fs) == 0 {
		return "", false
	}
	var names []string
	for _, f := range fs {
		if f.task < 0 || !bad(l.a.restartPolicy(f.task)) {
			return "", false
		}
		names = appendUnique(names, fmt.Sprintf("%q (%s)", l.a.taskName(f.task), l.a.restartPolicy(f.task)))
	}
	return strings.Join(names, ", "), true
}

func appendUnique(s []string, v string) []string {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

func appendUniqueInt(s []int, v int) []int {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

func joinActions(as []vcjob.Action) string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = string(a)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}
