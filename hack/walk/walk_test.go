package main_test

// The two default requests hack/walk traces. The tool copies this file
// into a temporary package of the checkout it measures and traces the
// Process call of each test; run here, the tests check that the requests
// still resolve to what the measurement says they are.
//
// Only the Process call is measured: everything else (decoding the job,
// filling the cluster and the cache, deriving the request from a pod
// update) happens before it, and the checks after it.

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/delay"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
	"github.com/vcjob/vcjob/worker"
)

var walkT0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// walkJob is a job of two workers with no vcjob annotations; policies is
// the task's lifecycle policies, as YAML.
const walkJob = `
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: walk
  namespace: ns
spec:
  minAvailable: 2
  tasks:
  - name: worker
    replicas: 2
    policies: %POLICIES%
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: main
          image: busybox
`

// walkWorld is a Running job whose pods are in the in-memory cluster and
// in the cache (the pod of index pending is Pending, the others Running),
// and a step on both: the zero semantics profile, no policy extensions.
type walkWorld struct {
	cluster *memcluster.Cluster
	cache   *cache.Cache
	step    *worker.Step
	job     *vcjob.Job
}

func newWalkWorld(t *testing.T, policies string, pending int) *walkWorld {
	t.Helper()
	job := &vcjob.Job{}
	manifest := []byte(strings.Replace(walkJob, "%POLICIES%", policies, 1))
	if err := yaml.UnmarshalStrict(manifest, job); err != nil {
		t.Fatalf("decode the job: %v", err)
	}
	vcjob.SetDefaults(job)
	job.Status = vcjob.JobStatus{State: vcjob.JobState{Phase: vcjob.Running}, MinAvailable: job.Spec.MinAvailable}
	if len(job.Annotations) != 0 {
		t.Fatalf("the job has annotations: %v", job.Annotations)
	}

	mc := memcluster.New(metav1.NewTime(walkT0))
	job = mc.PutJob(job)
	c := cache.New()
	if _, _, err := c.OnJobAdd(job); err != nil {
		t.Fatalf("cache the job: %v", err)
	}
	for i := int32(0); i < job.Spec.Tasks[0].Replicas; i++ {
		p := statemachine.RenderPod(job, &job.Spec.Tasks[0], int(i))
		p.UID = types.UID("uid-" + podName(int(i)))
		p.ResourceVersion = "1"
		p.Status.Phase = corev1.PodRunning
		if int(i) == pending {
			p.Status.Phase = corev1.PodPending
		}
		mc.PutPod(p)
		c.OnPodAdd(mc.Pod(p.Namespace, p.Name))
	}
	mc.SetPodGroupPhase(job.Namespace, podgroup.Name(job), podgroup.PhaseRunning)
	step := &worker.Step{Jobs: c, Delays: delay.New(), Cluster: &statemachine.Applied{Applier: mc}}
	return &walkWorld{cluster: mc, cache: c, step: step, job: job}
}

func podName(i int) string { return "walk-worker-" + strconv.Itoa(i) }

// update plays the kubelet changing a pod (change edits a copy) and
// returns the request the cache derives from it.
func (w *walkWorld) update(t *testing.T, name string, change func(*corev1.Pod)) request.Request {
	t.Helper()
	old := w.cluster.Pod("ns", name)
	if old == nil {
		t.Fatalf("no pod %s", name)
	}
	p := old.DeepCopy()
	change(p)
	p.ResourceVersion = "2"
	w.cluster.PutPod(p)
	req, ok := w.cache.OnPodUpdate(old, w.cluster.Pod("ns", name))
	if !ok {
		t.Fatalf("the update of %s raised no request", name)
	}
	return req
}

// walkProcess is the measured call.
func walkProcess(s *worker.Step, req request.Request) worker.Record {
	return s.Process(context.Background(), req, walkT0.Add(time.Minute))
}

// TestWalkSync: a pod of a Running job starts running; the request
// resolves to SyncJob.
func TestWalkSync(t *testing.T) {
	w := newWalkWorld(t, "[]", 1)
	req := w.update(t, podName(1), func(p *corev1.Pod) { p.Status.Phase = corev1.PodRunning })
	if req.Event != vcjob.PodRunningEvent {
		t.Fatalf("request event %s, want PodRunning", req.Event)
	}

	rec := walkProcess(w.step, req)

	if rec.Err != nil || rec.Skipped != "" {
		t.Fatalf("Process: err %v, skipped %q", rec.Err, rec.Skipped)
	}
	if rec.Action != vcjob.SyncJobAction || rec.Delay != 0 {
		t.Fatalf("action %s after %s, want SyncJob at once", rec.Action, rec.Delay)
	}
	if rec.PhaseAfter != vcjob.Running {
		t.Fatalf("phase after %s, want Running", rec.PhaseAfter)
	}
}

// TestWalkKill: a pod of a Running job whose task restarts the job on
// PodFailed fails; the request resolves to RestartJob, which kills the
// job's pods.
func TestWalkKill(t *testing.T) {
	w := newWalkWorld(t, "[{event: PodFailed, action: RestartJob}]", -1)
	req := w.update(t, podName(0), func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodFailed
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", State: corev1.ContainerState{
			Terminated: &corev1.ContainerStateTerminated{ExitCode: 1}}}}
	})
	if req.Event != vcjob.PodFailedEvent {
		t.Fatalf("request event %s, want PodFailed", req.Event)
	}

	rec := walkProcess(w.step, req)

	if rec.Err != nil || rec.Skipped != "" {
		t.Fatalf("Process: err %v, skipped %q", rec.Err, rec.Skipped)
	}
	if rec.Action != vcjob.RestartJobAction || rec.Delay != 0 {
		t.Fatalf("action %s after %s, want RestartJob at once", rec.Action, rec.Delay)
	}
	if rec.PhaseAfter != vcjob.Restarting {
		t.Fatalf("phase after %s, want Restarting", rec.PhaseAfter)
	}
	if len(rec.Effects.Deleted) != 2 {
		t.Fatalf("deleted %v, want both pods", rec.Effects.Deleted)
	}
}
