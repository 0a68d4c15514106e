package statemachine

import (
	"context"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/jobinfo"
	"github.com/vcjob/vcjob/plugins"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/request"
)

// Applier is the handful of API operations the plans need. A controller
// implements it with its clients and listers; memcluster implements it in
// memory. Applied turns it into a Cluster, so the order in which plans are
// applied, and what counts as success, live in one place.
type Applier interface {
	// PodGroupState is the job's PodGroup as the lister sees it now.
	PodGroupState(ctx context.Context, job *vcjob.Job) (PodGroupState, error)
	// ApplyPodGroup creates the desired PodGroup when the job has none
	// (podgroup.Find also looks under the legacy name), else writes
	// podgroup.Update(existing, desired) when it reports a change. desired
	// is shared between calls: do not change it.
	ApplyPodGroup(ctx context.Context, desired *podgroup.PodGroup) error
	// ApplyObjects creates or updates the plugins' objects and deletes the
	// ones they no longer want (NotFound is success).
	ApplyObjects(ctx context.Context, objs plugins.Objects) error
	// EnsureClaim creates a claim that has a Spec when it is missing; a
	// claim without one must exist, else it is an error.
	EnsureClaim(ctx context.Context, job *vcjob.Job, claim Claim) error
	// ClaimExists reports whether a volume claim exists in the namespace
	// (Volcano reads its claim lister): a generated claim name that exists
	// is drawn again.
	ClaimExists(ctx context.Context, namespace, name string) (bool, error)
	// UpdateJob writes the job itself, not its status: Volcano writes the
	// claim names it generated into spec.volumes. As with UpdateStatus,
	// job is the call's own top-level copy: leave it holding what the
	// server returned (its resourceVersion), so that the status written
	// next carries the current version.
	UpdateJob(ctx context.Context, job *vcjob.Job) error
	// DeletePodGroup deletes the job's PodGroup; NotFound is not an error
	// and reports deleted false.
	DeletePodGroup(ctx context.Context, job *vcjob.Job) (deleted bool, err error)
	// CreatePod creates a rendered pod; AlreadyExists counts as success.
	CreatePod(ctx context.Context, pod *corev1.Pod) error
	// DeletePod marks the pod out-of-sync (the volcano.sh/controller-out-of-sync
	// annotation), then deletes it; NotFound counts as success.
	DeletePod(ctx context.Context, pod *corev1.Pod) error
	// UpdateStatus writes the job's status (the status subresource). One
	// SyncJob may write twice (a new job's Pending status, then its
	// counts), so an implementation must leave job holding what the server
	// returned (its resourceVersion and status): the second write then
	// carries the current version instead of failing with a conflict.
	// Applied hands it a copy of the job's top level: assign the fields,
	// do not change the maps and slices they share with the caller's job.
	// status is read-only too: Effects keep it.
	UpdateStatus(ctx context.Context, job *vcjob.Job, status *vcjob.JobStatus) error
}

// Effects is what one cluster call did, for records and explanations.
type Effects struct {
	Call            Call             `json:"call"`
	Created         []string         `json:"created,omitempty"`
	Deleted         []string         `json:"deleted,omitempty"`
	Waiting         []string         `json:"waiting,omitempty"`
	StatusWritten   bool             `json:"statusWritten,omitempty"`
	Status          *vcjob.JobStatus `json:"status,omitempty"`
	PodGroupDeleted bool             `json:"podGroupDeleted,omitempty"`
	// JobWritten: the job's spec was written back (generated claim names).
	JobWritten bool `json:"jobWritten,omitempty"`
	// Warnings are what the job's plugins went past (bad arguments that
	// Volcano logs), one line each.
	Warnings []string `json:"warnings,omitempty"`
	// HeldUntil: the restart backoff held the pods' creation until then
	// (SyncPlan.HeldUntil).
	HeldUntil *metav1.Time `json:"heldUntil,omitempty"`
	// Events are the Kubernetes Events Volcano's job controller records
	// during the call, in its order (see the package doc): Warnings for
	// what failed, and PodGroupPending. Most calls record none, and then
	// nothing is built.
	Events []record.Event `json:"events,omitempty"`
}

// Applied is a Cluster that applies the plans through an Applier and keeps
// the Effects of its last call. It remembers each job's desired PodGroup
// across calls, trusting what the API server promises: a job object is
// never changed in place, and a change of spec bumps metadata.generation. Set Now before each call: it stamps the
// status changes. It is not safe for concurrent use; give each worker its
// own.
type Applied struct {
	Applier Applier
	Now     metav1.Time
	// Plugins builds the job's plugins from its spec.plugins; nil runs
	// none.
	Plugins *plugins.Registry
	// Priorities looks up priority classes for the PodGroup's
	// minResources; nil counts every task as priority 0.
	Priorities podgroup.PriorityLookup
	// Recount plans by walking every pod (PlanOptions.Recount), the
	// oracle, instead of reading the job info's counts.
	Recount bool
	// Names makes the random parts of generated names
	// (PlanOptions.Names); nil seeds one by the job's UID per plan.
	Names NameSource
	// Choices are vcjob's own choices where it departs from Volcano
	// (PlanOptions.Choices); the zero value does what Volcano does.
	Choices Choices
	// Behavior is the embedder's behaviour (the corrections it asks
	// for); each job's behavior.Annotation applies on top. The zero value
	// decides as Volcano does. worker.Step executes under it too.
	Behavior behavior.Set
	// Extensions are the policy extensions of jobs without the
	// policy.ExtensionsAnnotation (a job's own annotation wins); nil: none.
	Extensions *policy.Extensions
	Last       Effects

	plan SyncPlan

	// desired remembers each job's desired PodGroup with the job object it
	// was computed from.
	desired map[types.UID]desiredPodGroup
	// extensions remembers decoded policy-extension documents by text.
	extensions map[string]*policy.Extensions
}

type desiredPodGroup struct {
	job *vcjob.Job
	pg  *podgroup.PodGroup
}

// maxDesired bounds the desired PodGroups an Applied remembers; past it
// they are forgotten all at once, which costs one recomputation per job.
const maxDesired = 4096

// podGroupFor is podgroup.Desired for job, remembered across job objects
// that cannot differ in it: the same object (objects are never changed in
// place), or a later one of the same generation (the API server bumps
// metadata.generation on every spec change) with the same name, labels and
// annotations. A status write thus costs no recomputation. A priority class
// can change without the job changing, so jobs whose tasks name one are
// computed afresh each time.
func (a *Applied) podGroupFor(job *vcjob.Job) *podgroup.PodGroup {
	if a.Priorities != nil {
		for i := range job.Spec.Tasks {
			if job.Spec.Tasks[i].Template.Spec.PriorityClassName != "" {
				return nil
			}
		}
	}
	if d, ok := a.desired[job.UID]; ok && (d.job == job || sameDesired(d.job, job)) {
		return d.pg
	}
	if a.desired == nil || len(a.desired) >= maxDesired {
		a.desired = make(map[types.UID]desiredPodGroup)
	}
	pg := podgroup.DesiredWith(job, podgroup.Options{Priorities: a.Priorities, Sizing: a.sizing()})
	a.desired[job.UID] = desiredPodGroup{job, &pg}
	return &pg
}

// sameDesired reports whether two objects of one job must have the same
// desired PodGroup without computing it.
func sameDesired(a, b *vcjob.Job) bool {
	return a.Generation != 0 && a.Generation == b.Generation && a.UID == b.UID &&
		a.Name == b.Name && a.Namespace == b.Namespace &&
		maps.Equal(a.Labels, b.Labels) && maps.Equal(a.Annotations, b.Annotations)
}

var _ Cluster = (*Applied)(nil)

// SyncJob applies PlanSync: init status, PodGroup, creates, then deletes
// only when every create succeeded, then the status. The Events Volcano's
// syncJob records go to Last.Events.
func (a *Applied) SyncJob(ctx context.Context, ji *jobinfo.Info, update UpdateStatusFunc) error {
	a.Last = Effects{Call: CallSyncJob}
	if skip, err := nothingToDo(ji); skip {
		return err
	}
	pg, err := a.Applier.PodGroupState(ctx, ji.Job)
	if err != nil {
		// Volcano's lister read of the PodGroup is in its create-or-update.
		a.record(ctx, podGroupErrorEvent(err))
		return fmt.Errorf("get podgroup: %w", err)
	}
	opts, err := a.options(ctx, ji.Job)
	if err != nil {
		a.record(ctx, pluginErrorEvent(err))
		return err
	}
	opts.PodGroup = a.podGroupFor(ji.Job)
	// The plan is the Applied's own, reused: nothing of it outlives the
	// call but fresh slices and the status it computes.
	a.plan = SyncPlan{}
	plan := planSync(&a.plan, ji, pg, a.Now, opts)
	if plan.Noop {
		return nil
	}
	job := jobCopy{of: ji.Job}
	if err := a.syncBeforePods(ctx, &job, pg, plan); err != nil {
		return err
	}
	a.Last.Waiting, a.Last.HeldUntil = plan.Waiting, plan.HeldUntil
	failed := a.createAll(ctx, plan.Create)
	if failed == nil && len(plan.Delete) > 0 {
		failed = map[string]error{}
		a.deleteAll(ctx, plan.Delete, failed)
	}
	out := plan.Complete(failed, update, a.Now)
	if out.Err != nil {
		return out.Err
	}
	if out.Write {
		// A variable of its own, so that only a sync that writes pays
		// for the status escaping to the Applier.
		status := out.Status
		if err := a.write(ctx, job.get(), &status); err != nil {
			return fmt.Errorf("update status: %w", err)
		}
	}
	return nil
}

// jobCopy is a sync's own copy of the job: UpdateStatus updates it, and
// the caller's snapshot stays as it was. Most syncs write nothing, so it
// is made on the first write.
type jobCopy struct {
	of, written *vcjob.Job
}

func (c *jobCopy) get() *vcjob.Job {
	if c.written == nil {
		c.written = shallowCopy(c.of)
	}
	return c.written
}

// syncBeforePods writes what a sync writes before the pods, in Volcano's
// order: the initial status, the plugins' objects, the volume claims and
// the job's generated claim names, the PodGroup. It returns the plan's
// error once the initial status is written, and its render error once the
// PodGroup is.
func (a *Applied) syncBeforePods(ctx context.Context, job *jobCopy, pg PodGroupState, plan *SyncPlan) error {
	if plan.InitStatus != nil {
		if err := a.write(ctx, job.get(), plan.InitStatus); err != nil {
			a.record(ctx, jobStatusErrorEvent(err))
			return fmt.Errorf("update status: %w", err)
		}
	}
	if plan.Err != nil {
		switch plan.errReason {
		case ReasonPluginError:
			a.record(ctx, pluginErrorEvent(plan.errCause))
		case ReasonPVCError:
			a.record(ctx, pvcErrorEvent(plan.errCause))
		}
		return plan.Err
	}
	if err := a.Applier.ApplyObjects(ctx, plan.Objects); err != nil {
		// Volcano's plugins write their objects in OnJobAdd or
		// OnJobUpdate themselves.
		a.record(ctx, pluginErrorEvent(err))
		return fmt.Errorf("apply plugin objects: %w", err)
	}
	for _, c := range plan.Claims {
		if err := a.Applier.EnsureClaim(ctx, job.get(), c); err != nil {
			a.record(ctx, pvcErrorEvent(err))
			return fmt.Errorf("volume claim %s: %w", c.Name, err)
		}
	}
	if plan.UpdateJob != nil {
		j := job.get()
		j.Spec = plan.UpdateJob.Spec
		if err := a.Applier.UpdateJob(ctx, j); err != nil {
			// Volcano writes the generated claim names back in the same
			// function that ensures the claims.
			a.record(ctx, pvcErrorEvent(err))
			return fmt.Errorf("update job: %w", err)
		}
		a.Last.JobWritten = true
	}
	if err := a.Applier.ApplyPodGroup(ctx, plan.PodGroup); err != nil {
		a.record(ctx, podGroupErrorEvent(err))
		return fmt.Errorf("apply podgroup: %w", err)
	}
	if e, ok := PodGroupPendingEvent(job.of, pg); ok {
		a.record(ctx, e)
	}
	return plan.RenderErr
}

// createAll creates pods, recording Volcano's FailedCreate Event when any
// failed; it returns the failures by pod name, nil when every create
// succeeded.
func (a *Applied) createAll(ctx context.Context, pods []*corev1.Pod) map[string]error {
	var failed map[string]error
	var createErrs []podError
	for _, pod := range pods {
		if err := a.Applier.CreatePod(ctx, pod); err != nil {
			if failed == nil {
				failed = map[string]error{}
			}
			failed[pod.Name] = err
			createErrs = append(createErrs, podError{pod.Name, err})
			if ctx.Err() != nil {
				break // stopped: the rest would fail the same way
			}
			continue
		}
		a.Last.Created = append(a.Last.Created, pod.Name)
	}
	if len(createErrs) > 0 {
		a.record(ctx, failedCreateEvent(createErrs))
	}
	return failed
}

// KillJob applies PlanKillJob.
func (a *Applied) KillJob(ctx context.Context, ji *jobinfo.Info, retain Retain, update UpdateStatusFunc) error {
	a.Last = Effects{Call: CallKillJob}
	if skip, err := nothingToDo(ji); skip {
		return err
	}
	opts, err := a.options(ctx, ji.Job)
	if err != nil {
		return err
	}
	return a.kill(ctx, ji, PlanKillJobWith(ji, retain, opts), update, opts.Behavior.Has(behavior.KillStatusFirst))
}

// KillTarget applies PlanKillTarget.
func (a *Applied) KillTarget(ctx context.Context, ji *jobinfo.Info, target request.Target, update UpdateStatusFunc) error {
	a.Last = Effects{Call: CallKillTarget}
	if skip, err := nothingToDo(ji); skip {
		return err
	}
	opts, err := a.options(ctx, ji.Job)
	if err != nil {
		return err
	}
	return a.kill(ctx, ji, PlanKillTargetWith(ji, target, opts), update, opts.Behavior.Has(behavior.KillStatusFirst))
}

// kill applies a kill plan in Volcano's order: the out-of-sync marks and
// deletes, the plugins' objects, the status, the PodGroup. statusFirst
// (behavior.KillStatusFirst) writes the kill's phase change
// before the first delete (KillPlan.StatusFirst).
func (a *Applied) kill(ctx context.Context, ji *jobinfo.Info, plan *KillPlan, update UpdateStatusFunc, statusFirst bool) error {
	if plan.Noop {
		return nil
	}
	// One copy for both writes: the second carries the resourceVersion
	// the first got back.
	job := shallowCopy(ji.Job)
	var failed map[string]error
	if len(plan.Delete) > 0 {
		if statusFirst {
			if first, ok := plan.StatusFirst(ji.Job.Status, update, a.Now); ok {
				if err := a.write(ctx, job, &first); err != nil {
					return fmt.Errorf("update status: %w", err)
				}
			}
		}
		failed = map[string]error{}
		a.deleteAll(ctx, plan.Delete, failed)
	}
	out := plan.Complete(failed, update, a.Now)
	if out.Err != nil {
		return out.Err
	}
	// The plugins' OnJobDelete objects go before the status is written.
	if err := a.Applier.ApplyObjects(ctx, plan.Objects); err != nil {
		return fmt.Errorf("apply plugin objects: %w", err)
	}
	if err := a.write(ctx, job, &out.Status); err != nil {
		return fmt.Errorf("update status: %w", err)
	}
	if out.DeletePodGroup {
		deleted, err := a.Applier.DeletePodGroup(ctx, ji.Job)
		if err != nil {
			return fmt.Errorf("delete podgroup: %w", err)
		}
		a.Last.PodGroupDeleted = deleted
	}
	return nil
}

// nothingToDo: a job being deleted gets nothing done, not even its
// plugins built or its PodGroup read, which could fail and have the
// request retried (Volcano's syncJob and killJob return at once for it);
// a job info without a job, or with a job no API server stored (no
// namespace or UID), is an error.
func nothingToDo(ji *jobinfo.Info) (bool, error) {
	if ji == nil || ji.Job == nil {
		return true, ErrNoJob
	}
	if ji.Job.Namespace == "" || ji.Job.UID == "" {
		return true, fmt.Errorf("job %q: %w", ji.Job.Name, ErrNotStored)
	}
	return ji.Job.DeletionTimestamp != nil, nil
}

// options builds the job's plugins.
func (a *Applied) options(ctx context.Context, job *vcjob.Job) (PlanOptions, error) {
	opts := PlanOptions{Priorities: a.Priorities, Recount: a.Recount, Names: a.Names, Choices: a.Choices,
		Behavior: a.Behavior.For(job), Extensions: a.ExtensionsFor(job)}
	if len(job.Spec.Volumes) > 0 {
		// A closure allocates: only jobs with volumes need it. The plan
		// looks claims up in the call's context.
		applier := a.Applier
		opts.ClaimExists = func(namespace, name string) (bool, error) {
			return applier.ClaimExists(ctx, namespace, name)
		}
	}
	if a.Plugins == nil || len(job.Spec.Plugins) == 0 {
		return opts, nil
	}
	ps, warnings, err := a.Plugins.BuildAll(job)
	if err != nil {
		return opts, err
	}
	for _, w := range warnings {
		a.Last.Warnings = append(a.Last.Warnings, w.Error())
	}
	opts.Plugins = ps
	return opts, nil
}

// deleteAll deletes pods, noting each failure in failed and, when any
// failed, recording Volcano's FailedDelete Event.
func (a *Applied) deleteAll(ctx context.Context, pods []*corev1.Pod, failed map[string]error) {
	var errs []podError
	for _, pod := range pods {
		if err := a.Applier.DeletePod(ctx, pod); err != nil {
			failed[pod.Name] = err
			errs = append(errs, podError{pod.Name, err})
			if ctx.Err() != nil {
				break // stopped: the rest would fail the same way
			}
			continue
		}
		a.Last.Deleted = append(a.Last.Deleted, pod.Name)
	}
	if len(errs) > 0 {
		a.record(ctx, failedDeleteEvent(errs))
	}
}

// shallowCopy copies the job's top level, enough for UpdateStatus to set
// its resourceVersion and status without touching the caller's job.
func shallowCopy(job *vcjob.Job) *vcjob.Job {
	c := *job
	return &c
}

// write writes the job's status; its error is the Applier's, unwrapped.
func (a *Applied) write(ctx context.Context, job *vcjob.Job, status *vcjob.JobStatus) error {
	if err := a.Applier.UpdateStatus(ctx, job, status); err != nil {
		return err
	}
	a.Last.StatusWritten = true
	// Statuses are never changed once written (see UpdateStatus), so the
	// effects may share this one.
	a.Last.Status = status
	return nil
}

// record adds an Event to the call's effects, unless the call's context
// is done: a call stopped by its context is the embedder's doing, not
// something Volcano would have seen, and its failures record nothing.
func (a *Applied) record(ctx context.Context, e record.Event) {
	if ctx.Err() != nil {
		return
	}
	a.Last.Events = append(a.Last.Events, e)
}

func (a *Applied) sizing() podgroup.Sizing {
	if a.Choices.RequestsOnlyMinResources {
		return podgroup.SizeByRequests
	}
	return podgroup.SizeByQuota
}

// ExtensionsFor is the job's policy extensions: its annotation's, else the
// Applied's. An annotation that does not decode gives none (lint.Lint
// reports it).
//
// Decoded documents are remembered by their text, so a job's steps decode
// it once; the Extensions returned are shared: read them, do not change
// them.
func (a *Applied) ExtensionsFor(job *vcjob.Job) *policy.Extensions {
	doc, ok := job.Annotations[policy.ExtensionsAnnotation]
	if !ok {
		return a.Extensions
	}
	if ext, ok := a.extensions[doc]; ok {
		return ext
	}
	ext, _ := policy.ExtensionsOf(job)
	if a.extensions == nil || len(a.extensions) >= maxDesired {
		a.extensions = map[string]*policy.Extensions{}
	}
	a.extensions[doc] = ext
	return ext
}
