package controller

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
)

// The custom resources the controller reads and writes through the dynamic
// client.
var (
	JobsResource      = schema.GroupVersionResource{Group: vcjob.GroupName, Version: vcjob.Version, Resource: "jobs"}
	PodGroupsResource = schema.GroupVersionResource{Group: podgroup.GroupName, Version: podgroup.Version, Resource: "podgroups"}
	CommandsResource  = schema.GroupVersionResource{Group: vcjob.BusGroupName, Version: "v1alpha1", Resource: "commands"}
)

// fromUnstructured converts an informer's or a client's unstructured object
// into one of vcjob's typed mirrors. Fields the types do not know are
// dropped (the CRDs prune them anyway).
func fromUnstructured(u *unstructured.Unstructured, into runtime.Object) error {
	return runtime.DefaultUnstructuredConverter.FromUnstructured(u.UnstructuredContent(), into)
}

// toUnstructured is the reverse, for writes through the dynamic client.
func toUnstructured(obj runtime.Object, gvk schema.GroupVersionKind) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(gvk)
	// A zero creationTimestamp encodes as null; the API server ignores it,
	// but it is noise in requests and in server-side apply.
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	return u, nil
}

// JobFromUnstructured converts a Job as the API server returns it and
// fills in Volcano's defaults in memory (what Volcano's mutating webhook
// would have written on create; a no-op for a job that has them), so that
// every decision sees the same spec whether or not a webhook ran.
func JobFromUnstructured(u *unstructured.Unstructured) (*vcjob.Job, error) {
	job := &vcjob.Job{}
	if err := fromUnstructured(u, job); err != nil {
		return nil, fmt.Errorf("job %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	job.APIVersion, job.Kind = vcjob.APIVersion, vcjob.JobKind
	vcjob.SetDefaults(job)
	return job, nil
}

// PodGroupFromUnstructured converts a PodGroup.
func PodGroupFromUnstructured(u *unstructured.Unstructured) (*podgroup.PodGroup, error) {
	pg := &podgroup.PodGroup{}
	if err := fromUnstructured(u, pg); err != nil {
		return nil, fmt.Errorf("podgroup %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	pg.APIVersion, pg.Kind = podgroup.APIVersion, podgroup.Kind
	return pg, nil
}

// CommandFromUnstructured converts a Command.
func CommandFromUnstructured(u *unstructured.Unstructured) (*vcjob.Command, error) {
	cmd := &vcjob.Command{}
	if err := fromUnstructured(u, cmd); err != nil {
		return nil, fmt.Errorf("command %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	cmd.APIVersion, cmd.Kind = vcjob.BusAPIVersion, vcjob.CommandKind
	return cmd, nil
}

// typedTransform is an informer transform: the store then holds typed
// objects, converted once per change instead of once per read. An object
// that does not convert stays unstructured; the handlers log and skip it.
func typedTransform(convert func(*unstructured.Unstructured) (runtime.Object, error)) cache.TransformFunc {
	return func(obj any) (any, error) {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return obj, nil // a tombstone or an already typed object
		}
		out, err := convert(u)
		if err != nil {
			return u, nil
		}
		// Nobody reads managed fields; they are a large part of each object.
		if m, ok := out.(metav1.Object); ok {
			m.SetManagedFields(nil)
		}
		return out, nil
	}
}

func jobTransform() cache.TransformFunc {
	return typedTransform(func(u *unstructured.Unstructured) (runtime.Object, error) { return JobFromUnstructured(u) })
}

func podGroupTransform() cache.TransformFunc {
	return typedTransform(func(u *unstructured.Unstructured) (runtime.Object, error) { return PodGroupFromUnstructured(u) })
}

func commandTransform() cache.TransformFunc {
	return typedTransform(func(u *unstructured.Unstructured) (runtime.Object, error) { return CommandFromUnstructured(u) })
}

// podTransform drops managed fields from pods, the bulk of the cache.
func podTransform(obj any) (any, error) {
	if p, ok := obj.(*corev1.Pod); ok {
		p.ManagedFields = nil
	}
	return obj, nil
}

// unwrap takes the object out of a deletion tombstone.
func unwrap(obj any) any {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return t.Obj
	}
	return obj
}

func asJob(obj any) (*vcjob.Job, error) {
	switch o := unwrap(obj).(type) {
	case *vcjob.Job:
		return o, nil
	case *unstructured.Unstructured:
		return JobFromUnstructured(o)
	default:
		return nil, fmt.Errorf("unexpected %T in the job informer", o)
	}
}

func asPodGroup(obj any) (*podgroup.PodGroup, error) {
	switch o := unwrap(obj).(type) {
	case *podgroup.PodGroup:
		return o, nil
	case *unstructured.Unstructured:
		return PodGroupFromUnstructured(o)
	default:
		return nil, fmt.Errorf("unexpected %T in the podgroup informer", o)
	}
}

func asCommand(obj any) (*vcjob.Command, error) {
	switch o := unwrap(obj).(type) {
	case *vcjob.Command:
		return o, nil
	case *unstructured.Unstructured:
		return CommandFromUnstructured(o)
	default:
		return nil, fmt.Errorf("unexpected %T in the command informer", o)
	}
}

func asPod(obj any) (*corev1.Pod, bool) {
	p, ok := unwrap(obj).(*corev1.Pod)
	return p, ok
}

// jobOfPodGroup is the job a PodGroup belongs to: its controller owner
// when that is a vcjob, else (a legacy PodGroup) its own name.
func jobOfPodGroup(pg *podgroup.PodGroup) string {
	if o := metav1.GetControllerOf(pg); o != nil && o.APIVersion == vcjob.APIVersion && o.Kind == vcjob.JobKind {
		return o.Name
	}
	return pg.Name
}

var jobGVK = schema.GroupVersionKind{Group: vcjob.GroupName, Version: vcjob.Version, Kind: vcjob.JobKind}
