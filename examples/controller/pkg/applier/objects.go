package applier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/plugins"
	"github.com/vcjob/vcjob/statemachine"

	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
)

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

func (a *Applier) applyObject(parent context.Context, obj runtime.Object) error {
	ctx, cancel := CallContext(parent)
	defer cancel()
	if s, ok := obj.(*corev1.Secret); ok {
		_, err := a.Kube.CoreV1().Secrets(s.Namespace).Create(ctx, s, metav1.CreateOptions{FieldManager: clients.FieldManager})
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
	opts := metav1.PatchOptions{FieldManager: clients.FieldManager, Force: &force}
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

func (a *Applier) deleteObject(parent context.Context, r plugins.ObjectRef) error {
	ctx, cancel := CallContext(parent)
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
func (a *Applier) EnsureClaim(parent context.Context, job *vcjob.Job, claim statemachine.Claim) error {
	ctx, cancel := CallContext(parent)
	defer cancel()
	pvcs := a.Kube.CoreV1().PersistentVolumeClaims(job.Namespace)
	_, err := pvcs.Get(ctx, claim.Name, metav1.GetOptions{})
	if err == nil || !apierrors.IsNotFound(err) {
		return err
	}
	if claim.Spec == nil {
		return fmt.Errorf("pvc %s is not found, the job will be in the Pending state until the PVC is created", claim.Name)
	}
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: job.Namespace, Name: claim.Name,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job, jobGVK)}},
		Spec: *claim.Spec.DeepCopy(),
	}
	_, err = pvcs.Create(ctx, pvc, metav1.CreateOptions{FieldManager: clients.FieldManager})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

var jobGVK = vcjob.SchemeGroupVersion.WithKind(vcjob.JobKind)

// ClaimExists implements statemachine.Applier: whether a volume claim of
// that name exists (NotFound is false). The library asks only while it
// draws a name for a volume that has none, when a job is initiated.
func (a *Applier) ClaimExists(parent context.Context, namespace, name string) (bool, error) {
	ctx, cancel := CallContext(parent)
	defer cancel()
	_, err := a.Kube.CoreV1().PersistentVolumeClaims(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}
