// Package memcluster is an in-memory cluster that applies the state
// machine's plans: jobs, pods and PodGroups in maps, a clock the caller
// sets, and a journal of what each call did. Tests, the conformance runner
// and the simulator drive the real state machine through it; a controller
// applies the same plans with its clients instead.
//
//	c := memcluster.New(now)
//	c.PutJob(job)
//	c.PutPod(pod)
//	c.SetPodGroupPhase("ns", podgroup.Name(job), podgroup.PhaseRunning)
//	ji, _ := c.JobInfo("ns", job.Name)
//	_, err := statemachine.Execute(c, ji, vcjob.RestartJobAction, vcjob.Target{})
//	fmt.Println(c.Journal.Deleted)
package memcluster

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/statemachine"
)

// PodGroup is the part of a PodGroup the controller's decisions read.
type PodGroup struct {
	Namespace string
	Name      string
	Phase     podgroup.Phase
}

// Journal records what the calls did, in order, until Reset.
type Journal struct {
	Created          []*corev1.Pod
	Deleted          []string
	PodGroupsCreated []string
	PodGroupsDeleted []string
	StatusWrites     int
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

	Journal Journal

	jobs      map[string]*vcjob.Job
	pods      map[string]*corev1.Pod
	podGroups map[string]*PodGroup
	uid       int
	last      *statemachine.Applied
}

var (
	_ statemachine.Cluster = (*Cluster)(nil)
	_ statemachine.Applier = (*Cluster)(nil)
)

// New returns an empty cluster whose clock reads now.
func New(now metav1.Time) *Cluster {
	return &Cluster{Now: now, jobs: map[string]*vcjob.Job{}, pods: map[string]*corev1.Pod{}, podGroups: map[string]*PodGroup{}}
}

// PutJob stores a copy of job.
func (c *Cluster) PutJob(job *vcjob.Job) { c.jobs[key(job.Namespace, job.Name)] = job.DeepCopy() }

// PutPod stores a copy of pod.
func (c *Cluster) PutPod(pod *corev1.Pod) { c.pods[key(pod.Namespace, pod.Name)] = pod.DeepCopy() }

// RemovePod removes a pod outright (its termination is over).
func (c *Cluster) RemovePod(namespace, name string) { delete(c.pods, key(namespace, name)) }

// SetPodGroupPhase creates or updates a PodGroup's phase.
func (c *Cluster) SetPodGroupPhase(namespace, name string, phase podgroup.Phase) {
	c.podGroups[key(namespace, name)] = &PodGroup{Namespace: namespace, Name: name, Phase: phase}
}

// Job returns a copy of the stored job, or nil.
func (c *Cluster) Job(namespace, name string) *vcjob.Job {
	if j := c.jobs[key(namespace, name)]; j != nil {
		return j.DeepCopy()
	}
	return nil
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
func (c *Cluster) PodGroupState(job *vcjob.Job) (statemachine.PodGroupState, error) {
	return c.PodGroup(job), nil
}

// PodGroup returns the job's PodGroup state as a lister would see it.
func (c *Cluster) PodGroup(job *vcjob.Job) statemachine.PodGroupState {
	if pg := c.podGroups[key(job.Namespace, podgroup.Name(job))]; pg != nil {
		return statemachine.PodGroupState{Exists: true, Phase: pg.Phase}
	}
	return statemachine.PodGroupState{}
}

// JobInfo snapshots a job and its pods.
func (c *Cluster) JobInfo(namespace, name string) (*vcjob.JobInfo, error) {
	job := c.Job(namespace, name)
	if job == nil {
		return nil, fmt.Errorf("memcluster: job %s/%s not found", namespace, name)
	}
	return vcjob.NewJobInfo(job, c.Pods(namespace, name)...)
}

// FinishTerminating removes every pod that has a deletionTimestamp and
// returns their names.
func (c *Cluster) FinishTerminating() []string {
	var names []string
	for k, p := range c.pods {
		if p.DeletionTimestamp != nil {
			names = append(names, p.Name)
			delete(c.pods, k)
		}
	}
	sort.Strings(names)
	return names
}

// SyncJob applies statemachine.PlanSync through statemachine.Applied.
func (c *Cluster) SyncJob(ji *vcjob.JobInfo, update statemachine.UpdateStatusFunc) error {
	return c.applied().SyncJob(ji, update)
}

// KillJob applies statemachine.PlanKillJob through statemachine.Applied.
func (c *Cluster) KillJob(ji *vcjob.JobInfo, retain statemachine.Retain, update statemachine.UpdateStatusFunc) error {
	return c.applied().KillJob(ji, retain, update)
}

// KillTarget applies statemachine.PlanKillTarget through
// statemachine.Applied.
func (c *Cluster) KillTarget(ji *vcjob.JobInfo, target vcjob.Target, update statemachine.UpdateStatusFunc) error {
	return c.applied().KillTarget(ji, target, update)
}

// applied wraps the cluster as the Applier of a statemachine.Applied at
// the cluster's clock. Its Effects are the cluster's LastEffects.
func (c *Cluster) applied() *statemachine.Applied {
	c.last = &statemachine.Applied{Applier: c, Now: c.Now}
	return c.last
}

// LastEffects is what the last SyncJob, KillJob or KillTarget did.
func (c *Cluster) LastEffects() statemachine.Effects {
	if c.last == nil {
		return statemachine.Effects{}
	}
	return c.last.Last
}

// EnsurePodGroup implements statemachine.Applier: a missing PodGroup is
// created with no phase (the scheduler sets one).
func (c *Cluster) EnsurePodGroup(job *vcjob.Job) error {
	k := key(job.Namespace, podgroup.Name(job))
	if c.podGroups[k] == nil {
		c.podGroups[k] = &PodGroup{Namespace: job.Namespace, Name: podgroup.Name(job)}
		c.Journal.PodGroupsCreated = append(c.Journal.PodGroupsCreated, podgroup.Name(job))
	}
	return nil
}

// DeletePodGroup implements statemachine.Applier.
func (c *Cluster) DeletePodGroup(job *vcjob.Job) (bool, error) {
	k := key(job.Namespace, podgroup.Name(job))
	if c.podGroups[k] == nil {
		return false, nil
	}
	delete(c.podGroups, k)
	c.Journal.PodGroupsDeleted = append(c.Journal.PodGroupsDeleted, podgroup.Name(job))
	return true, nil
}

// CreatePod implements statemachine.Applier: the pod is stored Pending
// with a fresh UID; an existing pod of that name counts as created, as
// AlreadyExists does for Volcano.
func (c *Cluster) CreatePod(pod *corev1.Pod) error {
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
	c.pods[k] = p
	c.Journal.Created = append(c.Journal.Created, p.DeepCopy())
	return nil
}

// DeletePod implements statemachine.Applier: mark out-of-sync, then
// delete. With GracefulDelete a pod bound to a node only gets a
// deletionTimestamp until FinishTerminating.
func (c *Cluster) DeletePod(pod *corev1.Pod) error {
	k := key(pod.Namespace, pod.Name)
	stored := c.pods[k]
	if stored == nil {
		return nil // NotFound: already gone
	}
	if stored.Annotations == nil {
		stored.Annotations = map[string]string{}
	}
	stored.Annotations[vcjob.PodOutOfSyncKey] = "true"
	if c.FailDelete != nil {
		if err := c.FailDelete(pod); err != nil {
			return err
		}
	}
	c.Journal.Deleted = append(c.Journal.Deleted, pod.Name)
	if c.GracefulDelete && stored.Spec.NodeName != "" {
		if stored.DeletionTimestamp == nil {
			t := c.Now
			stored.DeletionTimestamp = &t
		}
		return nil
	}
	delete(c.pods, k)
	return nil
}

// UpdateStatus implements statemachine.Applier.
func (c *Cluster) UpdateStatus(job *vcjob.Job, status *vcjob.JobStatus) error {
	if c.FailStatus != nil {
		if err := c.FailStatus(job); err != nil {
			return err
		}
	}
	c.writeStatus(job, status)
	return nil
}

func (c *Cluster) writeStatus(job *vcjob.Job, status *vcjob.JobStatus) {
	stored := c.jobs[key(job.Namespace, job.Name)]
	if stored == nil {
		stored = job.DeepCopy()
		c.jobs[key(job.Namespace, job.Name)] = stored
	}
	stored.Status = *status.DeepCopy()
	c.Journal.StatusWrites++
}

func key(namespace, name string) string { return namespace + "/" + name }
