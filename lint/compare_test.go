package lint_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/lint"
)

func TestCompare(t *testing.T) {
	j := job(
		[]vcjob.LifecyclePolicy{{Event: vcjob.PodEvictedEvent, Action: vcjob.RestartJobAction, Timeout: timeout(5 * 60e9)}},
		[]vcjob.LifecyclePolicy{{Event: vcjob.JobUnknownEvent, Action: vcjob.RestartJobAction}})
	j.Status.Version = 1
	assert.Empty(t, lint.Compare(j, behavior.Set{}), "Volcano against itself")

	got := map[string][]string{}
	for _, d := range lint.Compare(j, behavior.Corrected()) {
		got[d.Switch] = append(got[d.Switch], d.Task+" "+d.Event)
		assert.NotEmpty(t, d.Volcano)
		assert.NotEmpty(t, d.Other)
		assert.NotEmpty(t, d.String())
	}
	assert.Equal(t, map[string][]string{
		"podgroup-requests-current-version": {" Unknown"},
		"delays-by-pod-uid":                 {"worker PodEvicted"},
		"abort-while-restarting":            {" command AbortJob"},
		"count-finished-after-kill":         {" command AbortJob", " command TerminateJob", " command CompleteJob"},
		"finished-pods-on-add":              {" a pod first seen finished"},
		"podgroup-phase-on-add":             {" a PodGroup first seen in a phase"},
		"cache-by-job-uid":                  {" pods of an earlier job of this name"},
		"resume-keeps-retries":              {" command ResumeJob"},
		"leave-finished-jobs":               {" any, once finished"},
		"out-of-sync-counted-once":          {" sync with an out-of-sync pod"},
		"kill-status-first":                 {" a controller stopped during a kill"},
	}, got)

	one := lint.Compare(j, behavior.Of(behavior.PodGroupRequestsCurrentVersion))
	if assert.Len(t, one, 1) {
		assert.Equal(t, "RestartJob (job policy 0 (event))", one[0].Other, "the Unknown policy fires at version 1")
		assert.Contains(t, one[0].Volcano, "SyncJob")
	}
}

// An exit-code policy of a task whose pods have more than one container
// matches another failure under exit-code-first-failed-container.
func TestCompareExitCodeFirstFailedContainer(t *testing.T) {
	j := job([]vcjob.LifecyclePolicy{{ExitCode: code(42), Action: vcjob.RestartPodAction}}, nil)
	sem := behavior.Of(behavior.ExitCodeFirstFailedContainer)
	assert.Empty(t, lint.Compare(j, sem), "one container: the first is the one that failed")

	j.Spec.Tasks[0].Template.Spec.Containers = []corev1.Container{{Name: "trainer"}, {Name: "sidecar"}}
	got := lint.Compare(j, sem)
	if assert.Len(t, got, 1) {
		assert.Equal(t, "exit-code-first-failed-container", got[0].Switch)
		assert.Equal(t, "worker", got[0].Task)
		assert.Equal(t, "PodFailed 42", got[0].Event)
		assert.Contains(t, got[0].Volcano, "(trainer)")
		assert.Contains(t, got[0].Other, "trainer, sidecar")
	}
}

// A failure's policy that acts at once is what a sync may pre-empt.
func TestCompareFailurePolicyBeforeSync(t *testing.T) {
	j := job([]vcjob.LifecyclePolicy{
		{Event: vcjob.PodFailedEvent, Action: vcjob.RestartJobAction},
		{Event: vcjob.PodEvictedEvent, Action: vcjob.RestartJobAction},
	}, nil)
	got := lint.Compare(j, behavior.Of(behavior.FailurePolicyBeforeSync))
	if assert.Len(t, got, 1) {
		assert.Equal(t, "failure-policy-before-sync", got[0].Switch)
		assert.Contains(t, got[0].Event, "PodFailed")
		assert.Contains(t, got[0].Volcano, "RestartJob only when")
	}
	j = job([]vcjob.LifecyclePolicy{{Event: vcjob.PodFailedEvent, Action: vcjob.RestartJobAction, Timeout: timeout(60e9)}}, nil)
	assert.Empty(t, lint.Compare(j, behavior.Of(behavior.FailurePolicyBeforeSync)), "a policy that waits is left to its request")
}
