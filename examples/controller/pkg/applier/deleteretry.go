package applier

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/vcjob/vcjob/worker"

	"github.com/vcjob/vcjob/examples/controller/pkg/metrics"
)

type podRef struct {
	Namespace, Name string
	UID             types.UID
}

// DeleteRetrier retries the deletes of pods whose delete failed, each on
// its own schedule: worker.DeleteBackoff (5 ms doubling to 180 s, at most
// 10 retries). The step that failed is requeued as well; whichever gets
// there first wins, and the other finds the pod gone or terminating.
type DeleteRetrier struct {
	pods    corelisters.PodLister
	delete  func(context.Context, *corev1.Pod) error
	queue   workqueue.TypedDelayingInterface[podRef]
	metrics *metrics.Metrics

	mu       sync.Mutex
	attempts map[podRef]int
}

// NewDeleteRetrier retries the failed pod deletes of a, reading the pods
// from the lister, on clk's time (nil: the real clock); the caller sets
// a.DeleteFailed to its Failed and runs it.
func NewDeleteRetrier(pods corelisters.PodLister, a *Applier, clk clock.WithTicker) *DeleteRetrier {
	return &DeleteRetrier{pods: pods, delete: a.deletePod, metrics: a.Metrics, attempts: map[podRef]int{},
		queue: workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[podRef]{
			Name: "pod-delete-retry", Clock: clk})}
}

// Failed schedules the first retry of a pod's delete; a pod already being
// retried keeps its schedule. It logs with ctx's logger (the failed
// step's).
func (r *DeleteRetrier) Failed(ctx context.Context, pod *corev1.Pod, err error) {
	ref := podRef{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID}
	r.mu.Lock()
	_, busy := r.attempts[ref]
	if !busy {
		r.attempts[ref] = 0
		r.metrics.DeleteRetriesPending.Inc()
	}
	r.mu.Unlock()
	if busy {
		return
	}
	wait, _ := worker.DeleteBackoff(0)
	klog.FromContext(ctx).V(2).Info("Pod delete failed; retrying", "pod", klog.KRef(ref.Namespace, ref.Name), "after", wait, "err", err)
	r.queue.AddAfter(ref, wait)
}

// Run retries until ctx is done, logging with ctx's logger.
func (r *DeleteRetrier) Run(ctx context.Context) {
	go func() {
		<-ctx.Done()
		r.queue.ShutDown()
	}()
	for r.processNext(ctx) {
	}
}

// processNext retries the next delete that has come due, waiting for
// one; false: the queue is shut down.
func (r *DeleteRetrier) processNext(ctx context.Context) bool {
	ref, shutdown := r.queue.Get()
	if shutdown {
		return false
	}
	r.retry(ctx, ref)
	r.queue.Done(ref)
	return true
}

// retry re-reads the pod from the lister (gone, replaced or already
// terminating ends the retries) and deletes it again.
func (r *DeleteRetrier) retry(ctx context.Context, ref podRef) {
	pod, err := r.pods.Pods(ref.Namespace).Get(ref.Name)
	switch {
	case apierrors.IsNotFound(err), err == nil && (pod.UID != ref.UID || pod.DeletionTimestamp != nil):
		r.finish(ref, "gone")
		return
	case err == nil:
		err = r.delete(ctx, pod)
		if err == nil {
			r.finish(ref, "deleted")
			return
		}
	}
	r.mu.Lock()
	r.attempts[ref]++
	n := r.attempts[ref]
	r.mu.Unlock()
	wait, ok := worker.DeleteBackoff(n)
	if !ok {
		klog.FromContext(ctx).Error(err, "Giving up deleting pod", "pod", klog.KRef(ref.Namespace, ref.Name), "retries", n)
		r.finish(ref, "gave_up")
		return
	}
	r.metrics.DeleteRetries.WithLabelValues("failed").Inc()
	r.queue.AddAfter(ref, wait)
}

func (r *DeleteRetrier) finish(ref podRef, outcome string) {
	r.mu.Lock()
	delete(r.attempts, ref)
	r.mu.Unlock()
	r.metrics.DeleteRetriesPending.Dec()
	r.metrics.DeleteRetries.WithLabelValues(outcome).Inc()
}
