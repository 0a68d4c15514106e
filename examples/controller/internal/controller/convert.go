package controller

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
)

// PrepareJob readies a Job as the API server returns it for the cache:
// Volcano's defaults filled in in memory (what Volcano's mutating webhook
// would have written on create; a no-op for a job that has them), so that
// every decision sees the same spec whether or not a webhook ran, and its
// apiVersion and kind set (typed decoding leaves them empty).
func PrepareJob(job *vcjob.Job) *vcjob.Job {
	job.APIVersion, job.Kind = vcjob.APIVersion, vcjob.JobKind
	vcjob.SetDefaults(job)
	return job
}

// jobTransform is the job informer's transform: each job is defaulted
// once per change instead of once per read, and loses its managed fields,
// which nobody reads.
func jobTransform(obj any) (any, error) {
	if j, ok := obj.(*vcjob.Job); ok {
		j.ManagedFields = nil
		PrepareJob(j)
	}
	return obj, nil
}

// stripTransform drops managed fields (the bulk of a cached pod) and sets
// the typed object's apiVersion and kind.
func stripTransform(gvk schema.GroupVersionKind) cache.TransformFunc {
	return func(obj any) (any, error) {
		if m, ok := obj.(interface {
			metav1.Object
			GetObjectKind() schema.ObjectKind
		}); ok {
			m.SetManagedFields(nil)
			if !gvk.Empty() {
				m.GetObjectKind().SetGroupVersionKind(gvk)
			}
		}
		return obj, nil
	}
}

// podTransform drops managed fields from pods, the bulk of the cache.
var podTransform = stripTransform(schema.GroupVersionKind{})

// unwrap takes the object out of a deletion tombstone.
func unwrap(obj any) any {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return t.Obj
	}
	return obj
}

func asJob(obj any) (*vcjob.Job, error) {
	if j, ok := unwrap(obj).(*vcjob.Job); ok {
		return j, nil
	}
	return nil, fmt.Errorf("unexpected %T in the job informer", unwrap(obj))
}

func asPodGroup(obj any) (*podgroup.PodGroup, error) {
	if pg, ok := unwrap(obj).(*podgroup.PodGroup); ok {
		return pg, nil
	}
	return nil, fmt.Errorf("unexpected %T in the podgroup informer", unwrap(obj))
}

func asCommand(obj any) (*vcjob.Command, error) {
	if c, ok := unwrap(obj).(*vcjob.Command); ok {
		return c, nil
	}
	return nil, fmt.Errorf("unexpected %T in the command informer", unwrap(obj))
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

var jobGVK = vcjob.SchemeGroupVersion.WithKind(vcjob.JobKind)
