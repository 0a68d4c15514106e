package lint

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/validation"
)

// Checks stricter than Volcano's admission: validation admits what they
// find, as Volcano does, and Lint says what will go wrong.
const (
	CodeExitCodeWithoutAction       = "exit-code-without-action"
	CodeTopologyPolicyNotGuaranteed = "topology-policy-not-guaranteed"
	CodePodNameTooLong              = "pod-name-too-long"
	CodeCronScheduleNeverFires      = "cron-schedule-never-fires"
	CodeCronJobTemplateInvalid      = "cron-job-template-invalid"
	CodeCronTimeZoneUnset           = "cron-time-zone-unset"
	CodeCronForbidAbortedRun        = "cron-forbid-aborted-run"
)

// admission lints what Volcano admits but should not have (package
// validation admits it too).
func (l *linter) admission() {
	job := l.a.defaulted
	for i := range job.Spec.Tasks {
		task := &job.Spec.Tasks[i]
		taskPath := field.NewPath("spec", "tasks").Index(i)
		l.podNames(job, task, i, taskPath)
		l.topologyQoS(task, taskPath)
	}
}

func (l *linter) exitCodeWithoutAction(p *vcjob.LifecyclePolicy, pp *field.Path) {
	if p.ExitCode != nil && p.Action == "" && p.Event == "" && len(p.Events) == 0 {
		l.add(pp.Child("action"), CodeExitCodeWithoutAction,
			"the policy for exit code %d has no action: Volcano admits it, and a pod failing with %d resolves to the empty action, which the state machine treats as any other (a sync in Pending and Running, a whole-job kill in Restarting), and later PodFailed policies of this list do not see that pod; name an action",
			*p.ExitCode, *p.ExitCode)
	}
}

func (l *linter) podNames(job *vcjob.Job, task *vcjob.TaskSpec, i int, taskPath *field.Path) {
	name := job.Name
	if name == "" {
		name = job.GenerateName + "xxxxx"
	}
	if task.Replicas <= 0 {
		return
	}
	// The webhook already refuses the name with the task's position.
	if len(content.IsQualifiedName(vcjob.PodName(name, task.Name, i))) > 0 {
		return
	}
	highest := vcjob.PodName(name, task.Name, int(task.Replicas)-1)
	if msgs := content.IsQualifiedName(highest); len(msgs) > 0 {
		l.add(taskPath.Child("name"), CodePodNameTooLong,
			"pod name %q (replica %d) is not a qualified name (%s): Volcano's webhook checks only %q, so the job is admitted, but that pod cannot be created (its hostname must be a DNS label); shorten the job or task name",
			highest, task.Replicas-1, strings.Join(msgs, "; "), vcjob.PodName(name, task.Name, i))
	}
}

func (l *linter) topologyQoS(task *vcjob.TaskSpec, taskPath *field.Path) {
	switch task.TopologyPolicy {
	case vcjob.NumaPolicyBestEffort, vcjob.NumaPolicyRestricted, vcjob.NumaPolicySingleNumaNode:
	default:
		return
	}
	if qos := qosClass(&task.Template.Spec); qos != corev1.PodQOSGuaranteed {
		l.add(taskPath.Child("topologyPolicy"), CodeTopologyPolicyNotGuaranteed,
			"topologyPolicy %s on %s pods: Volcano admits it, but the kubelet's CPU and topology managers act only on Guaranteed pods (cpu and memory limits on every container, requests equal to limits), so the pods get no NUMA alignment",
			task.TopologyPolicy, qos)
	}
}

// qosClass is the pod QoS class as Kubernetes computes it: only cpu and
// memory count; a container without requests requests its limits;
// Guaranteed needs both limited in every container and requests equal to
// limits.
func qosClass(spec *corev1.PodSpec) corev1.PodQOSClass {
	requests, limits := corev1.ResourceList{}, corev1.ResourceList{}
	guaranteed, any := true, false
	for _, c := range append(append([]corev1.Container(nil), spec.Containers...), spec.InitContainers...) {
		req := c.Resources.Requests
		if len(req) == 0 {
			req = c.Resources.Limits
		}
		limited := 0
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			if q, ok := req[name]; ok && q.Sign() > 0 {
				any = true
				sum := requests[name]
				sum.Add(q)
				requests[name] = sum
			}
			if q, ok := c.Resources.Limits[name]; ok && q.Sign() > 0 {
				any = true
				limited++
				sum := limits[name]
				sum.Add(q)
				limits[name] = sum
			}
		}
		if limited < 2 {
			guaranteed = false
		}
	}
	if !any {
		return corev1.PodQOSBestEffort
	}
	if guaranteed && len(requests) == len(limits) {
		for name, req := range requests {
			if lim, ok := limits[name]; !ok || lim.Cmp(req) != 0 {
				guaranteed = false
			}
		}
		if guaranteed {
			return corev1.PodQOSGuaranteed
		}
	}
	return corev1.PodQOSBurstable
}

// cronJobNameSample stands for the "-<scheduled minute>" suffix of a run's
// Job name: eight digits, the width of minutes since the epoch until 2160.
const cronJobNameSample = "-99999999"

// LintCronJob reports what Volcano admits of a CronJob but will not work,
// or works otherwise than it reads: a schedule that never fires; no
// timeZone, which Volcano's controller reads as its own process's zone;
// Forbid with a template that can abort, whose Aborted run Volcano keeps
// active for good; and a job template that Volcano's Job webhook refuses
// (each error of validation.ValidateJob on the Job a run creates, named
// <cronjob>-<minute> and defaulted), plus Lint's findings on that Job, all
// under spec.jobTemplate.
func LintCronJob(cj *vcjob.CronJob) []Finding {
	if cj == nil {
		return nil
	}
	var l linter
	if cj.Spec.TimeZone == nil && !strings.Contains(cj.Spec.Schedule, "TZ") {
		l.add(field.NewPath("spec", "timeZone"), CodeCronTimeZoneUnset,
			"no timeZone: Volcano runs %q in the zone of its controller process (its TZ, often UTC) and writes each run's scheduled-timestamp annotation in UTC; set timeZone to say which zone is meant", cj.Spec.Schedule)
	}
	if cj.Spec.ConcurrencyPolicy == vcjob.ForbidConcurrent {
		if path := abortPolicy(&cj.Spec.JobTemplate.Spec); path != nil {
			l.add(path, CodeCronForbidAbortedRun,
				"a run can end Aborted (AbortJob), and Volcano's CronJob controller counts an Aborted job as running: under Forbid it holds every later run back until the job is resumed or deleted")
		}
	}
	if sched, err := cron.ParseStandard(cj.Spec.Schedule); err == nil && !strings.Contains(cj.Spec.Schedule, "TZ") {
		// robfig/cron looks five years ahead: from 1970 that includes a
		// 29 February, so only a date that never exists finds nothing.
		if sched.Next(time.Unix(0, 0).UTC()).IsZero() {
			l.add(field.NewPath("spec", "schedule"), CodeCronScheduleNeverFires,
				"schedule %q names a date that never exists: Volcano admits the CronJob, and it never runs", cj.Spec.Schedule)
		}
	}

	name := cj.Name
	if name == "" {
		name = cj.GenerateName + "xxxxx"
	}
	job := &vcjob.Job{
		ObjectMeta: *cj.Spec.JobTemplate.ObjectMeta.DeepCopy(),
		Spec:       *cj.Spec.JobTemplate.Spec.DeepCopy(),
	}
	job.Name, job.GenerateName, job.Namespace = name+cronJobNameSample, "", cj.Namespace
	vcjob.SetDefaults(job)
	for _, err := range validation.ValidateJob(job) {
		if !strings.HasPrefix(err.Field, "spec") {
			continue // the job name: the CronJob's own name rules cover it
		}
		l.add(field.NewPath("spec", "jobTemplate"), CodeCronJobTemplateInvalid, "%s", fmt.Sprintf(
			"every run's Job is refused by Volcano's Job webhook: spec.jobTemplate.%s", err.Error()))
	}
	for _, f := range Lint(job) {
		f.Path = "spec.jobTemplate." + f.Path
		l.out = append(l.out, f)
	}
	return l.out
}

// abortPolicy is the path of the template's first AbortJob action, nil for
// none.
func abortPolicy(spec *vcjob.JobSpec) *field.Path {
	base := field.NewPath("spec", "jobTemplate", "spec")
	for i, p := range spec.Policies {
		if p.Action == vcjob.AbortJobAction {
			return base.Child("policies").Index(i).Child("action")
		}
	}
	for t := range spec.Tasks {
		for i, p := range spec.Tasks[t].Policies {
			if p.Action == vcjob.AbortJobAction {
				return base.Child("tasks").Index(t).Child("policies").Index(i).Child("action")
			}
		}
	}
	return nil
}
