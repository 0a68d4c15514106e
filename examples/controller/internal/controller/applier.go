package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/plugins"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/statemachine"
)

// FieldManager is the name the controller's writes are recorded under.
const FieldManager = "vcjob-controller"

// PodGroupGetter reads one PodGroup from the informer's store; found is
// false when there is none of that name.
type PodGroupGetter func(namespace, name string) (pg *podgroup.PodGroup, found bool, err error)

// Applier implements statemachine.Applier with client-go: the clientset
// for pods, claims and the plugins' objects, the typed Volcano clients for
// Jobs and PodGroups, and the PodGroup informer's lister for reads. Its
// only state is which of its own writes the informers have not shown yet
// (inFlight, safe for concurrent use), so one Applier serves every worker.
type Applier struct {
	Kube    kubernetes.Interface
	Volcano Volcano
	// PodGroups reads PodGroups from the informer's lister.
	PodGroups PodGroupGetter
	// StatusWritten, when set, is handed the job as the API server returned
	// it after each status write; the controller caches it, so the next
	// step does not decide on (and write with) the stale resourceVersion.
	StatusWritten func(*vcjob.Job)
	// DeleteFailed, when set, is told of each pod whose delete failed; the
	// controller retries it on its own with backoff.
	DeleteFailed func(*corev1.Pod, error)
	Metrics      *Metrics
	// Timeout bounds each API call (30 s when zero).
	Timeout time.Duration

	// recent are the pods created and PodGroups deleted that the
	// informers have not shown yet (nil: none remembered).
	recent *inFlight
	// Wake, when set, is told of a job none of whose created pods is
	// awaited any more.
	Wake func(job string)
}

var _ statemachine.Applier = (*Applier)(nil)

// ctx bounds one API call of a step by the Timeout, within the step's
// context: a controller asked to stop (or that lost its lease) stops the
// call, the step fails with the context's error, and the next leader's
// syncs, planned afresh from what the API server holds, finish the work
// (see the statemachine package doc).
func (a *Applier) ctx(parent context.Context) (context.Context, context.CancelFunc) {
	t := a.Timeout
	if t == 0 {
		t = 30 * time.Second
	}
	return context.WithTimeout(parent, t)
}

// PodGroupState implements statemachine.Applier: the job's PodGroup (new
// name, then the legacy one) as the informer sees it.
func (a *Applier) PodGroupState(_ context.Context, job *vcjob.Job) (statemachine.PodGroupState, error) {
	pg, found, err := a.findPodGroup(job)
	if err != nil || !found {
		return statemachine.PodGroupState{}, err
	}
	return statemachine.PodGroupState{Exists: true, Phase: pg.Status.Phase, Conditions: pg.Status.Conditions}, nil
}

func (a *Applier) findPodGroup(job *vcjob.Job) (*podgroup.PodGroup, bool, error) {
	return podgroup.Find(job, func(name string) (*podgroup.PodGroup, bool, error) {
		return a.PodGroups(job.Namespace, name)
	})
}

// ApplyPodGroup implements statemachine.Applier: create the PodGroup when
// the job has none, else write podgroup.Update's changes. The write is a
// JSON patch of the five fields Update owns, guarded by the cached
// object's resourceVersion (a conflict fails the step, which is
// requeued), so fields this controller does not know (status conditions,
// newer spec fields) survive, with no read before the write.
func (a *Applier) ApplyPodGroup(ctx context.Context, desired *podgroup.PodGroup) error {
	job := &vcjob.Job{ObjectMeta: metav1.ObjectMeta{Namespace: desired.Namespace, Name: desired.Name}}
	if o := metav1.GetControllerOf(desired); o != nil {
		job.Name, job.UID = o.Name, o.UID
	}
	existing, found, err := a.findPodGroup(job)
	if err != nil {
		return err
	}
	// Every sync comes here and nearly all find nothing to write: the
	// context and client are made only for a write.
	if !found {
		key := desired.Namespace + "/" + desired.Name
		if a.recent.podGroupCreated(key) {
			// Created by an earlier sync, not shown by the informer yet:
			// a create would be answered 409.
			return nil
		}
		ctx, cancel := a.ctx(ctx)
		defer cancel()
		pg := desired.DeepCopy()
		pg.Status = podgroup.Status{}
		_, err = a.Volcano.PodGroups(desired.Namespace).Create(ctx, pg, metav1.CreateOptions{FieldManager: FieldManager})
		if err == nil || apierrors.IsAlreadyExists(err) {
			// It exists: until the informer shows it, syncs do not
			// create it again; the first sync after that updates it.
			a.recent.createdPodGroup(key)
			return nil
		}
		return err
	}
	// Nearly every sync finds nothing to change: ask before Update copies
	// the PodGroup.
	if !podgroup.NeedsUpdate(existing, desired) {
		return nil
	}
	next, changed := podgroup.Update(*existing, *desired)
	if !changed {
		return nil
	}
	patch, err := podGroupPatch(existing, &next)
	if err != nil {
		return err
	}
	ctx, cancel := a.ctx(ctx)
	defer cancel()
	_, err = a.Volcano.PodGroups(desired.Namespace).Patch(ctx, existing.Name, types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: FieldManager})
	return err
}

// podGroupFields are the spec fields podgroup.Update owns.
var podGroupFields = []string{"priorityClassName", "minMember", "minResources", "minTaskMember", "subGroupPolicy"}

// podGroupPatch is the JSON patch (RFC 6902) that takes the spec fields
// podgroup.Update owns from existing's values to next's, after a test of
// existing's resourceVersion.
func podGroupPatch(existing, next *podgroup.PodGroup) ([]byte, error) {
	have, err := specFields(&existing.Spec)
	if err != nil {
		return nil, err
	}
	want, err := specFields(&next.Spec)
	if err != nil {
		return nil, err
	}
	type op struct {
		Op    string          `json:"op"`
		Path  string          `json:"path"`
		Value json.RawMessage `json:"value,omitempty"`
	}
	var ops []op
	if existing.ResourceVersion != "" {
		rv, _ := json.Marshal(existing.ResourceVersion)
		ops = append(ops, op{Op: "test", Path: "/metadata/resourceVersion", Value: rv})
	}
	for _, f := range podGroupFields {
		v, ok := want[f]
		switch _, had := have[f]; {
		case ok:
			ops = append(ops, op{Op: "add", Path: "/spec/" + f, Value: v}) // add replaces a member that exists
		case had:
			ops = append(ops, op{Op: "remove", Path: "/spec/" + f})
		}
	}
	return json.Marshal(ops)
}

func specFields(spec *podgroup.Spec) (map[string]json.RawMessage, error) {
	data, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	out := map[string]json.RawMessage{}
	return out, json.Unmarshal(data, &out)
}

// DeletePodGroup implements statemachine.Applier; NotFound reports false.
// A PodGroup the informer's cache does not hold is not deleted: every
// event of a finished job is a kill, and without the look-up each one
// would send a delete answered NotFound (Volcano looks in its PodGroup
// lister too).
func (a *Applier) DeletePodGroup(ctx context.Context, job *vcjob.Job) (bool, error) {
	name := podgroup.Name(job)
	var uid types.UID
	if a.PodGroups != nil {
		pg, found, err := a.PodGroups(job.Namespace, name)
		if err == nil && !found {
			return false, nil
		}
		if found {
			// Deleted already by an earlier kill; the lister has not
			// shown the delete yet.
			if a.recent.podGroupDeleted(pg.UID) {
				return false, nil
			}
			uid = pg.UID
		}
	}
	ctx, cancel := a.ctx(ctx)
	defer cancel()
	err := a.Volcano.PodGroups(job.Namespace).Delete(ctx, name, metav1.DeleteOptions{})
	switch {
	case apierrors.IsNotFound(err):
		a.recent.deletedPodGroup(uid)
		return false, nil
	case err != nil:
		return false, err
	}
	a.recent.deletedPodGroup(uid)
	return true, nil
}

// ApplyObjects implements statemachine.Applier. Services, ConfigMaps and
// NetworkPolicies are server-side applied (create or update in one call,
// a no-op when nothing changed, defaults the API server fills in are not
// fought over). A Secret (the ssh plugin's key pair) is only created: an
// existing one is kept, so pods already running never see their keys
// rotated under them. Deletes treat NotFound as done.
func (a *Applier) ApplyObjects(ctx context.Context, objs plugins.Objects) error {
	for _, o := range objs.Apply {
		if err := a.applyObject(ctx, o); err != nil {
			return err
		}
	}
	for _, r := range objs.Delete {
		if err := a.deleteObject(ctx, r); err != nil {
			return fmt.Errorf("delete %s: %w", r, err)
		}
	}
	return nil
}

func (a *Applier) applyObject(ctx context.Context, obj runtime.Object) error {
	ctx, cancel := a.ctx(ctx)
	defer cancel()
	if s, ok := obj.(*corev1.Secret); ok {
		_, err := a.Kube.CoreV1().Secrets(s.Namespace).Create(ctx, s, metav1.CreateOptions{FieldManager: FieldManager})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create secret %s/%s: %w", s.Namespace, s.Name, err)
		}
		return nil
	}
	data, err := applyPatch(obj)
	if err != nil {
		return err
	}
	force := true
	opts := metav1.PatchOptions{FieldManager: FieldManager, Force: &force}
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	ns, name := m.GetNamespace(), m.GetName()
	switch obj.(type) {
	case *corev1.Service:
		_, err = a.Kube.CoreV1().Services(ns).Patch(ctx, name, types.ApplyPatchType, data, opts)
	case *corev1.ConfigMap:
		_, err = a.Kube.CoreV1().ConfigMaps(ns).Patch(ctx, name, types.ApplyPatchType, data, opts)
	case *networkingv1.NetworkPolicy:
		_, err = a.Kube.NetworkingV1().NetworkPolicies(ns).Patch(ctx, name, types.ApplyPatchType, data, opts)
	default:
		return fmt.Errorf("apply %T %s/%s: kind not supported", obj, ns, name)
	}
	if err != nil {
		return fmt.Errorf("apply %s %s/%s: %w", obj.GetObjectKind().GroupVersionKind().Kind, ns, name, err)
	}
	return nil
}

// applyPatch is obj as a server-side apply body: its JSON without status
// (not the controller's to set) and without the null creationTimestamp a
// typed object encodes.
func applyPatch(obj runtime.Object) ([]byte, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, err
	}
	delete(fields, "status")
	if raw, ok := fields["metadata"]; ok {
		var md map[string]json.RawMessage
		if err := json.Unmarshal(raw, &md); err != nil {
			return nil, err
		}
		if string(md["creationTimestamp"]) == "null" {
			delete(md, "creationTimestamp")
		}
		if fields["metadata"], err = json.Marshal(md); err != nil {
			return nil, err
		}
	}
	return json.Marshal(fields)
}

func (a *Applier) deleteObject(ctx context.Context, r plugins.ObjectRef) error {
	ctx, cancel := a.ctx(ctx)
	defer cancel()
	var err error
	switch r.Kind {
	case "Service":
		err = a.Kube.CoreV1().Services(r.Namespace).Delete(ctx, r.Name, metav1.DeleteOptions{})
	case "ConfigMap":
		err = a.Kube.CoreV1().ConfigMaps(r.Namespace).Delete(ctx, r.Name, metav1.DeleteOptions{})
	case "Secret":
		err = a.Kube.CoreV1().Secrets(r.Namespace).Delete(ctx, r.Name, metav1.DeleteOptions{})
	case "NetworkPolicy":
		err = a.Kube.NetworkingV1().NetworkPolicies(r.Namespace).Delete(ctx, r.Name, metav1.DeleteOptions{})
	default:
		return errors.New("kind not supported")
	}
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// EnsureClaim implements statemachine.Applier: a missing claim with a spec
// is created, owned by the job; a missing claim without one is an error
// (the job waits for it).
func (a *Applier) EnsureClaim(ctx context.Context, job *vcjob.Job, claim statemachine.Claim) error {
	ctx, cancel := a.ctx(ctx)
	defer cancel()
	pvcs := a.Kube.CoreV1().PersistentVolumeClaims(job.Namespace)
	_, err := pvcs.Get(ctx, claim.Name, metav1.GetOptions{})
	if err == nil || !apierrors.IsNotFound(err) {
		return err
	}
	if claim.Spec == nil {
		return statemachine.ClaimNotFound(claim.Name)
	}
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: job.Namespace, Name: claim.Name,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job, jobGVK)}},
		Spec: *claim.Spec.DeepCopy(),
	}
	_, err = pvcs.Create(ctx, pvc, metav1.CreateOptions{FieldManager: FieldManager})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// CreatePod implements statemachine.Applier; AlreadyExists is success (the
// informer had not shown the pod yet). A pod this controller created that
// the informer has not shown yet is not sent again: it would be answered
// AlreadyExists.
func (a *Applier) CreatePod(ctx context.Context, pod *corev1.Pod) error {
	key := pod.Namespace + "/" + pod.Name
	if a.recent.podCreated(key) {
		return nil
	}
	// Recorded before it is sent: the pod's add event may come before
	// the answer.
	a.recent.createdPod(key, vcjob.JobKey(pod.Namespace, pod.Annotations[vcjob.JobNameKey]))
	ctx, cancel := a.ctx(ctx)
	defer cancel()
	err := a.createPod(ctx, pod)
	switch {
	case apierrors.IsAlreadyExists(err):
		// Not created now: the informer may have shown it already, and
		// no add event would come to end the wait for it.
		a.woken(a.recent.addedPod(key))
		return nil
	case err != nil:
		a.woken(a.recent.seenPod(key))
		return err
	}
	a.Metrics.Inc(MetricPodsCreated)
	return nil
}

// createPod sends the pod without decoding the server's answer: the
// informer brings the created pod anyway, so decoding its echo here
// would be work thrown away on every pod the controller creates (and
// with DiscardAnswers on the transport, as main.go has it, the echo is
// not even read into memory). A clientset without a REST client
// (client-go's fake) takes the typed path.
func (a *Applier) createPod(ctx context.Context, pod *corev1.Pod) error {
	ctx = WithoutAnswer(ctx)
	if rc, ok := a.Kube.CoreV1().RESTClient().(*rest.RESTClient); ok && rc != nil {
		return rc.Post().Namespace(pod.Namespace).Resource("pods").
			Param("fieldManager", FieldManager).Body(pod).Do(ctx).Error()
	}
	_, err := a.Kube.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{FieldManager: FieldManager})
	return err
}

// woken hands Wake the job whose last awaited pod this was.
func (a *Applier) woken(job string, last bool) {
	if last && a.Wake != nil {
		a.Wake(job)
	}
}

// outOfSyncPatch marks a pod as one the controller is getting rid of.
var outOfSyncPatch = []byte(`{"metadata":{"annotations":{"` + vcjob.PodOutOfSyncKey + `":"true"}}}`)

// DeletePod implements statemachine.Applier: mark the pod out-of-sync,
// then delete it. NotFound is success; so is a delete refused because the
// pod of that name has another UID (the pod meant is gone). A failed
// delete is also handed to DeleteFailed for retrying with backoff.
func (a *Applier) DeletePod(ctx context.Context, pod *corev1.Pod) error {
	err := a.deletePod(ctx, pod)
	// A delete the step's context stopped is not retried: the controller
	// is stopping, and the next leader's syncs see the pod.
	if err != nil && a.DeleteFailed != nil && ctx.Err() == nil {
		a.DeleteFailed(pod, err)
	}
	return err
}

func (a *Applier) deletePod(ctx context.Context, pod *corev1.Pod) error {
	a.recent.seenPod(pod.Namespace + "/" + pod.Name) // its worker deletes it: no one waits for it
	ctx, cancel := a.ctx(ctx)
	defer cancel()
	pods := a.Kube.CoreV1().Pods(pod.Namespace)
	if pod.Annotations[vcjob.PodOutOfSyncKey] != "true" {
		_, err := pods.Patch(ctx, pod.Name, types.MergePatchType, outOfSyncPatch, metav1.PatchOptions{FieldManager: FieldManager})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return &statemachine.MarkError{Err: err}
		}
	}
	opts := metav1.DeleteOptions{}
	if pod.UID != "" {
		opts.Preconditions = &metav1.Preconditions{UID: &pod.UID}
	}
	err := pods.Delete(ctx, pod.Name, opts)
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	if err != nil {
		return err
	}
	a.Metrics.Inc(MetricPodsDeleted)
	return nil
}

// UpdateStatus implements statemachine.Applier: the status subresource,
// with the job's resourceVersion, so a concurrent change fails the write
// with a Conflict (the step fails and its request is requeued).
//
// On success the job handed in takes the new resourceVersion and status:
// SyncJob writes twice with the same job (the initial Pending status, then
// the counts), and the second write must not conflict with the first.
func (a *Applier) UpdateStatus(ctx context.Context, job *vcjob.Job, status *vcjob.JobStatus) error {
	// A status equal to the one the job already has is not sent: the API
	// server would change nothing (no new resourceVersion, no event), and
	// every event of a finished job is a kill that writes its unchanged
	// status again. The job's status is the cache's, which holds at least
	// this controller's own last write (StatusWritten), and only this
	// controller writes job status.
	if statusEqual(&job.Status, status) {
		a.Metrics.Inc(MetricStatusWritesSkipped)
		return nil
	}
	return a.writeStatus(ctx, job, status)
}

// ClaimExists implements statemachine.Applier: whether a volume claim of
// that name exists (NotFound is false). The library asks only while it
// draws a name for a volume that has none, when a job is initiated.
func (a *Applier) ClaimExists(ctx context.Context, namespace, name string) (bool, error) {
	ctx, cancel := a.ctx(ctx)
	defer cancel()
	_, err := a.Kube.CoreV1().PersistentVolumeClaims(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// statusEqual reports whether two statuses are the same to the API server.
// The counts, phase and version are looked at first: a kill of a finished
// job bumps the version, and the reflective walk would reach it only after
// comparing the times (through reflect.Call) on the way.
func statusEqual(a, b *vcjob.JobStatus) bool {
	if a.State.Phase != b.State.Phase || a.Version != b.Version || a.RetryCount != b.RetryCount ||
		a.Pending != b.Pending || a.Running != b.Running || a.Succeeded != b.Succeeded || a.Failed != b.Failed ||
		a.Terminating != b.Terminating || a.Unknown != b.Unknown || a.MinAvailable != b.MinAvailable ||
		len(a.Conditions) != len(b.Conditions) {
		return false
	}
	return equality.Semantic.DeepEqual(a, b)
}

// writeStatus sends status for job to the status subresource. The encoder
// only reads: a shallow copy of the job with the new status will do,
// rather than a copy of the whole job, templates and all.
func (a *Applier) writeStatus(ctx context.Context, job *vcjob.Job, status *vcjob.JobStatus) error {
	next := *job
	next.Status = *status
	ctx, cancel := a.ctx(ctx)
	defer cancel()
	out, err := a.Volcano.Jobs(job.Namespace).UpdateStatus(ctx, &next, metav1.UpdateOptions{FieldManager: FieldManager})
	if err != nil {
		return err
	}
	a.Metrics.Inc(MetricStatusWrites)
	job.ResourceVersion = out.GetResourceVersion()
	job.Status = *status.DeepCopy()
	if a.StatusWritten != nil {
		out.ManagedFields = nil
		a.StatusWritten(PrepareJob(out))
	}
	return nil
}

// UpdateJob implements statemachine.Applier: the job itself is written
// (its spec holds the claim names the library generated), with the API
// server's conflict check on its resourceVersion; job takes the new one,
// and the controller's cache the job as written.
func (a *Applier) UpdateJob(ctx context.Context, job *vcjob.Job) error {
	ctx, cancel := a.ctx(ctx)
	defer cancel()
	out, err := a.Volcano.Jobs(job.Namespace).Update(ctx, job, metav1.UpdateOptions{FieldManager: FieldManager})
	if err != nil {
		return err
	}
	a.Metrics.Inc(MetricJobWrites)
	job.ResourceVersion = out.GetResourceVersion()
	if a.StatusWritten != nil {
		// The server keeps the status it has; the step goes on with its own.
		out.ManagedFields = nil
		out.Status = job.Status
		a.StatusWritten(PrepareJob(out))
	}
	return nil
}
