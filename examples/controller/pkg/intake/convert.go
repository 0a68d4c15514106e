package intake

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
)

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
