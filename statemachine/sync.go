package statemachine

import (
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/jobinfo"
	"github.com/vcjob/vcjob/plugins"
	"github.com/vcjob/vcjob/podgroup"
)

// PodGroupState is the job's PodGroup as the controller's lister sees it at
// the start of a step.
type PodGroupState struct {
	Exists bool
	Phase  podgroup.Phase
	// Conditions are the PodGroup's status conditions; only the
	// PodGroupPending Event reads them (PodGroupPendingEvent). An Applier
	// may share them with its lister's object: nobody changes them.
	Conditions []podgroup.Condition
}

// SyncPlan is what SyncJob does. In order: write InitStatus if set; ensure
// the PodGroup (create it when missing, else update it); then, when
// Reconcile, create the pods of Create and, only if every create
// succeeded, delete the pods of Delete; then hand the results to Complete
// for the status to write.
type SyncPlan struct {
	// Noop: the job is being deleted; nothing happens.
	Noop bool `json:"noop,omitempty"`
	// Initiate: the job has not been initiated (phase empty or Pending):
	// plugins' OnJobAdd run and the job's volume claims are ensured.
	// Otherwise plugins' OnJobUpdate run.
	Initiate bool `json:"initiate,omitempty"`
	// InitStatus is written at once, before anything else, when the job has
	// no phase yet: Pending, minAvailable from the spec, a Pending condition.
	InitStatus *vcjob.JobStatus `json:"initStatus,omitempty"`
	// Reconcile: the PodGroup admits pods (its phase is neither missing,
	// empty nor Pending), so pods are created, deleted and counted. Without
	// it the phase is re-judged on the stored counts.
	Reconcile bool `json:"reconcile"`
	// Create holds the rendered pods to create, by task in spec order and
	// by index.
	Create []*corev1.Pod `json:"create,omitempty"`
	// Delete holds out-of-sync pods and pods beyond the replica count,
	// sorted by name.
	Delete []*corev1.Pod `json:"delete,omitempty"`
	// Waiting lists the tasks whose dependsOn is not met: their missing
	// pods are neither created nor counted this time.
	Waiting []string `json:"waiting,omitempty"`
	// HeldUntil, when set, is the end of the restart backoff
	// (policy.RestartBackoff): no pod is created before it. Sync again
	// then.
	HeldUntil *metav1.Time `json:"heldUntil,omitempty"`
	// PodGroup is the PodGroup the job wants: create it when missing,
	// else update it when podgroup.Update says so.
	PodGroup *podgroup.PodGroup `json:"podGroup,omitempty"`
	// Objects are what the plugins' OnJobAdd (Initiate) or OnJobUpdate
	// want applied or deleted, before the PodGroup.
	Objects plugins.Objects `json:"-"`
	// Claims are the volume claims to ensure (Initiate only), before the
	// PodGroup.
	Claims []Claim `json:"claims,omitempty"`
	// UpdateJob, when set, is the job with the claim names generated for
	// its volumes (Claims): its spec is written back (an update of the
	// job, not of its status) after the claims, before the PodGroup.
	UpdateJob *vcjob.Job `json:"-"`
	// Err is a plugin's error (OnJobAdd, OnJobUpdate) or a failed claim
	// lookup: after InitStatus is written, the call stops with it.
	Err error `json:"-"`
	// RenderErr is a plugin's OnPodCreate error: the objects, claims, job
	// and PodGroup are applied, as Volcano has done them by then, and the
	// call stops with it; no pod is created or deleted, no status written.
	RenderErr error `json:"-"`

	// errReason and errCause are the Event of Err (ReasonPluginError or
	// ReasonPVCError) and the error it names, unwrapped, as Volcano has
	// it.
	errReason string
	errCause  error

	job     *vcjob.Job
	c       counts
	scratch vcjob.JobStatus
}

// PlanSync plans SyncJob for the job in ji with its PodGroup as pg,
// without plugins.
func PlanSync(ji *jobinfo.Info, pg PodGroupState, now metav1.Time) *SyncPlan {
	return PlanSyncWith(ji, pg, now, PlanOptions{})
}

// PlanSyncWith plans SyncJob with the job's plugins and priorities.
func PlanSyncWith(ji *jobinfo.Info, pg PodGroupState, now metav1.Time, opts PlanOptions) *SyncPlan {
	p := &SyncPlan{}
	planSync(p, ji, pg, now, opts)
	return p
}

// planSync plans into p, which must be zero: Applied plans into one plan
// of its own, call after call, rather than allocate one per sync.
func planSync(p *SyncPlan, ji *jobinfo.Info, pg PodGroupState, now metav1.Time, opts PlanOptions) *SyncPlan {
	if ji == nil || ji.Job == nil {
		p.Noop, p.Err = true, ErrNoJob
		return p
	}
	p.job = ji.Job
	if ji.Job.DeletionTimestamp != nil {
		p.Noop = true
		return p
	}
	job := p.initiate(ji.Job, now, opts)
	if !p.runPlugins(job, opts.Plugins) {
		return p
	}
	if len(job.Spec.Volumes) > 0 {
		// One source for the plan, claims first, then pods, as Volcano
		// draws them.
		opts.Names = namesFor(opts.Names, string(job.UID))
	}
	if p.Initiate && !p.planClaims(job, &opts) {
		return p
	}
	p.PodGroup = opts.PodGroup
	if p.PodGroup == nil {
		desired := podgroup.DesiredWith(job, opts.podGroupOptions())
		p.PodGroup = &desired
	}
	p.Reconcile = podgroup.ReconcilesPods(pg.Phase, pg.Exists)
	if !p.Reconcile {
		return p
	}
	if opts.Extensions != nil && opts.Extensions.RestartBackoff != nil {
		if until, held := opts.Extensions.RestartBackoff.HoldCreatesUntil(ji.Job, now.Time); held {
			t := metav1.NewTime(until)
			p.HeldUntil = &t
		}
	}
	p.planPods(ji, job, opts)
	return p
}

// initiate sets Initiate for a job not initiated yet and, for a job with
// no phase, the initial status. It returns the job the rest of the plan
// works on.
func (p *SyncPlan) initiate(job *vcjob.Job, now metav1.Time, opts PlanOptions) *vcjob.Job {
	if job.Status.State.Phase == "" || job.Status.State.Phase == vcjob.Pending {
		p.Initiate = true
	}
	if job.Status.State.Phase == "" || len(opts.Plugins) > 0 || p.Initiate && len(job.Spec.Volumes) > 0 {
		// The plan works on its own copy: the initial status, plugin hooks
		// and claims record what the job controls in its status.
		job = job.DeepCopy()
		p.job = job
	}
	if job.Status.State.Phase == "" {
		job.Status.State.Phase = vcjob.Pending
		job.Status.MinAvailable = job.Spec.MinAvailable
		enterPhase(&job.Status, now)
		p.InitStatus = job.Status.DeepCopy()
	}
	return job
}

// runPlugins runs the plugins' OnJobAdd (Initiate) or OnJobUpdate, merging
// the objects they want; false, with p.Err set, at the first error.
func (p *SyncPlan) runPlugins(job *vcjob.Job, ps []plugins.Plugin) bool {
	for _, pl := range ps {
		var objs plugins.Objects
		var err error
		if p.Initiate {
			objs, err = pl.OnJobAdd(job)
		} else {
			objs, err = pl.OnJobUpdate(job)
		}
		if err != nil {
			p.Err = fmt.Errorf("plugin %s: %w", pl.Name(), err)
			p.errReason, p.errCause = ReasonPluginError, err
			return false
		}
		merge(&p.Objects, objs)
	}
	return true
}

// planClaims plans the job's volume claims, and the job's update when
// claim names were generated; false, with p.Err set, when a claim cannot
// be looked up.
func (p *SyncPlan) planClaims(job *vcjob.Job, opts *PlanOptions) bool {
	var generated bool
	var err error
	p.Claims, generated, err = claims(job, opts)
	if err != nil {
		p.Err = err
		p.errReason, p.errCause = ReasonPVCError, errors.Unwrap(err)
		return false
	}
	if generated {
		p.UpdateJob = job
	}
	return true
}

// planPods counts each task's pods and plans the creates and deletes:
// the missing pods of tasks whose dependencies are met (none while the
// restart backoff holds), the out-of-sync pods and those beyond the
// replicas.
func (p *SyncPlan) planPods(ji *jobinfo.Info, job *vcjob.Job, opts PlanOptions) {
	for ti := range job.Spec.Tasks {
		task := &job.Spec.Tasks[ti]
		var missing []int
		waiting := false
		// The counts are taken against the first task of a name; a second
		// task of the same name (which validation refuses) is walked.
		if first := ji.Job.Task(task.Name); opts.Recount || first == nil || first.Replicas != task.Replicas {
			missing = p.walkTask(ji, job, task, opts.Behavior.Has(behavior.OutOfSyncCountedOnce))
		} else {
			missing, waiting = p.countTask(ji, task, opts)
		}
		if waiting {
			p.Waiting = append(p.Waiting, task.Name)
			continue
		}
		if len(missing) == 0 || p.HeldUntil != nil {
			continue
		}
		// Plugins see every missing pod, even of a task still waiting on
		// its dependencies, as in Volcano.
		create := p.render(job, task, missing, opts)
		if p.RenderErr != nil {
			// Volcano renders every pod before it creates any: nothing
			// is created or deleted.
			p.Create, p.Delete, p.Waiting = nil, nil, nil
			return
		}
		if dependsOnMet(ji, task, opts.Recount) {
			p.Create = append(p.Create, create...)
		} else {
			p.Waiting = append(p.Waiting, task.Name)
		}
	}
	sortPods(p.Delete)
}

// walkTask counts and sorts a task's pods by walking them, as Volcano does,
// and returns the indices of its missing pods.
// With once (behavior.OutOfSyncCountedOnce) an out-of-sync pod is not
// counted by its phase.
func (p *SyncPlan) walkTask(ji *jobinfo.Info, job *vcjob.Job, task *vcjob.TaskSpec, once bool) []int {
	pods := ji.Task(task.Name)
	seen := make(map[string]bool, pods.Len())
	var missing []int
	for i := 0; i < int(task.Replicas); i++ {
		name := vcjob.PodName(job.Name, task.Name, i)
		pod := pods.Get(name)
		if pod == nil {
			missing = append(missing, i)
			continue
		}
		seen[name] = true
		if pod.DeletionTimestamp != nil {
			p.c.terminating++
			continue
		}
		// An out-of-sync pod inside the replica range is deleted and still
		// counted by its phase: Volcano counts it twice, once here and once
		// as terminating when the delete succeeds.
		if pod.Annotations[vcjob.PodOutOfSyncKey] == "true" {
			p.Delete = append(p.Delete, pod)
			if once {
				continue // counted once, as terminating once deleted
			}
		}
		p.c.add(pod)
	}
	// Pods beyond the replica count go, even those already terminating;
	// they count only as terminating.
	for name, pod := range pods.All() {
		if !seen[name] {
			p.Delete = append(p.Delete, pod)
		}
	}
	return missing
}

// countTask is walkTask read from the task's counts: O(1), and O(missing)
// when pods are missing and are to be rendered; waiting reports a task
// held back by dependsOn, whose pods need no rendering when there are no
// plugins to see them.
func (p *SyncPlan) countTask(ji *jobinfo.Info, task *vcjob.TaskSpec, opts PlanOptions) (missing []int, waiting bool) {
	tp := ji.Task(task.Name)
	c := tp.Counts()
	p.c.terminating += c.Terminating
	oos := tp.OutOfSync()
	if opts.Behavior.Has(behavior.OutOfSyncCountedOnce) {
		outOfSyncCountedOnce(&c.Phases, oos)
	}
	p.c.addCounts(task.Name, &c.Phases)
	p.Delete = append(p.Delete, oos...)
	p.Delete = append(p.Delete, tp.Excess()...)
	if c.InRange >= task.Replicas {
		return nil, false
	}
	if len(opts.Plugins) == 0 && !dependsOnMet(ji, task, false) {
		return nil, true
	}
	if tp.Len() > 0 {
		return tp.Missing(), false
	}
	for i := 0; i < int(task.Replicas); i++ {
		missing = append(missing, i)
	}
	return missing, false
}

// render makes the pods at the missing indices and runs the plugins'
// OnPodCreate on each.
func (p *SyncPlan) render(job *vcjob.Job, task *vcjob.TaskSpec, missing []int, opts PlanOptions) []*corev1.Pod {
	out := make([]*corev1.Pod, 0, len(missing))
	for _, i := range missing {
		pod := RenderPodWith(job, task, i, opts)
		for _, pl := range opts.Plugins {
			if err := pl.OnPodCreate(pod, job); err != nil {
				p.RenderErr = fmt.Errorf("plugin %s on pod %s: %w", pl.Name(), pod.Name, err)
				return nil
			}
		}
		out = append(out, pod)
	}
	return out
}

// DependsOnMet reports whether task's dependencies are ready: with
// iteration any and more than one name, any one of them; otherwise all.
func DependsOnMet(ji *jobinfo.Info, task *vcjob.TaskSpec) bool {
	return dependsOnMet(ji, task, false)
}

func dependsOnMet(ji *jobinfo.Info, task *vcjob.TaskSpec, recount bool) bool {
	if task.DependsOn == nil {
		return true
	}
	ready := TaskReady
	if recount {
		ready = taskReadyWalk
	}
	d := task.DependsOn
	if len(d.Name) > 1 && d.Iteration == vcjob.IterationAny {
		for _, name := range d.Name {
			if ready(ji, name) {
				return true
			}
		}
		return false
	}
	for _, name := range d.Name {
		if !ready(ji, name) {
			return false
		}
	}
	return true
}

// TaskReady reports whether task counts as ready for its dependents: its
// Running pods whose containers are all ready plus its Succeeded pods reach
// its minAvailable. Only the pods <job>-<task>-<i> for i below replicas are
// looked at; missing ones are skipped. A task with minAvailable 0 (or none)
// is always ready.
func TaskReady(ji *jobinfo.Info, name string) bool {
	task := ji.Job.Task(name)
	if task == nil {
		return false
	}
	return task.MinAvailable == nil || ji.Task(name).Counts().Ready >= *task.MinAvailable
}

// taskReadyWalk is TaskReady by walking the task's pods.
func taskReadyWalk(ji *jobinfo.Info, name string) bool {
	task := ji.Job.Task(name)
	if task == nil {
		return false
	}
	pods := ji.Task(name)
	var ready int32
	for i := 0; i < int(task.Replicas); i++ {
		pod := pods.Get(vcjob.PodName(ji.Job.Name, name, i))
		if pod == nil {
			continue
		}
		switch pod.Status.Phase {
		case corev1.PodSucceeded:
			ready++
		case corev1.PodRunning:
			if allContainersReady(pod) {
				ready++
			}
		}
	}
	return task.MinAvailable == nil || ready >= *task.MinAvailable
}

func allContainersReady(pod *corev1.Pod) bool {
	for _, cs := range pod.Status.ContainerStatuses {
		if !cs.Ready {
			return false
		}
	}
	return true
}

// Complete computes the status once the pod operations are done; failed
// maps the name of each pod whose create or delete failed to its error.
func (p *SyncPlan) Complete(failed map[string]error, update UpdateStatusFunc, now metav1.Time) Outcome {
	if p.job == nil {
		return Outcome{Err: ErrNoJob}
	}
	// stored is read, never changed: the status built here shares its
	// conditions and maps until a change replaces them.
	stored := &p.job.Status
	if p.Noop {
		return Outcome{Status: *stored.DeepCopy()}
	}
	if p.Err != nil {
		return Outcome{Status: *stored.DeepCopy(), Err: p.Err}
	}
	if !p.Reconcile {
		return rejudged(stored, update, now)
	}
	if err := p.podErrors(failed); err != nil {
		return Outcome{Status: *stored.DeepCopy(), Err: err}
	}
	c := &p.c
	if len(p.Create) > 0 {
		// Counting the created pods must leave the plan's counts alone.
		own := p.c
		own.tasks = slices.Clone(p.c.tasks)
		c = &own
	}
	for _, pod := range p.Create {
		// The API server hands a new pod back Pending.
		c.addPhase(pod.Annotations[vcjob.TaskSpecKey], corev1.PodPending)
	}
	// The status is built in the plan's scratch: the compiler cannot see
	// that the update function does not keep its argument (it must not),
	// and a local would be moved to the heap on every sync.
	status := &p.scratch
	*status = vcjob.JobStatus{
		State:               stored.State,
		MinAvailable:        p.job.Spec.MinAvailable,
		Version:             stored.Version,
		RetryCount:          stored.RetryCount,
		RunningDuration:     stored.RunningDuration,
		ControlledResources: stored.ControlledResources,
		Conditions:          stored.Conditions,
	}
	kept := c.apply(status, stored.TaskStatusCount)
	// The deleted pods count as terminating; added here, not to c, so that
	// the plan's counts stay as planned and Complete may be called again.
	status.Terminating += int32(len(p.Delete))
	out := Outcome{}
	out.PhaseChanged = update != nil && update(status)
	// Any change of the status, even one that keeps the phase, is recorded
	// as an entry into the current phase.
	if out.PhaseChanged || !statusEqualTasks(status, stored, kept) {
		enterPhase(status, now)
		out.Write = true
	}
	out.Status = *status
	return out
}

// rejudged is the outcome of a sync that reconciled no pods: the phase
// re-judged on the stored counts.
func rejudged(stored *vcjob.JobStatus, update UpdateStatusFunc, now metav1.Time) Outcome {
	status := *stored
	out := Outcome{}
	if update != nil && update(&status) {
		enterPhase(&status, now)
		out.PhaseChanged = true
	}
	out.Status, out.Write = status, !statusEqual(&status, stored)
	return out
}

// podErrors joins the failures of the plan's creates or, when every create
// succeeded, of its deletes; nil when none failed.
func (p *SyncPlan) podErrors(failed map[string]error) error {
	var errs []error
	for _, pod := range p.Create {
		if err := failed[pod.Name]; err != nil {
			errs = append(errs, fmt.Errorf("create pod %s: %w", pod.Name, err))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for _, pod := range p.Delete {
		if err := failed[pod.Name]; err != nil {
			errs = append(errs, fmt.Errorf("delete pod %s: %w", pod.Name, err))
		}
	}
	return errors.Join(errs...)
}
