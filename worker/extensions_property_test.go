package worker_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/delay"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
	"github.com/vcjob/vcjob/worker"
)

// pipeline is the whole processing path on an in-memory cluster: its
// changes feed the cache as an informer would, requests go through the
// step, delayed actions fire as the clock moves.
type pipeline struct {
	c     *memcluster.Cluster
	cache *cache.Cache
	step  *worker.Step
	now   time.Time
	recs  []worker.Record
}

func newPipeline(t *rapid.T, job *vcjob.Job) *pipeline {
	p := &pipeline{c: memcluster.New(metav1.NewTime(t0)), cache: cache.New(), now: t0}
	p.c.Watch, p.c.GracefulDelete = true, true
	p.step = &worker.Step{Jobs: p.cache, Delays: delay.New(), Cluster: &statemachine.Applied{Applier: p.c}}
	p.c.PutJob(job)
	p.settle(t)
	return p
}

func (p *pipeline) settle(t *rapid.T) {
	for i := 0; ; i++ {
		if i > 2000 {
			t.Fatalf("the job did not settle")
		}
		var reqs []request.Request
		for _, ch := range p.c.Drain() {
			if req, ok := ch.Notify(p.cache); ok {
				reqs = append(reqs, req)
			}
		}
		if len(reqs) == 0 {
			return
		}
		for _, r := range reqs {
			p.recs = append(p.recs, p.step.Process(context.Background(), r, p.now))
		}
	}
}

func (p *pipeline) advance(t *rapid.T, d time.Duration) {
	until := p.now.Add(d)
	for {
		next, ok := p.step.Delays.Next()
		if !ok || next.After(until) {
			break
		}
		p.now = next
		p.c.Now = metav1.NewTime(next)
		for _, e := range p.step.Delays.Due(next) {
			p.recs = append(p.recs, p.step.Fire(context.Background(), e, p.now))
			p.settle(t)
		}
	}
	p.now = until
	p.c.Now = metav1.NewTime(until)
}

func (p *pipeline) job() *vcjob.Job { return p.c.Job("ns", "j") }

// act plays one random cluster change: the scheduler admits the PodGroup,
// a pod runs, fails, is preempted (a DisruptionTarget condition, then
// Failed) or evicted while disrupted, terminating pods go, time passes.
func (p *pipeline) act(t *rapid.T) string {
	pods := p.c.Pods("ns", "j")
	kind := rapid.SampledFrom([]string{"admit", "run", "fail", "preempt", "evict", "finish", "advance"}).Draw(t, "kind")
	var pod *corev1.Pod
	if len(pods) > 0 {
		pod = pods[rapid.IntRange(0, len(pods)-1).Draw(t, "pod")].DeepCopy()
	}
	switch kind {
	case "admit":
		if job := p.job(); p.c.PodGroup(job).Exists {
			p.c.SetPodGroupPhase("ns", podgroup.Name(job), podgroup.PhaseInqueue)
		}
	case "finish":
		p.c.FinishTerminating()
	case "advance":
		p.advance(t, time.Duration(rapid.IntRange(1, 40).Draw(t, "minutes"))*time.Minute)
		return kind
	default:
		if pod == nil || pod.DeletionTimestamp != nil {
			return kind + " (no pod)"
		}
		disrupt := corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}
		switch kind {
		case "run":
			pod.Status.Phase = corev1.PodRunning
		case "fail":
			pod.Status.Phase = corev1.PodFailed
			pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1}}}}
		case "preempt":
			pod.Status.Phase = corev1.PodFailed
			pod.Status.Conditions = append(pod.Status.Conditions, disrupt)
		case "evict":
			pod.Status.Conditions = append(pod.Status.Conditions, disrupt)
			p.c.PutPod(pod)
			p.settle(t)
			p.c.RemovePod("ns", pod.Name)
			p.settle(t)
			return kind + " " + pod.Name
		}
		p.c.PutPod(pod)
	}
	p.settle(t)
	return kind
}

func extJobWith(doc string, policies ...vcjob.LifecyclePolicy) *vcjob.Job {
	return &vcjob.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "uid-j", CreationTimestamp: metav1.NewTime(t0),
			Annotations: map[string]string{policy.ExtensionsAnnotation: doc}},
		Spec: vcjob.JobSpec{MinAvailable: 2, MaxRetry: 3, Queue: "default", Policies: policies, Tasks: []vcjob.TaskSpec{{
			Name: "worker", Replicas: 2,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{{Name: "main", Image: "busybox"}}}},
		}}},
	}
}

// An evicted or preempted pod never spends a retry: with the disruptions
// extension and no policy of its own, a job's retryCount stays 0 however
// often its pods are disrupted, though it does restart.
func TestPropertyDisruptionsNeverSpendARetry(t *testing.T) {
	restarted := 0
	rapid.Check(t, func(t *rapid.T) {
		p := newPipeline(t, extJobWith("disruptions: {action: RestartJob}"))
		n := rapid.IntRange(1, 30).Draw(t, "steps")
		for i := 0; i < n; i++ {
			what := p.act(t)
			if rc := p.job().Status.RetryCount; rc != 0 {
				t.Fatalf("after %s: retryCount %d", what, rc)
			}
		}
		for _, r := range p.recs {
			if r.Action == vcjob.RestartJobAction && r.Err == nil {
				restarted++
			}
		}
	})
	if restarted == 0 {
		t.Fatal("no disruption ever restarted a job: the property is vacuous")
	}
}

// A deadline always ends the job: whatever happens before it (failures,
// restarts, disruptions), once it has passed the job is ending or over.
func TestPropertyDeadlineEndsTheJob(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		action := rapid.SampledFrom([]vcjob.Action{vcjob.TerminateJobAction, vcjob.AbortJobAction}).Draw(t, "action")
		p := newPipeline(t, extJobWith(fmt.Sprintf("deadline: {after: 2h, action: %s}\ndisruptions: {}", action),
			vcjob.LifecyclePolicy{Event: vcjob.PodFailedEvent, Action: vcjob.RestartJobAction}))
		n := rapid.IntRange(0, 25).Draw(t, "steps")
		for i := 0; i < n; i++ {
			p.act(t)
		}
		if p.now.Before(t0.Add(2 * time.Hour)) {
			p.advance(t, t0.Add(2*time.Hour).Sub(p.now))
		}
		switch phase := p.job().Status.State.Phase; phase {
		case vcjob.Terminating, vcjob.Terminated, vcjob.Aborting, vcjob.Aborted, vcjob.Completed, vcjob.Failed, vcjob.Completing:
		default:
			t.Fatalf("past the deadline the job is %s", phase)
		}
	})
}
