package statemachine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
)

// callRecorder is an Applier that notes, in order, the pod deletes and
// status writes it passes on to the cluster.
type callRecorder struct {
	*versionChecker
	calls []string
}

func (r *callRecorder) DeletePod(ctx context.Context, pod *corev1.Pod) error {
	r.calls = append(r.calls, "delete "+pod.Name)
	return r.versionChecker.DeletePod(ctx, pod)
}

func (r *callRecorder) UpdateStatus(ctx context.Context, job *vcjob.Job, status *vcjob.JobStatus) error {
	r.calls = append(r.calls, fmt.Sprintf("status %s retry %d version %d terminating %d",
		status.State.Phase, status.RetryCount, status.Version, status.Terminating))
	return r.versionChecker.UpdateStatus(ctx, job, status)
}

// killCluster is the fixture job in phase, with its pods, in a cluster
// whose resourceVersions move on every write.
func killCluster(t *testing.T, phase vcjob.JobPhase, annotation string, pods ...*corev1.Pod) (*memcluster.Cluster, *callRecorder) {
	t.Helper()
	c := memcluster.New(now)
	c.Watch = true
	job := fixture(t, phase).Job.DeepCopy()
	if annotation != "" {
		job.Annotations = map[string]string{behavior.Annotation: annotation}
	}
	c.PutJob(job)
	for _, p := range pods {
		c.PutPod(p)
	}
	return c, &callRecorder{versionChecker: &versionChecker{Cluster: c}}
}

// Under kill-status-first a kill into a kill state writes its phase,
// retry count and version before its first delete, then the counts after
// the deletes as Volcano does; other kills keep Volcano's order.
func TestKillStatusFirst(t *testing.T) {
	on := behavior.Of(behavior.KillStatusFirst)
	running := []*corev1.Pod{pod("w", 0, corev1.PodRunning), pod("w", 1, corev1.PodRunning)}
	for _, tc := range []struct {
		name       string
		sem        behavior.Set
		annotation string
		phase      vcjob.JobPhase
		pods       []*corev1.Pod
		call       statemachine.Call
		retain     statemachine.Retain
		target     request.Target
		update     statemachine.UpdateRule
		want       []string
	}{
		{name: "volcano: RestartJob deletes, then writes", phase: vcjob.Running, pods: running,
			call: statemachine.CallKillJob, retain: statemachine.RetainNone, update: statemachine.UpdateRestart,
			want: []string{"delete j-w-0", "delete j-w-1", "status Restarting retry 1 version 3 terminating 2"}},
		{name: "corrected: RestartJob writes Restarting first", sem: on, phase: vcjob.Running, pods: running,
			call: statemachine.CallKillJob, retain: statemachine.RetainNone, update: statemachine.UpdateRestart,
			want: []string{"status Restarting retry 1 version 3 terminating 0", "delete j-w-0", "delete j-w-1",
				"status Restarting retry 1 version 3 terminating 2"}},
		{name: "corrected by the job's annotation", annotation: "kill-status-first", phase: vcjob.Running, pods: running,
			call: statemachine.CallKillJob, retain: statemachine.RetainSoft, update: statemachine.UpdateAbort,
			want: []string{"status Aborting retry 0 version 3 terminating 0", "delete j-w-0", "delete j-w-1",
				"status Aborting retry 0 version 3 terminating 2"}},
		{name: "corrected: RestartPod counts its retry first", sem: on, phase: vcjob.Running, pods: running,
			call: statemachine.CallKillTarget, target: request.Target{Level: vcjob.PodLevel, TaskName: "w", PodName: "j-w-1"},
			update: statemachine.UpdateRestart,
			want: []string{"status Restarting retry 1 version 2 terminating 0", "delete j-w-1",
				"status Restarting retry 1 version 2 terminating 1"}},
		{name: "corrected: a kill in Restarting only bumps the version: Volcano's order", sem: on, phase: vcjob.Restarting, pods: running,
			call: statemachine.CallKillJob, retain: statemachine.RetainNone, update: statemachine.UpdateRestarting,
			want: []string{"delete j-w-0", "delete j-w-1", "status Restarting retry 0 version 3 terminating 2"}},
		{name: "corrected: nothing to delete, one write", sem: on, phase: vcjob.Running,
			pods: []*corev1.Pod{pod("w", 0, corev1.PodSucceeded)},
			call: statemachine.CallKillJob, retain: statemachine.RetainSoft, update: statemachine.UpdateComplete,
			want: []string{"status Completing retry 0 version 3 terminating 0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, rec := killCluster(t, tc.phase, tc.annotation, tc.pods...)
			ji, err := c.JobInfo("ns", "j")
			require.NoError(t, err)
			a := &statemachine.Applied{Applier: rec, Now: now, Behavior: tc.sem}
			update := tc.update.Func(ji.Job)
			if tc.call == statemachine.CallKillJob {
				err = a.KillJob(context.Background(), ji, tc.retain, update)
			} else {
				err = a.KillTarget(context.Background(), ji, tc.target, update)
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, rec.calls)

			// The last write is Volcano's, whatever the order.
			vc, vrec := killCluster(t, tc.phase, "", tc.pods...)
			vji, err := vc.JobInfo("ns", "j")
			require.NoError(t, err)
			v := &statemachine.Applied{Applier: vrec, Now: now}
			if tc.call == statemachine.CallKillJob {
				err = v.KillJob(context.Background(), vji, tc.retain, update)
			} else {
				err = v.KillTarget(context.Background(), vji, tc.target, update)
			}
			require.NoError(t, err)
			assert.Equal(t, vc.Job("ns", "j").Status, c.Job("ns", "j").Status)
			assert.Equal(t, v.Last.Status, a.Last.Status)
		})
	}
}

// A controller stopped at the first delete of an AbortJob (here the
// delete fails) leaves the job Running under Volcano: the next
// controller's sync of the job aborts nothing. Under kill-status-first
// the job is already Aborting, whose every request kills: the next
// controller's sync finishes the abort.
func TestKillStatusFirstSurvivesAStop(t *testing.T) {
	for _, tc := range []struct {
		sem           behavior.Set
		stopped, next vcjob.JobPhase
		version       int32
	}{
		{sem: behavior.Set{}, stopped: vcjob.Running, next: vcjob.Running, version: 2},
		{sem: behavior.Of(behavior.KillStatusFirst), stopped: vcjob.Aborting, next: vcjob.Aborting, version: 3},
	} {
		t.Run(tc.sem.String(), func(t *testing.T) {
			c, rec := killCluster(t, vcjob.Running, "", pod("w", 0, corev1.PodRunning), pod("w", 1, corev1.PodRunning))
			c.FailDelete = func(*corev1.Pod) error { return assert.AnError }
			ji, err := c.JobInfo("ns", "j")
			require.NoError(t, err)
			a := &statemachine.Applied{Applier: rec, Now: now, Behavior: tc.sem}
			_, err = statemachine.ExecuteWith(context.Background(), a, ji, vcjob.AbortJobAction, request.Target{}, statemachine.Options{Behavior: tc.sem})
			require.Error(t, err)
			st := c.Job("ns", "j").Status
			assert.Equal(t, tc.stopped, st.State.Phase)
			assert.Equal(t, tc.version, st.Version)
			assert.Equal(t, "true", c.Pod("ns", "j-w-0").Annotations[vcjob.PodOutOfSyncKey], "the pod is marked either way")

			// The next controller: its first request is a sync.
			c.FailDelete = nil
			ji, err = c.JobInfo("ns", "j")
			require.NoError(t, err)
			next := &statemachine.Applied{Applier: c, Now: now, Behavior: tc.sem}
			tr, err := statemachine.ExecuteWith(context.Background(), next, ji, vcjob.SyncJobAction, request.Target{}, statemachine.Options{Behavior: tc.sem})
			require.NoError(t, err)
			assert.Equal(t, tc.next, c.Job("ns", "j").Status.State.Phase)
			if tc.sem.Has(behavior.KillStatusFirst) {
				assert.Equal(t, statemachine.CallKillJob, tr.Call, "Aborting kills again")
				assert.Empty(t, c.Pods("ns", "j"), "the abort is done")
			} else {
				assert.Equal(t, statemachine.CallSyncJob, tr.Call)
			}
		})
	}
}
