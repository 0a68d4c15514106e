//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"

	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
)

// mode is what the simulated cluster does on its own in a namespace.
type mode struct {
	// Admit: a PodGroup without a phase goes Inqueue (the scheduler found
	// room for the gang).
	Admit bool
	// Bind: pods of an Inqueue or Running PodGroup are bound to a node, and
	// the PodGroup goes Running once minMember of them are bound.
	Bind bool
	// Start: bound Pending pods go Running, containers ready.
	Start bool
	// Complete: Running pods go Succeeded (exit code 0).
	Complete bool
	// FailFirstTry: on its job's first try (job-retry-count 0), a Running
	// pod of task index 0 ends Failed with exit code 3 and the others keep
	// running (a worker crashed while the rest work on); from the second
	// try on, Complete applies.
	FailFirstTry bool
	// KeepTerminating: pods being deleted are left to the test to finish
	// (TestVolcanoE2E plays the kubelet's finish as the simulator does).
	KeepTerminating bool
}

const simNode = "sim-node-1"

// cluster plays the scheduler and the kubelet for the whole API server,
// reacting to what its informers see. Whatever the mode, pods with a
// deletionTimestamp are finished off (deleted with grace period 0), as a
// kubelet does once the containers have stopped.
type cluster struct {
	kube  kubernetes.Interface
	dyn   dynamic.Interface
	pods  cache.SharedIndexInformer
	pgs   cache.SharedIndexInformer
	queue workqueue.TypedRateLimitingInterface[simKey]
	modes sync.Map // namespace -> mode

	binds, starts, completions, finished atomic.Int64
}

type simKey struct {
	podGroup        bool
	namespace, name string
}

const byGroup = "group"

func newCluster(kube kubernetes.Interface, dyn dynamic.Interface) *cluster {
	c := &cluster{kube: kube, dyn: dyn,
		queue: workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[simKey](5*time.Millisecond, time.Second))}
	c.pods = informers.NewSharedInformerFactory(kube, 0).Core().V1().Pods().Informer()
	_ = c.pods.AddIndexers(cache.Indexers{byGroup: func(obj any) ([]string, error) {
		p := obj.(*corev1.Pod)
		if g := p.Annotations[vcjob.PodGroupNameKey]; g != "" {
			return []string{p.Namespace + "/" + g}, nil
		}
		return nil, nil
	}})
	c.pgs = dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0).ForResource(clients.PodGroupsResource).Informer()
	return c
}

func (c *cluster) setMode(ns string, m mode) {
	c.modes.Store(ns, m)
	// Re-judge everything in the namespace under the new mode.
	for _, o := range c.pods.GetStore().List() {
		if p := o.(*corev1.Pod); p.Namespace == ns {
			c.queue.Add(simKey{namespace: ns, name: p.Name})
		}
	}
	for _, o := range c.pgs.GetStore().List() {
		if u := o.(*unstructured.Unstructured); u.GetNamespace() == ns {
			c.queue.Add(simKey{podGroup: true, namespace: ns, name: u.GetName()})
		}
	}
}

func (c *cluster) mode(ns string) mode {
	m, _ := c.modes.Load(ns)
	mm, _ := m.(mode)
	return mm
}

func (c *cluster) start(ctx context.Context) error {
	podKey := func(obj any) {
		if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = t.Obj
		}
		p := obj.(*corev1.Pod)
		c.queue.Add(simKey{namespace: p.Namespace, name: p.Name})
		if g := p.Annotations[vcjob.PodGroupNameKey]; g != "" {
			c.queue.Add(simKey{podGroup: true, namespace: p.Namespace, name: g})
		}
	}
	pgKey := func(obj any) {
		if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = t.Obj
		}
		u := obj.(*unstructured.Unstructured)
		c.queue.Add(simKey{podGroup: true, namespace: u.GetNamespace(), name: u.GetName()})
		members, _ := c.pods.GetIndexer().ByIndex(byGroup, u.GetNamespace()+"/"+u.GetName())
		for _, m := range members {
			p := m.(*corev1.Pod)
			c.queue.Add(simKey{namespace: p.Namespace, name: p.Name})
		}
	}
	if _, err := c.pods.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: podKey, UpdateFunc: func(_, n any) { podKey(n) }}); err != nil {
		return err
	}
	if _, err := c.pgs.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: pgKey, UpdateFunc: func(_, n any) { pgKey(n) }}); err != nil {
		return err
	}
	go c.pods.RunWithContext(ctx)
	go c.pgs.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), c.pods.HasSynced, c.pgs.HasSynced) {
		return fmt.Errorf("sim informers did not sync")
	}
	go func() { <-ctx.Done(); c.queue.ShutDown() }()
	for i := 0; i < 8; i++ {
		go func() {
			for {
				k, shutdown := c.queue.Get()
				if shutdown {
					return
				}
				var err error
				if k.podGroup {
					err = c.syncPodGroup(ctx, k)
				} else {
					err = c.syncPod(ctx, k)
				}
				if err != nil && c.queue.NumRequeues(k) < 20 {
					c.queue.AddRateLimited(k)
				} else {
					c.queue.Forget(k)
				}
				c.queue.Done(k)
			}
		}()
	}
	return nil
}

func (c *cluster) podGroupPhase(ns, name string) (podgroup.Phase, bool) {
	obj, ok, _ := c.pgs.GetStore().GetByKey(ns + "/" + name)
	if !ok {
		return "", false
	}
	p, _, _ := unstructured.NestedString(obj.(*unstructured.Unstructured).Object, "status", "phase")
	return podgroup.Phase(p), true
}

func (c *cluster) syncPod(ctx context.Context, k simKey) error {
	obj, ok, _ := c.pods.GetStore().GetByKey(k.namespace + "/" + k.name)
	if !ok {
		return nil
	}
	pod := obj.(*corev1.Pod)
	if pod.DeletionTimestamp != nil && !c.mode(pod.Namespace).KeepTerminating {
		zero := int64(0)
		err := c.kube.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero,
			Preconditions: &metav1.Preconditions{UID: &pod.UID}})
		if err == nil {
			c.finished.Add(1)
		}
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return nil
		}
		return err
	}
	m := c.mode(pod.Namespace)
	switch {
	case pod.Spec.NodeName == "":
		if !m.Bind {
			return nil
		}
		phase, ok := c.podGroupPhase(pod.Namespace, pod.Annotations[vcjob.PodGroupNameKey])
		if !ok || (phase != podgroup.PhaseInqueue && phase != podgroup.PhaseRunning) {
			return nil
		}
		err := c.kube.CoreV1().Pods(pod.Namespace).Bind(ctx, &corev1.Binding{
			ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
			Target:     corev1.ObjectReference{Kind: "Node", Name: simNode},
		}, metav1.CreateOptions{})
		if err == nil {
			c.binds.Add(1)
		}
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return nil // bound already, or gone
		}
		return err
	case pod.Status.Phase == corev1.PodPending && m.Start:
		err := setPodStatus(ctx, c.kube, pod, corev1.PodRunning, 0)
		if err == nil {
			c.starts.Add(1)
		}
		return ignoreGone(err)
	case pod.Status.Phase == corev1.PodRunning && m.Complete:
		phase, code := corev1.PodSucceeded, int32(0)
		if m.FailFirstTry && pod.Annotations[vcjob.JobRetryCountKey] == "0" {
			if pod.Annotations[vcjob.TaskIndexKey] != "0" {
				return nil // runs on until the restart kills it
			}
			phase, code = corev1.PodFailed, 3
		}
		err := setPodStatus(ctx, c.kube, pod, phase, code)
		if err == nil {
			c.completions.Add(1)
		}
		return ignoreGone(err)
	}
	return nil
}

func (c *cluster) syncPodGroup(ctx context.Context, k simKey) error {
	obj, ok, _ := c.pgs.GetStore().GetByKey(k.namespace + "/" + k.name)
	if !ok {
		return nil
	}
	u := obj.(*unstructured.Unstructured)
	m := c.mode(k.namespace)
	phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
	switch {
	case phase == "" && m.Admit:
		return ignoreGone(setPodGroupPhase(ctx, c.dyn, u, podgroup.PhaseInqueue))
	case phase == string(podgroup.PhaseInqueue) && m.Bind:
		minMember, _, _ := unstructured.NestedInt64(u.Object, "spec", "minMember")
		members, _ := c.pods.GetIndexer().ByIndex(byGroup, k.namespace+"/"+k.name)
		bound := 0
		for _, o := range members {
			if p := o.(*corev1.Pod); p.Spec.NodeName != "" && p.DeletionTimestamp == nil {
				bound++
			}
		}
		if int64(bound) >= minMember && minMember > 0 {
			return ignoreGone(setPodGroupPhase(ctx, c.dyn, u, podgroup.PhaseRunning))
		}
	}
	return nil
}

func ignoreGone(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// setPodGroupPhase writes a PodGroup's status phase, as the scheduler
// does, with the resourceVersion of u.
func setPodGroupPhase(ctx context.Context, dyn dynamic.Interface, u *unstructured.Unstructured, phase podgroup.Phase) error {
	next := u.DeepCopy()
	if err := unstructured.SetNestedField(next.Object, string(phase), "status", "phase"); err != nil {
		return err
	}
	_, err := dyn.Resource(clients.PodGroupsResource).Namespace(u.GetNamespace()).UpdateStatus(ctx, next, metav1.UpdateOptions{})
	return err
}

// setPodStatus writes a pod's status as a kubelet would: the phase, and a
// container status per container (running and ready, or terminated with
// exitCode).
func setPodStatus(ctx context.Context, kube kubernetes.Interface, pod *corev1.Pod, phase corev1.PodPhase, exitCode int32) error {
	p := pod.DeepCopy()
	now := metav1.Now()
	p.Status.Phase = phase
	if p.Status.StartTime == nil {
		p.Status.StartTime = &now
	}
	p.Status.ContainerStatuses = nil
	for _, ctr := range p.Spec.Containers {
		cs := corev1.ContainerStatus{Name: ctr.Name, Image: ctr.Image, ImageID: "sim://" + ctr.Image}
		switch phase {
		case corev1.PodRunning:
			started := true
			cs.Ready, cs.Started = true, &started
			cs.State.Running = &corev1.ContainerStateRunning{StartedAt: now}
		case corev1.PodSucceeded, corev1.PodFailed:
			reason := "Completed"
			if exitCode != 0 {
				reason = "Error"
				if exitCode == 137 {
					reason = "OOMKilled"
				}
			}
			cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: exitCode, Reason: reason, StartedAt: now, FinishedAt: now}
		}
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, cs)
	}
	_, err := kube.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{})
	return err
}
