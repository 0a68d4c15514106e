package statemachine_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/plugins"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
)

// cancelAfter is a memcluster whose context is cancelled just before its
// n-th Applier call (from 1), as a controller stopping mid-plan would; it
// names each call it was asked for.
type cancelAfter struct {
	*memcluster.Cluster
	n, calls int
	cancel   context.CancelFunc
	names    []string
}

func (c *cancelAfter) tick(name string) {
	c.calls++
	c.names = append(c.names, name)
	if c.calls == c.n && c.cancel != nil {
		c.cancel()
	}
}

func (c *cancelAfter) PodGroupState(ctx context.Context, job *vcjob.Job) (statemachine.PodGroupState, error) {
	c.tick("PodGroupState")
	return c.Cluster.PodGroupState(ctx, job)
}

func (c *cancelAfter) ApplyPodGroup(ctx context.Context, pg *podgroup.PodGroup) error {
	c.tick("ApplyPodGroup")
	return c.Cluster.ApplyPodGroup(ctx, pg)
}

func (c *cancelAfter) ApplyObjects(ctx context.Context, objs plugins.Objects) error {
	c.tick("ApplyObjects")
	return c.Cluster.ApplyObjects(ctx, objs)
}

func (c *cancelAfter) EnsureClaim(ctx context.Context, job *vcjob.Job, claim statemachine.Claim) error {
	c.tick("EnsureClaim")
	return c.Cluster.EnsureClaim(ctx, job, claim)
}

func (c *cancelAfter) ClaimExists(ctx context.Context, namespace, name string) (bool, error) {
	c.tick("ClaimExists")
	return c.Cluster.ClaimExists(ctx, namespace, name)
}

func (c *cancelAfter) UpdateJob(ctx context.Context, job *vcjob.Job) error {
	c.tick("UpdateJob")
	return c.Cluster.UpdateJob(ctx, job)
}

func (c *cancelAfter) DeletePodGroup(ctx context.Context, job *vcjob.Job) (bool, error) {
	c.tick("DeletePodGroup")
	return c.Cluster.DeletePodGroup(ctx, job)
}

func (c *cancelAfter) CreatePod(ctx context.Context, pod *corev1.Pod) error {
	c.tick("CreatePod")
	return c.Cluster.CreatePod(ctx, pod)
}

func (c *cancelAfter) DeletePod(ctx context.Context, pod *corev1.Pod) error {
	c.tick("DeletePod")
	return c.Cluster.DeletePod(ctx, pod)
}

func (c *cancelAfter) UpdateStatus(ctx context.Context, job *vcjob.Job, status *vcjob.JobStatus) error {
	c.tick("UpdateStatus")
	return c.Cluster.UpdateStatus(ctx, job, status)
}

// cancelJob is a job whose life exercises every call: plugin objects
// (svc, ssh), a claim (named the deterministic way: a generated name is
// drawn again after a cancelled write-back, see the package doc), two
// tasks, a scale-down and a restart.
func cancelJob() *vcjob.Job {
	return &vcjob.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns", UID: "uid-c", Generation: 1},
		Spec: vcjob.JobSpec{MinAvailable: 3, MaxRetry: 3, Queue: "default",
			Plugins: map[string][]string{"svc": nil, "ssh": nil},
			Volumes: []vcjob.VolumeSpec{{MountPath: "/data", VolumeClaim: &corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}}}},
			Tasks: []vcjob.TaskSpec{
				{Name: "master", Replicas: 1, Template: podTemplate()},
				{Name: "worker", Replicas: 3, Template: podTemplate()},
			}},
	}
}

func podTemplate() corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
		Containers: []corev1.Container{{Name: "main", Image: "busybox"}}}}
}

// cancelStep is one thing that happens to the job: the cluster changes it
// makes (the scheduler, the kubelet, a user), then the request it raises.
type cancelStep struct {
	name   string
	before func(c *memcluster.Cluster)
	req    request.Request
}

var cancelSteps = []cancelStep{
	{name: "new job", req: request.Request{Event: vcjob.OutOfSyncEvent}},
	{name: "gang admitted", before: func(c *memcluster.Cluster) {
		c.SetPodGroupPhase("ns", podgroup.Name(c.StoredJob("ns", "c")), podgroup.PhaseInqueue)
	}, req: request.Request{Event: vcjob.OutOfSyncEvent}},
	{name: "pods run", before: func(c *memcluster.Cluster) {
		for _, p := range c.Pods("ns", "c") {
			p.Status.Phase = corev1.PodRunning
			p.Spec.NodeName = "node-0"
			c.PutPod(p)
		}
	}, req: request.Request{Event: vcjob.OutOfSyncEvent}},
	{name: "scaled down", before: func(c *memcluster.Cluster) {
		job := c.Job("ns", "c")
		job.Spec.Tasks[1].Replicas = 1
		job.Generation++
		c.PutJob(job)
	}, req: request.Request{Event: vcjob.OutOfSyncEvent}},
	{name: "restarted", req: request.Request{Event: vcjob.CommandIssuedEvent, Action: vcjob.RestartJobAction}},
}

// run applies step s to the job on c through an Applied over applier, in
// ctx.
func runCancelStep(ctx context.Context, c *memcluster.Cluster, applier statemachine.Applier, s cancelStep) (statemachine.Effects, error) {
	ji, err := c.JobInfo("ns", "c")
	if err != nil {
		return statemachine.Effects{}, err
	}
	req := s.req
	req.Namespace, req.JobName = "ns", "c"
	d := policy.Resolve(ji.Job, req)
	a := &statemachine.Applied{Applier: applier, Now: now, Plugins: plugins.NewRegistry(plugins.WithSSHKeys(plugins.TestKeySource())),
		Choices: statemachine.Choices{DeterministicClaimNames: true}}
	_, err = statemachine.Execute(ctx, a, ji, d.Action, d.Target)
	return a.Last, err
}

// clusterState is what the cluster holds of the job, for comparing two
// runs.
type clusterState struct {
	Status   vcjob.JobStatus
	Spec     vcjob.JobSpec
	Pods     []string
	PodGroup statemachine.PodGroupState
	Objects  []string
}

func stateOf(c *memcluster.Cluster) clusterState {
	job := c.Job("ns", "c")
	s := clusterState{Status: job.Status, Spec: job.Spec, PodGroup: c.PodGroup(job)}
	for _, p := range c.Pods("ns", "c") {
		s.Pods = append(s.Pods, fmt.Sprintf("%s %s deleted=%v %v", p.Name, p.Status.Phase, p.DeletionTimestamp != nil, p.Annotations))
	}
	for _, k := range []string{"Service", "ConfigMap", "Secret", "NetworkPolicy"} {
		for _, n := range []string{"c", "c-svc", "c-ssh"} {
			if o := c.Object(k, "ns", n); o != nil {
				s.Objects = append(s.Objects, k+"/"+n)
			}
		}
	}
	sort.Strings(s.Objects)
	return s
}

// TestCancelledPlanConverges: a step whose context is cancelled before any
// one of its Applier calls fails with the context's error, wrapped, and
// leaves what it did; the same request then run afresh (the requeued
// request) leaves the cluster as an uninterrupted step would have, for
// every step of a job's life and every call it can be stopped at. A kill is
// stopped before its status write: after it the kill has done its work
// but the PodGroup delete, which the next kill does.
func TestCancelledPlanConverges(t *testing.T) {
	build := func() *memcluster.Cluster {
		c := memcluster.New(now)
		// Deleted pods linger, terminating, as bound pods do: the fresh
		// step counts those the stopped one deleted.
		c.GracefulDelete = true
		c.PutJob(cancelJob())
		return c
	}
	for si, s := range cancelSteps {
		// The calls of the uninterrupted step, to stop it at each.
		probe := build()
		for _, prev := range cancelSteps[:si] {
			applyStep(t, probe, prev)
		}
		counting := &cancelAfter{Cluster: probe}
		if s.before != nil {
			s.before(probe)
		}
		if _, err := runCancelStep(context.Background(), probe, counting, s); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		want := stateOf(probe)
		calls := counting.names
		for n := 1; n <= len(calls); n++ {
			if calls[n-1] == "DeletePodGroup" {
				break // the kill wrote its status already
			}
			t.Run(fmt.Sprintf("%s/stopped before call %d (%s)", s.name, n, calls[n-1]), func(t *testing.T) {
				c := build()
				for _, prev := range cancelSteps[:si] {
					applyStep(t, c, prev)
				}
				if s.before != nil {
					s.before(c)
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				stopped := &cancelAfter{Cluster: c, n: n, cancel: cancel}
				effects, err := runCancelStep(ctx, c, stopped, s)
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("the stopped step returned %v, want context.Canceled wrapped", err)
				}
				if n > 1 && stopped.calls != n {
					t.Fatalf("the stopped step made %d calls, want it to stop at call %d", stopped.calls, n)
				}
				if len(effects.Events) > 0 {
					t.Errorf("a stopped step recorded %v", effects.Events)
				}
				if _, err := runCancelStep(context.Background(), c, c, s); err != nil {
					t.Fatalf("the fresh step: %v", err)
				}
				if got := stateOf(c); !equality.Semantic.DeepEqual(want, got) {
					t.Errorf("after a fresh step the cluster differs from an uninterrupted one:\nwant %+v\ngot  %+v", want, got)
				}
			})
		}
	}
}

func applyStep(t *testing.T, c *memcluster.Cluster, s cancelStep) {
	t.Helper()
	if s.before != nil {
		s.before(c)
	}
	if _, err := runCancelStep(context.Background(), c, c, s); err != nil {
		t.Fatalf("%s: %v", s.name, err)
	}
}
