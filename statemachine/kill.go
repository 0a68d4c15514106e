package statemachine

import (
	"errors"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/jobinfo"
	"github.com/vcjob/vcjob/partition"
	"github.com/vcjob/vcjob/plugins"
	"github.com/vcjob/vcjob/request"
)

// KillPlan is what KillJob or KillTarget does: mark each pod of Delete
// out-of-sync (the volcano.sh/controller-out-of-sync annotation, so events
// about it are ignored) and delete it, then hand the results to Complete
// for the status to write.
type KillPlan struct {
	// Noop: nothing at all happens, not even a status write (the job is
	// being deleted, or a partition target names no pod).
	Noop bool `json:"noop,omitempty"`
	// Target is JobLevel for KillJob.
	Target request.Target `json:"target"`
	// Delete lists the pods to kill, sorted by name.
	Delete []*corev1.Pod `json:"delete,omitempty"`
	// BumpVersion: a whole-job kill moves status.version on by one, so
	// requests raised about the old pods are recognised as stale.
	BumpVersion bool `json:"bumpVersion,omitempty"`
	// DeletePodGroup: a whole-job kill removes the PodGroup; a targeted
	// kill keeps it.
	DeletePodGroup bool `json:"deletePodGroup,omitempty"`
	// Objects are what the plugins' OnJobDelete want applied or deleted,
	// before the status is written.
	Objects plugins.Objects `json:"-"`
	// Err is a plugin's error: the call stops with it, before the status
	// is written.
	Err error `json:"-"`
	// Counted are the Succeeded and Failed pods the kill leaves alone and
	// still counts by phase (behavior.CountFinishedAfterKill);
	// Volcano counts none of them.
	Counted []*corev1.Pod `json:"-"`

	job         *vcjob.Job
	terminating int32
}

// PlanKillJob plans a whole-job kill: every pod not already terminating is
// killed unless retain keeps its phase. On the last retry (retryCount ≥
// maxRetry−1) the retain set is always soft, so a job about to fail keeps
// its finished pods.
func PlanKillJob(ji *jobinfo.Info, retain Retain) *KillPlan {
	return PlanKillJobWith(ji, retain, PlanOptions{})
}

// PlanKillJobWith is PlanKillJob with the job's plugins.
func PlanKillJobWith(ji *jobinfo.Info, retain Retain, opts PlanOptions) *KillPlan {
	p := planKillJob(ji, retain)
	p.countFinished(ji, opts)
	p.runOnJobDelete(opts)
	return p
}

func planKillJob(ji *jobinfo.Info, retain Retain) *KillPlan {
	if ji == nil || ji.Job == nil {
		return &KillPlan{Noop: true, Err: ErrNoJob}
	}
	job := ji.Job
	p := &KillPlan{Target: request.Target{Level: vcjob.JobLevel}, job: job}
	if job.DeletionTimestamp != nil {
		p.Noop = true
		return p
	}
	p.BumpVersion, p.DeletePodGroup = true, true
	if job.Status.RetryCount >= job.Spec.MaxRetry-1 {
		retain = RetainSoft
	}
	// A whole-job kill looks at every pod: what it deletes is most of them.
	for _, pod := range ji.Pods() {
		switch {
		case pod.DeletionTimestamp != nil:
			p.terminating++
		case !retain.Keeps(pod.Status.Phase):
			p.Delete = append(p.Delete, pod)
		}
	}
	sortPods(p.Delete)
	return p
}

// PlanKillTarget plans a targeted kill: every pod of the target task, pod
// or partition that is not already terminating, whatever its phase. A
// partition target without a partition policy, or naming an empty or
// unknown partition, is a no-op. A task or pod target that names nothing
// still goes on (and so still restarts the job with nothing killed).
func PlanKillTarget(ji *jobinfo.Info, target request.Target) *KillPlan {
	return PlanKillTargetWith(ji, target, PlanOptions{})
}

// PlanKillTargetWith is PlanKillTarget with the job's plugins.
func PlanKillTargetWith(ji *jobinfo.Info, target request.Target, opts PlanOptions) *KillPlan {
	p := planKillTarget(ji, target, opts.Recount)
	p.countFinished(ji, opts)
	p.runOnJobDelete(opts)
	return p
}

// countFinished lists, under behavior.CountFinishedAfterKill, the
// finished pods the kill leaves alone, for Complete to count.
func (p *KillPlan) countFinished(ji *jobinfo.Info, opts PlanOptions) {
	if p.Noop || !opts.Behavior.Has(behavior.CountFinishedAfterKill) {
		return
	}
	p.Counted = countFinishedAfterKill(ji, p.Delete)
}

// runOnJobDelete runs the plugins' OnJobDelete on the plan's own copy of
// the job, whose status the plan then writes.
func (p *KillPlan) runOnJobDelete(opts PlanOptions) {
	if p.Noop || len(opts.Plugins) == 0 {
		return
	}
	p.job = p.job.DeepCopy()
	for _, pl := range opts.Plugins {
		objs, err := pl.OnJobDelete(p.job)
		if err != nil {
			p.Err = fmt.Errorf("plugin %s: %w", pl.Name(), err)
			return
		}
		merge(&p.Objects, objs)
	}
}

func planKillTarget(ji *jobinfo.Info, target request.Target, recount bool) *KillPlan {
	if ji == nil || ji.Job == nil {
		return &KillPlan{Noop: true, Err: ErrNoJob}
	}
	job := ji.Job
	p := &KillPlan{Target: target, job: job}
	if job.DeletionTimestamp != nil {
		p.Noop = true
		return p
	}
	var pods []*corev1.Pod
	switch target.Level {
	case vcjob.TaskLevel:
		pods = ji.Task(target.TaskName).Sorted()
	case vcjob.PodLevel:
		if pod := ji.Pod(target.TaskName, target.PodName); pod != nil {
			pods = append(pods, pod)
		}
	case vcjob.PartitionLevel:
		task := job.Task(target.TaskName)
		if recount {
			pods = partition.Members(ji.Task(target.TaskName).All(), target.PartitionID)
		} else {
			pods = ji.Task(target.TaskName).Partition(target.PartitionID)
		}
		if task == nil || task.PartitionPolicy == nil || len(pods) == 0 {
			p.Noop = true
			return p
		}
	default:
		// A job-level (or unknown) target names no pod: like Volcano's
		// targeted kill of an unknown target type, it kills nothing. A
		// whole-job kill is KillJob's, never KillTarget's.
	}
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil {
			p.terminating++
		} else {
			p.Delete = append(p.Delete, pod)
		}
	}
	sortPods(p.Delete)
	return p
}

// Complete computes the status once the deletes are done; failed maps the
// name of each pod whose delete failed to its error. Only those pods are
// counted by phase (retained and untouched pods are not counted at all);
// terminating is the pods deleted plus those already terminating. The
// status is written even when the phase did not change.
func (p *KillPlan) Complete(failed map[string]error, update UpdateStatusFunc, now metav1.Time) Outcome {
	if p.job == nil {
		return Outcome{Err: ErrNoJob}
	}
	if p.Noop {
		return Outcome{Status: *p.job.Status.DeepCopy()}
	}
	c := counts{terminating: p.terminating}
	for _, pod := range p.Counted {
		c.add(pod)
	}
	var errs []error
	for _, pod := range p.Delete {
		if err := failed[pod.Name]; err != nil {
			errs = append(errs, fmt.Errorf("delete pod %s: %w", pod.Name, err))
			c.add(pod)
			continue
		}
		c.terminating++
	}
	status := *p.job.Status.DeepCopy()
	if len(errs) > 0 {
		return Outcome{Status: status, Err: errors.Join(errs...)}
	}
	if p.Err != nil {
		return Outcome{Status: status, Err: p.Err}
	}
	if p.BumpVersion {
		status.Version++
	}
	_ = c.apply(&status, status.TaskStatusCount)
	out := Outcome{DeletePodGroup: p.DeletePodGroup, Write: true}
	if update != nil && update(&status) {
		enterPhase(&status, now)
		out.PhaseChanged = true
	}
	out.Status = status
	return out
}

func sortPods(pods []*corev1.Pod) {
	if len(pods) < 2 {
		return
	}
	sort.Slice(pods, func(i, j int) bool { return pods[i].Name < pods[j].Name })
}
