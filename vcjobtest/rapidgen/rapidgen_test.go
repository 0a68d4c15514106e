package rapidgen_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/jobinfo"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/validation"
	"github.com/vcjob/vcjob/vcjobtest/rapidgen"
	"github.com/vcjob/vcjob/worker"
)

func TestJobIsValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		job := rapidgen.Job().Draw(t, "job")
		if errs := validation.ValidateJob(job); len(errs) > 0 {
			t.Fatalf("generated job is invalid: %v", errs.ToAggregate())
		}
		if job.Status.State.Phase != "" || job.UID == "" || job.Name == "" {
			t.Fatalf("want a named, never-synced job with a UID: %+v", job.ObjectMeta)
		}
	})
}

func TestPodsBelongToTheJob(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		job := rapidgen.Job().Draw(t, "job")
		job.Status.Version = rapid.Int32Range(0, 3).Draw(t, "version")
		pods := rapidgen.Pods(job).Draw(t, "pods")
		if !slices.IsSortedFunc(pods, func(a, b *corev1.Pod) int { return compare(a.Name, b.Name) }) {
			t.Fatal("pods are not sorted by name")
		}
		for _, p := range pods {
			task, idx, ok := rapidgen.PodTask(job, p.Name)
			if !ok || p.Annotations[vcjob.TaskSpecKey] != task.Name || p.UID == "" {
				t.Fatalf("pod %s: task %v index %d ok %v uid %q", p.Name, task, idx, ok, p.UID)
			}
			v, err := strconv.Atoi(p.Annotations[vcjob.JobVersionKey])
			if err != nil || int32(v) > job.Status.Version {
				t.Fatalf("pod %s: job-version %q above the job's %d", p.Name, p.Annotations[vcjob.JobVersionKey], job.Status.Version)
			}
			if _, err := jobinfo.New(job, p); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func TestRequestsAreForTheJob(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		job := rapidgen.Job().Draw(t, "job")
		for _, req := range rapidgen.Requests(job).Draw(t, "requests") {
			if req.Key() != request.JobKey(job.Namespace, job.Name) {
				t.Fatalf("request %s is not for %s/%s", req, job.Namespace, job.Name)
			}
			switch {
			case req.Action != "":
				if req.Event != vcjob.CommandIssuedEvent || req.TaskName != "" {
					t.Fatalf("command %s", req)
				}
			case req.TaskName != "":
				if job.Task(req.TaskName) == nil || req.PodName == "" {
					t.Fatalf("pod request %s names no pod of the job", req)
				}
			case req.Event != "" && req.Event != vcjob.JobUnknownEvent:
				t.Fatalf("request %s names no task", req)
			}
		}
	})
}

// world is a job "j" of two workers, running, on the tiny controller.
func world(t *testing.T) *controller {
	t.Helper()
	job := &vcjob.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind},
		ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "uid-j"},
		Spec: vcjob.JobSpec{MinAvailable: 2, MaxRetry: 3, Queue: "default", SchedulerName: "volcano", Tasks: []vcjob.TaskSpec{{
			Name: "worker", Replicas: 2, MaxRetry: 3,
			PartitionPolicy: &vcjob.PartitionPolicySpec{TotalPartitions: 2, PartitionSize: 1},
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{{Name: "main", Image: "busybox"}}}},
		}}},
	}
	ctl := newController(rapidgen.Script{Job: job, PodGroup: podgroup.PhaseRunning})
	for _, st := range []rapidgen.Step{
		{Kind: rapidgen.StepRequest, Event: vcjob.OutOfSyncEvent},
		{Kind: rapidgen.StepPodPhase, Pick: 0, PodPhase: corev1.PodRunning},
		{Kind: rapidgen.StepPodPhase, Pick: 1, PodPhase: corev1.PodRunning},
		{Kind: rapidgen.StepRequest, Event: vcjob.OutOfSyncEvent},
	} {
		require.NoError(t, ctl.run(st))
	}
	require.Equal(t, vcjob.Running, ctl.cluster.Job("ns", "j").Status.State.Phase)
	return ctl
}

// stepOf runs one request on the controller and returns what the
// checkers take.
type stepOf struct {
	before, after *vcjob.Job
	pods          []*corev1.Pod
	rec           worker.Record
}

func runStep(t *testing.T, ctl *controller, req request.Request) stepOf {
	t.Helper()
	s := stepOf{before: ctl.cluster.Job("ns", "j"), pods: ctl.cluster.Pods("ns", "j")}
	s.rec = ctl.step.Process(context.Background(), req, ctl.cluster.Now.Time)
	s.after = ctl.cluster.Job("ns", "j")
	require.NoError(t, rapidgen.CheckStep(s.before, s.after, s.rec), "the real step is fine")
	require.NoError(t, rapidgen.CheckEffects(s.before, s.pods, s.rec), "the real step is fine")
	return s
}

func invariants(err error) []string {
	var out []string
	var walk func(error)
	walk = func(err error) {
		var inv *rapidgen.InvariantError
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
		} else if errors.As(err, &inv) {
			out = append(out, inv.Invariant)
		}
	}
	if err != nil {
		walk(err)
	}
	return out
}

// TestCheckersCatchViolations corrupts real steps one way at a time; each
// corruption must be reported under its invariant.
func TestCheckersCatchViolations(t *testing.T) {
	restart := request.Request{Namespace: "ns", JobName: "j", Event: vcjob.CommandIssuedEvent, Action: vcjob.RestartJobAction}
	restartPod := request.Request{Namespace: "ns", JobName: "j", JobUID: "uid-j", TaskName: "worker", PodName: "j-worker-0", Event: vcjob.CommandIssuedEvent, Action: vcjob.RestartPodAction}
	sync := request.Request{Namespace: "ns", JobName: "j", Event: vcjob.OutOfSyncEvent}
	cases := []struct {
		name    string
		req     request.Request
		corrupt func(s *stepOf)
		effects bool // check with CheckEffects rather than CheckStep
		want    string
	}{
		{"a whole-job kill that keeps the version", restart, func(s *stepOf) { s.after.Status.Version-- }, false, rapidgen.InvVersion},
		{"a retry counted twice", restart, func(s *stepOf) { s.after.Status.RetryCount++ }, false, rapidgen.InvRetryCount},
		{"a retry count going down", sync, func(s *stepOf) { s.before.Status.RetryCount = 2; s.after.Status.RetryCount = 1 }, false, rapidgen.InvRetryCount},
		{"a restart that fails the job", restart, func(s *stepOf) { s.after.Status.State.Phase = vcjob.Failed }, false, rapidgen.InvFailedWhy},
		{"a phase the transition does not lead to", restart, func(s *stepOf) { s.after.Status.State.Phase = vcjob.Aborting }, false, rapidgen.InvPhaseTo},
		{"a kill that creates", restart, func(s *stepOf) { s.rec.Effects.Created = []string{"j-worker-0"} }, false, rapidgen.InvCreatedPods},
		{"a pod beyond the replicas", sync, func(s *stepOf) { s.rec.Effects.Created = []string{"j-worker-2"} }, false, rapidgen.InvCreatedPods},
		{"another call than the table's", restart, func(s *stepOf) { s.rec.Transition.Call = statemachine.CallKillTarget }, false, rapidgen.InvTable},
		{"a finished job that moves", sync, func(s *stepOf) {
			s.before.Status.State.Phase = vcjob.Completed
			s.rec.Transition = ptr(statemachine.Lookup(statemachine.StateFinished, vcjob.SyncJobAction))
			s.rec.Effects.Call = statemachine.CallKillJob
		}, false, rapidgen.InvFinishedStays},
		{"completed with pods still running", sync, func(s *stepOf) { s.after.Status.State.Phase = vcjob.Completed }, false, rapidgen.InvCompletedWhy},
		{"a delay that still ran", sync, func(s *stepOf) { s.rec.Delay = time.Minute }, false, rapidgen.InvDelayed},
		{"a targeted kill of another pod", restartPod, func(s *stepOf) { s.rec.Effects.Deleted = []string{"j-worker-1"} }, false, rapidgen.InvTargetedKill},
		{"a targeted kill that misses its pod", restartPod, func(s *stepOf) { s.rec.Effects.Deleted = nil }, true, rapidgen.InvKillSet},
		{"a whole-job kill that spares a pod", restart, func(s *stepOf) { s.rec.Effects.Deleted = s.rec.Effects.Deleted[:1] }, true, rapidgen.InvKillSet},
		{"a soft kill of a finished pod", restart, func(s *stepOf) {
			s.before.Status.RetryCount = 2 // last retry: soft
			s.pods[0].Status.Phase = corev1.PodSucceeded
		}, true, rapidgen.InvKillSet},
		{"a sync that deletes a healthy pod", sync, func(s *stepOf) { s.rec.Effects.Deleted = []string{"j-worker-1"} }, true, rapidgen.InvSyncDeletes},
		{"a delete of a pod that did not exist", sync, func(s *stepOf) { s.rec.Effects.Deleted = []string{"j-worker-7"} }, true, rapidgen.InvExisting},
		{"a restart without its ExecuteAction Event", restart, func(s *stepOf) { s.rec.Events = nil }, false, rapidgen.InvEvents},
		{"a sync with an ExecuteAction Event", sync, func(s *stepOf) {
			s.rec.Events = []record.Event{worker.ExecuteActionEvent(vcjob.SyncJobAction)}
		}, false, rapidgen.InvEvents},
		{"a call that succeeded with a Warning", sync, func(s *stepOf) {
			s.rec.Effects.Events = []record.Event{record.Warningf("FailedCreate", "Error creating pods: []")}
			s.rec.Events = s.rec.Effects.Events
		}, false, rapidgen.InvEvents},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := runStep(t, world(t), tc.req)
			tc.corrupt(&s)
			var err error
			if tc.effects {
				err = rapidgen.CheckEffects(s.before, s.pods, s.rec)
			} else {
				err = rapidgen.CheckStep(s.before, s.after, s.rec)
			}
			require.Contains(t, invariants(err), tc.want, "error: %v", err)
		})
	}
}

// TestCheckStepGoesByTheWrittenStatus: retryCount and version move with
// the status a call wrote (the version bump is part of the status
// written), not with the call's error. A kill whose status write went
// through before a later failure (deleting the PodGroup, say) has moved
// them; one whose write failed has not, and a bump it did not write is
// reported.
func TestCheckStepGoesByTheWrittenStatus(t *testing.T) {
	restart := request.Request{Namespace: "ns", JobName: "j", Event: vcjob.CommandIssuedEvent, Action: vcjob.RestartJobAction}

	s := runStep(t, world(t), restart)
	require.True(t, s.rec.Effects.StatusWritten)
	require.Equal(t, s.before.Status.Version+1, s.after.Status.Version)
	require.Equal(t, s.before.Status.RetryCount+1, s.after.Status.RetryCount)
	s.rec.Err = errors.New("delete podgroup: injected")
	require.NoError(t, rapidgen.CheckStep(s.before, s.after, s.rec), "written, then failed: the bumps stand")

	ctl := world(t)
	ctl.cluster.FailStatus = func(*vcjob.Job) error { return errors.New("injected") }
	s = runStep(t, ctl, restart) // checks the real step: nothing written, nothing moved
	require.Error(t, s.rec.Err)
	require.False(t, s.rec.Effects.StatusWritten)
	s.after.Status.Version++
	require.Contains(t, invariants(rapidgen.CheckStep(s.before, s.after, s.rec)), rapidgen.InvVersion, "a bump that was not written")
	s.after.Status.Version--
	s.after.Status.RetryCount++
	require.Contains(t, invariants(rapidgen.CheckStep(s.before, s.after, s.rec)), rapidgen.InvRetryCount, "a retry that was not written")
}

func TestCheckPod(t *testing.T) {
	ctl := world(t)
	job := ctl.cluster.Job("ns", "j")
	pod := statemachine.RenderPod(job, &job.Spec.Tasks[0], 1)
	require.NoError(t, rapidgen.CheckPod(job, pod))

	stale := pod.DeepCopy()
	stale.Annotations[vcjob.JobVersionKey] = "7"
	require.Contains(t, invariants(rapidgen.CheckPod(job, stale)), rapidgen.InvPodMetadata)

	noPartition := pod.DeepCopy()
	delete(noPartition.Labels, vcjob.PartitionIDKey)
	require.Contains(t, invariants(rapidgen.CheckPod(job, noPartition)), rapidgen.InvPodMetadata)

	foreign := pod.DeepCopy()
	foreign.Name = "other-worker-0"
	require.Contains(t, invariants(rapidgen.CheckPod(job, foreign)), rapidgen.InvPodMetadata)
}

func TestPodTask(t *testing.T) {
	job := &vcjob.Job{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Spec: vcjob.JobSpec{Tasks: []vcjob.TaskSpec{{Name: "b"}, {Name: "b-1"}}}}
	for name, want := range map[string]string{"a-b-0": "b/0", "a-b-1-3": "b-1/3", "a-b-01": "", "a-c-0": "", "a-b--1": ""} {
		task, idx, ok := rapidgen.PodTask(job, name)
		got := ""
		if ok {
			got = task.Name + "/" + strconv.Itoa(idx)
		}
		require.Equal(t, want, got, name)
	}
}

func ptr[T any](v T) *T { return &v }

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
