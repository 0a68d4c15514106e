package policy_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/request"
)

// The policy extensions against what Volcano decides without them.
func TestResolveWithExtensions(t *testing.T) {
	exact := []vcjob.LifecyclePolicy{{ExitCode: code(137), Action: vcjob.RestartTaskAction}}
	evicted := []vcjob.LifecyclePolicy{{Events: []vcjob.Event{vcjob.PodEvictedEvent, vcjob.PodFailedEvent}, Action: vcjob.AbortJobAction}}
	ext := &policy.Extensions{
		ExitCodes: []policy.ExitCodeRule{
			{Task: "worker", Operator: policy.ExitCodeIn, Values: []string{"128-255"}, Action: vcjob.RestartPodAction},
			{Operator: policy.ExitCodeNotIn, Values: []string{"0", "3"}, Action: vcjob.TerminateJobAction},
		},
		Disruptions: &policy.DisruptionRule{},
	}
	disrupted := func(e vcjob.Event) request.Request { r := podReq(e, 0); r.Disrupted = true; return r }
	stale := disrupted(vcjob.PodEvictedEvent)
	stale.JobVersion = 1
	for _, tc := range []struct {
		name string
		ext  *policy.Extensions
		req  request.Request
		want vcjob.Action
		rule policy.RuleKind
		keep bool
	}{
		{"volcano: one exact code, 139 is not it", nil, podReq(vcjob.PodFailedEvent, 139), vcjob.AbortJobAction, policy.RuleJobPolicy, false},
		{"a range", ext, podReq(vcjob.PodFailedEvent, 139), vcjob.RestartPodAction, policy.RuleExitCodes, false},
		{"the range comes before the job's exact code", ext, podReq(vcjob.PodFailedEvent, 137), vcjob.RestartPodAction, policy.RuleExitCodes, false},
		{"NotIn", ext, podReq(vcjob.PodFailedEvent, 1), vcjob.TerminateJobAction, policy.RuleExitCodes, false},
		{"neither: the job's own policies", ext, podReq(vcjob.PodFailedEvent, 3), vcjob.AbortJobAction, policy.RuleJobPolicy, false},
		{"exit codes only for PodFailed", ext, podReq(vcjob.TaskFailedEvent, 0), vcjob.SyncJobAction, policy.RuleNoMatch, false},
		{"volcano: a disrupted pod is an evicted pod", nil, disrupted(vcjob.PodEvictedEvent), vcjob.AbortJobAction, policy.RuleJobPolicy, false},
		{"a disruption restarts, keeping retries", ext, disrupted(vcjob.PodEvictedEvent), vcjob.RestartJobAction, policy.RuleDisruption, true},
		{"a disrupted failure too", ext, disrupted(vcjob.PodFailedEvent), vcjob.RestartJobAction, policy.RuleDisruption, true},
		{"stale requests stay stale", ext, stale, vcjob.SyncJobAction, policy.RuleStaleVersion, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := job(exact, evicted)
			d := policy.ResolveWith(j, tc.req, tc.ext)
			assert.Equal(t, tc.want, d.Action)
			assert.Equal(t, tc.rule, d.Rule.Kind)
			assert.Equal(t, tc.keep, d.KeepRetries)
			assert.Equal(t, request.TargetOf(d.Action, tc.req), d.Target)
		})
	}
}

func TestResolveReadsTheAnnotation(t *testing.T) {
	j := job(nil, nil)
	req := podReq(vcjob.PodFailedEvent, 200)
	require.Equal(t, vcjob.SyncJobAction, policy.Resolve(j, req).Action)
	j.Annotations = map[string]string{policy.ExtensionsAnnotation: "exitCodes: [{operator: In, values: ['128-255'], action: RestartJob}]"}
	assert.Equal(t, vcjob.RestartJobAction, policy.Resolve(j, req).Action)
	j.Annotations[policy.ExtensionsAnnotation] = "exitCodes: nonsense"
	assert.Equal(t, vcjob.SyncJobAction, policy.Resolve(j, req).Action, "an annotation that does not decode adds nothing")
}
