package applier

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"

	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
	"github.com/vcjob/vcjob/request"
)

// CreatePod implements statemachine.Applier; AlreadyExists is success (the
// informer had not shown the pod yet). A pod this controller created that
// the informer has not shown yet is not sent again: it would be answered
// AlreadyExists.
func (a *Applier) CreatePod(parent context.Context, pod *corev1.Pod) error {
	key := pod.Namespace + "/" + pod.Name
	if a.Expectations.PodCreationExpected(key) {
		return nil
	}
	// Expected before it is sent: the pod's add event may come before
	// the answer.
	a.Expectations.ExpectPodCreation(key, request.JobKey(pod.Namespace, pod.Annotations[vcjob.JobNameKey]))
	ctx, cancel := CallContext(parent)
	defer cancel()
	_, err := a.Kube.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{FieldManager: clients.FieldManager})
	switch {
	case apierrors.IsAlreadyExists(err):
		// Not created now: the informer may have shown it already, and
		// no add event would come to observe it.
		a.satisfied(a.Expectations.CreationObserved(key))
		return nil
	case err != nil:
		a.satisfied(a.Expectations.DeletionObserved(key))
		return err
	}
	a.Metrics.PodsCreated.Inc()
	return nil
}

// satisfied tells Satisfied of a job whose last expected pod this was.
func (a *Applier) satisfied(job string, last bool) {
	if last && a.Satisfied != nil {
		a.Satisfied(job)
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
	if err != nil && a.DeleteFailed != nil {
		a.DeleteFailed(ctx, pod, err)
	}
	return err
}

func (a *Applier) deletePod(parent context.Context, pod *corev1.Pod) error {
	a.Expectations.DeletionObserved(pod.Namespace + "/" + pod.Name) // its worker deletes it: no one waits for it
	ctx, cancel := CallContext(parent)
	defer cancel()
	pods := a.Kube.CoreV1().Pods(pod.Namespace)
	if pod.Annotations[vcjob.PodOutOfSyncKey] != "true" {
		_, err := pods.Patch(ctx, pod.Name, types.MergePatchType, outOfSyncPatch, metav1.PatchOptions{FieldManager: clients.FieldManager})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("mark pod %s out of sync: %w", pod.Name, err)
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
	a.Metrics.PodsDeleted.Inc()
	return nil
}
