package clients

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"github.com/vcjob/vcjob/validation"
)

// QueuesResource is Volcano's Queue (cluster-scoped).
var QueuesResource = schema.GroupVersionResource{Group: "scheduling.volcano.sh", Version: "v1beta1", Resource: "queues"}

// parentIndex indexes queues by spec.parent ("root" when unset, as Volcano
// reads it).
const parentIndex = "parent"

// Queues answers validation's queue rules (exists, Open, a leaf, not
// root) from an informer on Volcano's queues, as Volcano's webhook asks
// its queue lister. It reads two fields of each queue, so it watches them
// through the dynamic client rather than a typed one.
type Queues struct {
	informer cache.SharedIndexInformer
}

var _ validation.QueueLookup = (*Queues)(nil)

// NewQueues builds the informer; the job controller runs it
// (jobcontroller.Config.Queues).
func NewQueues(dyn dynamic.Interface, resync time.Duration) (*Queues, error) {
	f := dynamicinformer.NewDynamicSharedInformerFactory(dyn, resync)
	inf := f.ForResource(QueuesResource).Informer()
	err := inf.AddIndexers(cache.Indexers{parentIndex: func(obj any) ([]string, error) {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return nil, nil
		}
		return []string{queueParent(u)}, nil
	}})
	if err != nil {
		return nil, fmt.Errorf("queues: %w", err)
	}
	return &Queues{informer: inf}, nil
}

func queueParent(u *unstructured.Unstructured) string {
	parent, _, _ := unstructured.NestedString(u.Object, "spec", "parent")
	if parent == "" && u.GetName() != validation.RootQueue {
		return validation.RootQueue
	}
	return parent
}

// Informer is the queue informer, for the controller to run and wait on.
func (q *Queues) Informer() cache.SharedIndexInformer { return q.informer }

// Queue implements validation.QueueLookup: the queue's status.state.
func (q *Queues) Queue(name string) (string, bool, error) {
	obj, exists, err := q.informer.GetIndexer().GetByKey(name)
	if err != nil || !exists {
		return "", false, err
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return "", false, fmt.Errorf("queue %s: unexpected %T", name, obj)
	}
	state, _, _ := unstructured.NestedString(u.Object, "status", "state")
	return state, true, nil
}

// Children implements validation.QueueLookup: the queues whose parent is
// name.
func (q *Queues) Children(name string) (int, error) {
	objs, err := q.informer.GetIndexer().ByIndex(parentIndex, name)
	return len(objs), err
}
