package policy_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/request"
)

func TestEscalation(t *testing.T) {
	ext := &policy.Extensions{Escalation: &policy.Escalation{RestartPod: 2, RestartTask: 1}}
	req := podReq(vcjob.PodFailedEvent, 1)
	pod := policy.Decision{Action: vcjob.RestartPodAction, Target: request.TargetOf(vcjob.RestartPodAction, req)}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := &policy.History{}
	var got []vcjob.Action
	for i := 0; i < 5; i++ {
		d := policy.Stateful(ext, h, pod, req, t0)
		assert.Equal(t, request.TargetOf(d.Action, req), d.Target)
		assert.Equal(t, d.Action != vcjob.RestartPodAction, d.Escalated)
		got = append(got, d.Action)
		h.Record(ext, d.Action, d.Target, t0)
	}
	assert.Equal(t, []vcjob.Action{vcjob.RestartPodAction, vcjob.RestartPodAction, vcjob.RestartTaskAction, vcjob.RestartJobAction, vcjob.RestartJobAction}, got,
		"RestartPod twice, then RestartTask once, then RestartJob")
	assert.Equal(t, pod, policy.Stateful(nil, h, pod, req, t0), "no extensions: Volcano's decision")
	sync := policy.Decision{Action: vcjob.SyncJobAction}
	assert.Equal(t, sync, policy.Stateful(ext, h, sync, req, t0), "only restarts escalate")
}

func TestRetryBudget(t *testing.T) {
	ext := &policy.Extensions{RetryBudget: &policy.RetryBudget{Restarts: 2, Window: metav1.Duration{Duration: time.Hour}}}
	req := podReq(vcjob.PodFailedEvent, 1)
	restart := policy.Decision{Action: vcjob.RestartJobAction, Target: request.Target{Level: vcjob.JobLevel}}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := &policy.History{}
	for _, tc := range []struct {
		at   time.Duration
		keep bool
		fail bool
	}{
		{0, true, false},
		{10 * time.Minute, true, false},
		{20 * time.Minute, false, true}, // a third within the hour
		{61 * time.Minute, true, false}, // the first has left the window
		{65 * time.Minute, false, true}, // the second and fourth are within the hour
		{3 * time.Hour, true, false},
	} {
		now := t0.Add(tc.at)
		d := policy.Stateful(ext, h, restart, req, now)
		assert.Equal(t, tc.keep, d.KeepRetries, "at %v", tc.at)
		assert.Equal(t, tc.fail, d.FailJob, "at %v", tc.at)
		if !d.FailJob {
			h.Record(ext, d.Action, d.Target, now)
		}
	}
	assert.Len(t, h.Restarts, 1, "restarts out of the window are dropped")
}
