package memcluster

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/jobinfo"
	"github.com/vcjob/vcjob/plugins"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
)

// PodGroup is the part of a PodGroup the controller's decisions read.
type PodGroup struct {
	Namespace string
	Name      string
	Job       string
	Phase     podgroup.Phase
	// Conditions are the PodGroup's status conditions (the scheduler's).
	Conditions []podgroup.Condition
	Spec       podgroup.Spec
	// Meta is the PodGroup's metadata as it was created (or put).
	Meta metav1.ObjectMeta

	// upToDate is the desired PodGroup Spec was last found to need no
	// update for: desired PodGroups are shared and never changed, so the
	// same one again needs no comparison.
	upToDate *podgroup.PodGroup
}

// ChangeType is what happened to an object.
type ChangeType string

// The change types, as a watch reports them.
const (
	Added    ChangeType = "Added"
	Modified ChangeType = "Modified"
	Deleted  ChangeType = "Deleted"
)

// Change is one watch event: Old is nil for Added, New is nil for Deleted.
// Exactly one of the pairs is set, by the kind of object.
type Change struct {
	Type           ChangeType
	OldPod, NewPod *corev1.Pod
	OldJob, NewJob *vcjob.Job
	// PodGroup changes carry the job's namespace and name and the phases.
	PodGroupJob        string
	PodGroupNamespace  string
	OldPhase, NewPhase podgroup.Phase
}

// Journal records what the calls did, in order, until Reset: objects by
// name (Created, Deleted, PodGroups...), and where the whole object
// written matters, the objects too. The created pods are the stored
// objects themselves, as StoredPod hands them out: read them, do not
// change them (a copy per created pod would make the cluster's own cost
// grow with every job it runs).
type Journal struct {
	// Created and Deleted are the names of the pods created and deleted.
	Created []string
	Deleted []string
	// CreatedPods are the pods created, whole, in the order of Created.
	CreatedPods      []*corev1.Pod
	PodGroupsCreated []string
	PodGroupsUpdated []string
	PodGroupsDeleted []string
	StatusWrites     int
	// PodGroupWrites are the PodGroups written, whole, in order.
	PodGroupWrites []PodGroupWrite
	// ObjectWrites are the plugin objects created or updated, in order.
	ObjectWrites []ObjectWrite
	// ClaimsCreated are the volume claims created, in order.
	ClaimsCreated []*corev1.PersistentVolumeClaim
	// JobWrites are the jobs written through UpdateJob (spec, not
	// status), in order.
	JobWrites []*vcjob.Job
	// Events are the Kubernetes Events recorded on the cluster's jobs, in
	// order: those of the cluster's own SyncJob, KillJob and KillTarget
	// calls, and those handed to Record (a worker step's, a command
	// handler's).
	Events []record.Event
}

// The operations a journal records.
const (
	OpCreate = "create"
	OpUpdate = "update"
)

// PodGroupWrite is one PodGroup create or update.
type PodGroupWrite struct {
	Op     string
	Object *podgroup.PodGroup
}

// ObjectWrite is one plugin object create or update.
type ObjectWrite struct {
	Op     string
	Kind   string
	Name   string
	Object runtime.Object
}

// Reset empties the journal.
func (j *Journal) Reset() { *j = Journal{} }

// Cluster is an in-memory cluster. It is not safe for concurrent use.
type Cluster struct {
	// Now is the time the cluster stamps on status changes and deletions.
	Now metav1.Time
	// GracefulDelete keeps a deleted pod that is bound to a node, with a
	// deletionTimestamp, until FinishTerminating; unbound pods go at once,
	// as with a real API server.
	GracefulDelete bool
	// FailCreate and FailDelete, when set, make the API calls fail for the
	// pods they return an error for.
	FailCreate func(*corev1.Pod) error
	FailDelete func(*corev1.Pod) error
	// FailStatus, when set, makes status writes fail for the jobs it
	// returns an error for.
	FailStatus func(*vcjob.Job) error
	// FailMark, when set, makes marking a pod out-of-sync fail for the
	// pods it returns an error for: DeletePod then returns a
	// statemachine.MarkError and leaves the pod alone.
	FailMark func(*corev1.Pod) error
	// Plugins and Priorities are handed to the plans when the cluster is
	// used as a statemachine.Cluster.
	Plugins    *plugins.Registry
	Priorities podgroup.PriorityLookup
	// Recount has the plans walk every pod, the oracle, instead of reading
	// the job info's counts (statemachine.PlanOptions.Recount).
	Recount bool
	// Behavior is handed to the plans (statemachine.Applied.Behavior);
	// the zero value decides as Volcano does.
	Behavior behavior.Set

	Journal Journal

	// Watch, when set, makes every change of a job, pod or PodGroup phase
	// recorded for Drain, as an informer would see it.
	Watch bool

	changes   []Change
	rv        int
	jobs      map[objKey]*vcjob.Job
	pods      map[objKey]*corev1.Pod
	podGroups map[objKey]*PodGroup
	objects   map[objKey]runtime.Object
	claims    map[objKey]bool
	// pgNames remembers podgroup.Name by job UID: the lister read of every
	// sync then builds no string.
	pgNames map[types.UID]pgName
	uid     int
	// jobUIDs counts the jobs stored under each name's first UID, so a
	// job re-created under its name gets another.
	jobUIDs map[types.UID]int
	last    *statemachine.Applied
}

var (
	_ statemachine.Cluster = (*Cluster)(nil)
	_ statemachine.Applier = (*Cluster)(nil)
)

// New returns an empty cluster whose clock reads now.
func New(now metav1.Time) *Cluster {
	return &Cluster{Now: now, jobs: map[objKey]*vcjob.Job{}, pods: map[objKey]*corev1.Pod{}, podGroups: map[objKey]*PodGroup{},
		objects: map[objKey]runtime.Object{}, claims: map[objKey]bool{}, jobUIDs: map[types.UID]int{}}
}

// PutJob stores a copy of job as an API server stores a job created or
// updated, and returns the stored copy (read it, do not change it). What an
// API server fills in on a create, PutJob fills in when job lacks it: the
// namespace "default" (where kubectl puts a manifest that names none), a
// name from metadata.generateName, a UID (uid-<name>, with a count once
// the name was used by a job of another UID), and creationTimestamp (Now).
// Putting a job under the namespace and name of a stored one is an update:
// it keeps the stored job's UID and creation time unless job has its own.
// The resourceVersion is new when Watch is set.
func (c *Cluster) PutJob(job *vcjob.Job) *vcjob.Job {
	j := job.DeepCopy()
	c.asCreated(j)
	c.putJob(j)
	return j
}

// asCreated fills in what an API server gives a job it stores.
func (c *Cluster) asCreated(j *vcjob.Job) {
	if j.Namespace == "" {
		j.Namespace = metav1.NamespaceDefault
	}
	if j.Name == "" && j.GenerateName != "" {
		c.uid++
		j.Name = fmt.Sprintf("%s%05d", j.GenerateName, c.uid)
	}
	if old := c.jobs[key(j.Namespace, j.Name)]; old != nil && (j.UID == "" || j.UID == old.UID) {
		j.UID = old.UID
		if j.CreationTimestamp.IsZero() {
			j.CreationTimestamp = old.CreationTimestamp
		}
		return
	}
	if j.UID == "" {
		j.UID = types.UID("uid-" + j.Name)
		if n := c.jobUIDs[j.UID]; n > 0 {
			j.UID = types.UID(fmt.Sprintf("uid-%s-%d", j.Name, n+1))
		}
	}
	c.jobUIDs[types.UID("uid-"+j.Name)]++
	if j.CreationTimestamp.IsZero() {
		j.CreationTimestamp = c.Now
	}
}

// putJob stores j itself: the cluster's own object from now on, never
// changed in place.
func (c *Cluster) putJob(j *vcjob.Job) {
	k := key(j.Namespace, j.Name)
	old := c.jobs[k]
	c.jobs[k] = j
	if c.Watch {
		j.ResourceVersion = c.nextRV()
		ch := Change{Type: Added, NewJob: j.DeepCopy()}
		if old != nil {
			// A copy: stored jobs share their spec with the next version.
			ch.Type, ch.OldJob = Modified, old.DeepCopy()
		}
		c.changes = append(c.changes, ch)
	}
}

// PutPod stores a copy of pod (with a new resourceVersion when Watch is
// set).
func (c *Cluster) PutPod(pod *corev1.Pod) { c.putPod(pod.DeepCopy()) }

// putPod stores p itself, as putJob does.
func (c *Cluster) putPod(p *corev1.Pod) {
	k := key(p.Namespace, p.Name)
	old := c.pods[k]
	c.pods[k] = p
	if c.Watch {
		p.ResourceVersion = c.nextRV()
		ch := Change{Type: Added, NewPod: p.DeepCopy()}
		if old != nil {
			ch.Type, ch.OldPod = Modified, old
		}
		c.changes = append(c.changes, ch)
	}
}

// StorePod stores pod itself, not a copy: the caller hands it over and
// must not change it afterwards, as with objects an informer delivers.
// Benchmarks use it to keep the cluster's own cost out of what they
// measure; with Watch set it behaves as PutPod.
func (c *Cluster) StorePod(pod *corev1.Pod) {
	if c.Watch {
		c.PutPod(pod)
		return
	}
	c.pods[key(pod.Namespace, pod.Name)] = pod
}

// RemovePod removes a pod outright (its termination is over).
func (c *Cluster) RemovePod(namespace, name string) {
	k := key(namespace, name)
	if old := c.pods[k]; old != nil {
		delete(c.pods, k)
		if c.Watch {
			c.changes = append(c.changes, Change{Type: Deleted, OldPod: old})
		}
	}
}

// SetPodGroupPhase plays the scheduler: it sets the phase of the PodGroup
// namespace/name, creating the PodGroup when it does not exist. With Watch
// set, a change of an existing PodGroup's phase is fed as a Modified change
// naming the job that owns it.
func (c *Cluster) SetPodGroupPhase(namespace, name string, phase podgroup.Phase) {
	k := key(namespace, name)
	old := c.podGroups[k]
	pg := &PodGroup{Namespace: namespace, Name: name, Phase: phase}
	if old != nil {
		pg.Job, pg.Spec, pg.Meta, pg.Conditions = old.Job, old.Spec, old.Meta, old.Conditions
	}
	c.podGroups[k] = pg
	if c.Watch && old != nil && old.Phase != phase {
		c.changes = append(c.changes, Change{Type: Modified, PodGroupNamespace: namespace, PodGroupJob: pg.Job, OldPhase: old.Phase, NewPhase: phase})
	}
}

// SetPodGroupConditions plays the scheduler: it sets the status
// conditions of the PodGroup namespace/name (a copy of them), which must
// exist. It reports whether it does.
func (c *Cluster) SetPodGroupConditions(namespace, name string, conds []podgroup.Condition) bool {
	pg := c.podGroups[key(namespace, name)]
	if pg == nil {
		return false
	}
	next := *pg
	next.Conditions = podgroup.CopyConditions(conds)
	c.podGroups[key(namespace, name)] = &next
	return true
}

// Record keeps Events recorded on the cluster's jobs (as an event
// recorder posts them) in the journal, after those already there.
func (c *Cluster) Record(events []record.Event) {
	c.Journal.Events = append(c.Journal.Events, events...)
}

// Drain returns the changes recorded since the last Drain, oldest first.
func (c *Cluster) Drain() []Change {
	out := c.changes
	c.changes = nil
	return out
}

func (c *Cluster) nextRV() string {
	c.rv++
	return fmt.Sprint(c.rv)
}

// Get returns a snapshot of the job under key (namespace/name), so the
// cluster can stand in for a cache.
func (c *Cluster) Get(k string) (*jobinfo.Info, error) {
	ns, name, _ := strings.Cut(k, "/")
	job := c.jobs[key(ns, name)]
	if job == nil {
		return nil, fmt.Errorf("memcluster: job %s not found", k)
	}
	return c.JobInfo(job.Namespace, job.Name)
}

// Job returns a copy of the stored job, or nil.
func (c *Cluster) Job(namespace, name string) *vcjob.Job {
	if j := c.jobs[key(namespace, name)]; j != nil {
		return j.DeepCopy()
	}
	return nil
}

// StoredJob returns the stored job itself, or nil: shared, as an
// informer's objects are, so it must not be changed.
func (c *Cluster) StoredJob(namespace, name string) *vcjob.Job {
	return c.jobs[key(namespace, name)]
}

// StoredPod returns the stored pod itself, or nil; see StoredJob.
func (c *Cluster) StoredPod(namespace, name string) *corev1.Pod {
	return c.pods[key(namespace, name)]
}

// Pod returns a copy of the stored pod, or nil.
func (c *Cluster) Pod(namespace, name string) *corev1.Pod {
	if p := c.pods[key(namespace, name)]; p != nil {
		return p.DeepCopy()
	}
	return nil
}

// Pods returns copies of the pods the job controls, sorted by name.
func (c *Cluster) Pods(namespace, job string) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range c.pods {
		if p.Namespace == namespace && p.Annotations[vcjob.JobNameKey] == job {
			out = append(out, p.DeepCopy())
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// PodGroupState implements statemachine.Applier.
func (c *Cluster) PodGroupState(ctx context.Context, job *vcjob.Job) (statemachine.PodGroupState, error) {
	if err := ctx.Err(); err != nil {
		return statemachine.PodGroupState{}, err
	}
	return c.PodGroup(job), nil
}

type pgName struct{ job, podGroup string }

func (c *Cluster) podGroupName(job *vcjob.Job) string {
	if n, ok := c.pgNames[job.UID]; ok && n.job == job.Name {
		return n.podGroup
	}
	name := podgroup.Name(job)
	if c.pgNames == nil || len(c.pgNames) > 4096 {
		c.pgNames = map[types.UID]pgName{}
	}
	c.pgNames[job.UID] = pgName{job.Name, name}
	return name
}

// PodGroup returns the job's PodGroup state as a lister would see it
// (none for a nil job: a job that is gone).
func (c *Cluster) PodGroup(job *vcjob.Job) statemachine.PodGroupState {
	if job == nil {
		return statemachine.PodGroupState{}
	}
	if pg := c.podGroups[key(job.Namespace, c.podGroupName(job))]; pg != nil {
		return statemachine.PodGroupState{Exists: true, Phase: pg.Phase, Conditions: pg.Conditions}
	}
	// Volcano looks under the legacy name <job> too.
	if pg := c.podGroups[key(job.Namespace, podgroup.LegacyName(job))]; pg != nil {
		return statemachine.PodGroupState{Exists: true, Phase: pg.Phase, Conditions: pg.Conditions}
	}
	return statemachine.PodGroupState{}
}

// JobInfo snapshots a job and its pods.
func (c *Cluster) JobInfo(namespace, name string) (*jobinfo.Info, error) {
	job := c.Job(namespace, name)
	if job == nil {
		return nil, fmt.Errorf("memcluster: job %s/%s not found", namespace, name)
	}
	return jobinfo.New(job, c.Pods(namespace, name)...)
}

// FinishTerminating removes every pod that has a deletionTimestamp and
// no finalizers (an API server keeps the others until their finalizers
// are gone), and returns their names.
func (c *Cluster) FinishTerminating() []string {
	var gone []*corev1.Pod
	for _, p := range c.pods {
		if p.DeletionTimestamp != nil && len(p.Finalizers) == 0 {
			gone = append(gone, p)
		}
	}
	sort.Slice(gone, func(i, j int) bool { return gone[i].Name < gone[j].Name })
	var names []string
	for _, p := range gone {
		names = append(names, p.Name)
		c.RemovePod(p.Namespace, p.Name)
	}
	return names
}

// SyncJob applies statemachine.PlanSync through statemachine.Applied; its
// Events go to the journal.
func (c *Cluster) SyncJob(ctx context.Context, ji *jobinfo.Info, update statemachine.UpdateStatusFunc) error {
	a := c.applied()
	err := a.SyncJob(ctx, ji, update)
	c.Record(a.Last.Events)
	return err
}

// KillJob applies statemachine.PlanKillJob through statemachine.Applied;
// its Events go to the journal.
func (c *Cluster) KillJob(ctx context.Context, ji *jobinfo.Info, retain statemachine.Retain, update statemachine.UpdateStatusFunc) error {
	a := c.applied()
	err := a.KillJob(ctx, ji, retain, update)
	c.Record(a.Last.Events)
	return err
}

// KillTarget applies statemachine.PlanKillTarget through
// statemachine.Applied; its Events go to the journal.
func (c *Cluster) KillTarget(ctx context.Context, ji *jobinfo.Info, target request.Target, update statemachine.UpdateStatusFunc) error {
	a := c.applied()
	err := a.KillTarget(ctx, ji, target, update)
	c.Record(a.Last.Events)
	return err
}

// applied wraps the cluster as the Applier of a statemachine.Applied at
// the cluster's clock. Its Effects are the cluster's LastEffects.
func (c *Cluster) applied() *statemachine.Applied {
	c.last = &statemachine.Applied{Applier: c, Now: c.Now, Plugins: c.Plugins, Priorities: c.Priorities, Recount: c.Recount, Behavior: c.Behavior}
	return c.last
}

// LastEffects is what the last SyncJob, KillJob or KillTarget did.
func (c *Cluster) LastEffects() statemachine.Effects {
	if c.last == nil {
		return statemachine.Effects{}
	}
	return c.last.Last
}

// ApplyPodGroup implements statemachine.Applier: a missing PodGroup is
// created with no phase (the scheduler sets one); an existing one takes
// podgroup.Update's changes.
func (c *Cluster) ApplyPodGroup(ctx context.Context, desired *podgroup.PodGroup) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	job := ""
	for _, o := range desired.OwnerReferences {
		if o.Controller != nil && *o.Controller {
			job = o.Name
		}
	}
	// Volcano looks under the legacy name <job> too.
	k := key(desired.Namespace, desired.Name)
	existing := c.podGroups[k]
	if existing == nil && job != "" {
		if legacy := c.podGroups[key(desired.Namespace, job)]; legacy != nil {
			existing = legacy
		}
	}
	if existing == nil {
		obj := desired.DeepCopy()
		obj.TypeMeta = metav1.TypeMeta{}
		c.podGroups[k] = &PodGroup{Namespace: desired.Namespace, Name: desired.Name, Job: job, Spec: obj.Spec, Meta: obj.ObjectMeta}
		c.Journal.PodGroupsCreated = append(c.Journal.PodGroupsCreated, desired.Name)
		c.Journal.PodGroupWrites = append(c.Journal.PodGroupWrites, PodGroupWrite{Op: OpCreate, Object: obj})
		return nil
	}
	if existing.upToDate == desired {
		return nil
	}
	cur := podgroup.PodGroup{ObjectMeta: existing.meta(), Spec: existing.Spec}
	if !podgroup.NeedsUpdate(&cur, desired) {
		existing.upToDate = desired
		return nil
	}
	if next, changed := podgroup.Update(cur, *desired); changed {
		existing.Spec = next.Spec
		c.Journal.PodGroupsUpdated = append(c.Journal.PodGroupsUpdated, existing.Name)
		c.Journal.PodGroupWrites = append(c.Journal.PodGroupWrites, PodGroupWrite{Op: OpUpdate, Object: next.DeepCopy()})
	}
	return nil
}

// meta is the PodGroup's metadata, its namespace and name at least.
func (pg *PodGroup) meta() metav1.ObjectMeta {
	m := *pg.Meta.DeepCopy()
	m.Namespace, m.Name = pg.Namespace, pg.Name
	return m
}

// PutPodGroup stores a copy of a whole PodGroup, its phase from its
// status, as a lister would hold it.
func (c *Cluster) PutPodGroup(pg *podgroup.PodGroup) {
	if pg == nil {
		return
	}
	obj := pg.DeepCopy()
	job := ""
	for _, o := range obj.OwnerReferences {
		if o.Controller != nil && *o.Controller {
			job = o.Name
		}
	}
	c.podGroups[key(obj.Namespace, obj.Name)] = &PodGroup{Namespace: obj.Namespace, Name: obj.Name, Job: job,
		Phase: obj.Status.Phase, Conditions: obj.Status.Conditions, Spec: obj.Spec, Meta: obj.ObjectMeta}
}

// ApplyObjects implements statemachine.Applier: objects are kept by kind,
// namespace and name.
func (c *Cluster) ApplyObjects(ctx context.Context, objs plugins.Objects) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, o := range objs.Apply {
		m, err := meta.Accessor(o)
		if err != nil {
			return err
		}
		kind := o.GetObjectKind().GroupVersionKind().Kind
		k := objKey{kind, m.GetNamespace(), m.GetName()}
		op := OpCreate
		if have := c.objects[k]; have != nil {
			if equality.Semantic.DeepEqual(have, o) {
				continue
			}
			op = OpUpdate
		}
		c.objects[k] = o.DeepCopyObject()
		c.Journal.ObjectWrites = append(c.Journal.ObjectWrites, ObjectWrite{Op: op, Kind: kind, Name: m.GetName(), Object: o.DeepCopyObject()})
	}
	for _, r := range objs.Delete {
		delete(c.objects, objKey{r.Kind, r.Namespace, r.Name})
	}
	return nil
}

// Object returns a plugin object by kind ("Service", "ConfigMap",
// "Secret", "NetworkPolicy"), namespace and name, or nil.
func (c *Cluster) Object(kind, namespace, name string) runtime.Object {
	if o := c.objects[objKey{kind, namespace, name}]; o != nil {
		return o.DeepCopyObject()
	}
	return nil
}

// EnsureClaim implements statemachine.Applier: a claim with a spec is
// created when missing (and journaled whole, as Volcano writes it); one
// without must exist.
func (c *Cluster) EnsureClaim(ctx context.Context, job *vcjob.Job, claim statemachine.Claim) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	k := key(job.Namespace, claim.Name)
	if c.claims[k] {
		return nil
	}
	if claim.Spec == nil {
		return statemachine.ClaimNotFound(claim.Name)
	}
	c.claims[k] = true
	c.Journal.ClaimsCreated = append(c.Journal.ClaimsCreated, &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: job.Namespace, Name: claim.Name,
			OwnerReferences: []metav1.OwnerReference{vcjob.ControllerRef(job)}},
		Spec: *claim.Spec.DeepCopy(),
	})
	return nil
}

// ClaimExists implements statemachine.Applier.
func (c *Cluster) ClaimExists(ctx context.Context, namespace, name string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return c.claims[key(namespace, name)], nil
}

// UpdateJob implements statemachine.Applier: the stored job takes job's
// metadata and spec and keeps its status, as the API server does for a
// write of the main resource; job is left holding the new
// resourceVersion.
func (c *Cluster) UpdateJob(ctx context.Context, job *vcjob.Job) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if job == nil {
		return statemachine.ErrNoJob
	}
	prev := c.jobs[key(job.Namespace, job.Name)]
	if prev == nil {
		return fmt.Errorf("memcluster: job %s/%s not found", job.Namespace, job.Name)
	}
	if err := c.conflict(job, prev); err != nil {
		return err
	}
	next := job.DeepCopy()
	next.Status = prev.Status
	c.putJob(next)
	c.Journal.JobWrites = append(c.Journal.JobWrites, next)
	job.ResourceVersion = next.ResourceVersion
	return nil
}

// PutClaim records that a volume claim exists.
func (c *Cluster) PutClaim(namespace, name string) { c.claims[key(namespace, name)] = true }

// DeletePodGroup implements statemachine.Applier.
func (c *Cluster) DeletePodGroup(ctx context.Context, job *vcjob.Job) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	k := key(job.Namespace, podgroup.Name(job))
	if c.podGroups[k] == nil {
		// Volcano finds a PodGroup under the legacy name <job> too.
		k = key(job.Namespace, podgroup.LegacyName(job))
		if c.podGroups[k] == nil {
			return false, nil
		}
	}
	old := c.podGroups[k]
	delete(c.podGroups, k)
	if c.Watch && old.Phase != "" {
		c.changes = append(c.changes, Change{Type: Deleted, PodGroupNamespace: job.Namespace, PodGroupJob: job.Name, OldPhase: old.Phase})
	}
	c.Journal.PodGroupsDeleted = append(c.Journal.PodGroupsDeleted, old.Name)
	return true, nil
}

// CreatePod implements statemachine.Applier: the pod is stored Pending
// with a fresh UID; an existing pod of that name counts as created, as
// AlreadyExists does for Volcano.
func (c *Cluster) CreatePod(ctx context.Context, pod *corev1.Pod) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if c.FailCreate != nil {
		if err := c.FailCreate(pod); err != nil {
			return err
		}
	}
	k := key(pod.Namespace, pod.Name)
	if c.pods[k] != nil {
		return nil
	}
	p := pod.DeepCopy()
	c.uid++
	p.UID = types.UID(fmt.Sprintf("uid-%s-%d", p.Name, c.uid))
	p.CreationTimestamp = c.Now
	p.Status.Phase = corev1.PodPending
	c.Journal.Created = append(c.Journal.Created, p.Name)
	c.Journal.CreatedPods = append(c.Journal.CreatedPods, p)
	c.putPod(p)
	return nil
}

// DeletePod implements statemachine.Applier: mark out-of-sync, then
// delete. With GracefulDelete a pod bound to a node only gets a
// deletionTimestamp until FinishTerminating.
func (c *Cluster) DeletePod(ctx context.Context, pod *corev1.Pod) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	marked, err := c.mark(pod)
	if err != nil || marked == nil {
		return err // a failed mark, or NotFound: already gone
	}
	if c.FailDelete != nil {
		if err := c.FailDelete(pod); err != nil {
			return err
		}
	}
	c.Journal.Deleted = append(c.Journal.Deleted, pod.Name)
	if c.GracefulDelete && marked.Spec.NodeName != "" {
		if marked.DeletionTimestamp == nil {
			t := c.Now
			marked.DeletionTimestamp = &t
			c.PutPod(marked)
		}
		return nil
	}
	c.RemovePod(pod.Namespace, pod.Name)
	return nil
}

// MarkOutOfSync is the first half of DeletePod alone: the pod gets the
// out-of-sync annotation and stays. A harness that stops a controller
// between the mark and the delete (package perturb) calls it.
func (c *Cluster) MarkOutOfSync(ctx context.Context, pod *corev1.Pod) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := c.mark(pod)
	return err
}

// mark marks the stored pod out-of-sync (once) and returns the stored pod,
// or nil when there is none.
func (c *Cluster) mark(pod *corev1.Pod) (*corev1.Pod, error) {
	stored := c.pods[key(pod.Namespace, pod.Name)]
	if stored == nil {
		return nil, nil
	}
	if c.FailMark != nil && stored.Annotations[vcjob.PodOutOfSyncKey] != "true" {
		if err := c.FailMark(pod); err != nil {
			return nil, &statemachine.MarkError{Err: err}
		}
	}
	marked := stored.DeepCopy()
	if marked.Annotations == nil {
		marked.Annotations = map[string]string{}
	}
	if marked.Annotations[vcjob.PodOutOfSyncKey] != "true" {
		marked.Annotations[vcjob.PodOutOfSyncKey] = "true"
		c.PutPod(marked)
	}
	return marked, nil
}

// UpdateStatus implements statemachine.Applier.
func (c *Cluster) UpdateStatus(ctx context.Context, job *vcjob.Job, status *vcjob.JobStatus) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if c.FailStatus != nil {
		if err := c.FailStatus(job); err != nil {
			return err
		}
	}
	if err := c.conflict(job, c.jobs[key(job.Namespace, job.Name)]); err != nil {
		return err
	}
	c.writeStatus(job, status)
	// As a real API server's answer would: the caller's job now holds what
	// was written, so a second write in the same call is current.
	// The stored status is never changed in place, so the caller's job may
	// share it.
	stored := c.jobs[key(job.Namespace, job.Name)]
	job.ResourceVersion = stored.ResourceVersion
	job.Status = stored.Status
	return nil
}

// jobsResource names jobs in the API errors the cluster returns.
var jobsResource = schema.GroupResource{Group: vcjob.GroupName, Resource: "jobs"}

// conflict is the API server's optimistic concurrency: a write of a job
// read at another resourceVersion than the stored one is refused with a
// Conflict, so a controller deciding on a stale cache writes nothing and
// is requeued. Without Watch the cluster keeps no versions and checks
// none.
func (c *Cluster) conflict(job, stored *vcjob.Job) error {
	if !c.Watch || stored == nil || job.ResourceVersion == "" || stored.ResourceVersion == "" || job.ResourceVersion == stored.ResourceVersion {
		return nil
	}
	return apierrors.NewConflict(jobsResource, job.Name,
		fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
}

// writeStatus stores a new job object: the stored one's metadata and spec
// (shared: stored objects are never changed in place) with a copy of
// status.
func (c *Cluster) writeStatus(job *vcjob.Job, status *vcjob.JobStatus) {
	prev := c.jobs[key(job.Namespace, job.Name)]
	var next *vcjob.Job
	if prev == nil {
		next = job.DeepCopy()
	} else {
		n := *prev
		next = &n
	}
	next.Status = *status.DeepCopy()
	c.putJob(next)
	c.Journal.StatusWrites++
}

// objKey names a stored object; kind is set only for plugin objects,
// whose maps hold several kinds.
type objKey struct{ kind, namespace, name string }

func key(namespace, name string) objKey { return objKey{namespace: namespace, name: name} }
