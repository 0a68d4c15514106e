package policy_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/policy"
)

func extJob(doc string) *vcjob.Job {
	return &vcjob.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "j", UID: "uid-j", Annotations: map[string]string{policy.ExtensionsAnnotation: doc}},
		Spec:       vcjob.JobSpec{Tasks: []vcjob.TaskSpec{{Name: "worker", Replicas: 2}}},
	}
}

func TestDecodeExtensionsIsStrict(t *testing.T) {
	ext, err := policy.DecodeExtensions([]byte(`
exitCodes:
  - operator: In
    values: ["137", "128-255"]
    action: RestartPod
disruptions: {}
deadline: {after: 2h}
restartBackoff: {base: 10s, max: 5m, jitterPercent: 10}
`))
	require.NoError(t, err)
	assert.Equal(t, []string{"137", "128-255"}, ext.ExitCodes[0].Values)
	assert.Equal(t, vcjob.RestartJobAction, ext.Disruptions.ActionOf())
	assert.Equal(t, vcjob.TerminateJobAction, ext.Deadline.ActionOf())
	assert.Equal(t, 2*time.Hour, ext.Deadline.After.Duration)
	assert.Equal(t, 5*time.Minute, ext.RestartBackoff.Max.Duration)

	for _, bad := range []string{
		"exitCode: []",                     // unknown field
		"deadline: {after: 1h, after: 2h}", // duplicate field
		"deadline: {after: soon}",          // bad duration
		"exitCodes: {}",                    // wrong type
	} {
		_, err := policy.DecodeExtensions([]byte(bad))
		assert.Error(t, err, bad)
	}
	ext, err = policy.ExtensionsOf(&vcjob.Job{})
	assert.NoError(t, err)
	assert.Nil(t, ext, "no annotation, no extensions")
}

func TestValidateExtensionsAnnotation(t *testing.T) {
	for _, tc := range []struct {
		doc    string
		fields []string
	}{
		{"exitCodes: [{operator: NotIn, values: ['0'], action: RestartJob}]", nil},
		{"exitCodes: [{task: ps, operator: Has, values: [], action: Explode}]", []string{
			"metadata.annotations[vcjob.dev/policy].exitCodes[0].task",
			"metadata.annotations[vcjob.dev/policy].exitCodes[0].operator",
			"metadata.annotations[vcjob.dev/policy].exitCodes[0].values",
			"metadata.annotations[vcjob.dev/policy].exitCodes[0].action"}},
		{"exitCodes: [{operator: In, values: ['0-3', x, '9-2'], action: RestartPod}]", []string{
			"metadata.annotations[vcjob.dev/policy].exitCodes[0].values[0]",
			"metadata.annotations[vcjob.dev/policy].exitCodes[0].values[1]",
			"metadata.annotations[vcjob.dev/policy].exitCodes[0].values[2]"}},
		{"disruptions: {action: AbortJob}", []string{"metadata.annotations[vcjob.dev/policy].disruptions.action"}},
		{"deadline: {after: 0s, action: RestartJob}", []string{
			"metadata.annotations[vcjob.dev/policy].deadline.after",
			"metadata.annotations[vcjob.dev/policy].deadline.action"}},
		{"restartBackoff: {base: 1m, max: 10s, jitterPercent: 101}", []string{
			"metadata.annotations[vcjob.dev/policy].restartBackoff.max",
			"metadata.annotations[vcjob.dev/policy].restartBackoff.jitterPercent"}},
		{"nonsense: 1", []string{"metadata.annotations[vcjob.dev/policy]"}},
	} {
		var got []string
		for _, e := range policy.ValidateExtensionsAnnotation(extJob(tc.doc)) {
			got = append(got, e.Field)
		}
		assert.Equal(t, tc.fields, got, tc.doc)
	}
}

func TestExitCodeRuleMatches(t *testing.T) {
	in := policy.ExitCodeRule{Operator: policy.ExitCodeIn, Values: []string{"1", "128-255"}}
	notIn := policy.ExitCodeRule{Task: "worker", Operator: policy.ExitCodeNotIn, Values: []string{"0", "42"}}
	for _, tc := range []struct {
		rule policy.ExitCodeRule
		task string
		code int32
		want bool
	}{
		{in, "any", 1, true}, {in, "any", 2, false}, {in, "any", 128, true}, {in, "any", 255, true}, {in, "any", 256, false},
		{notIn, "worker", 42, false}, {notIn, "worker", 7, true}, {notIn, "ps", 7, false},
		{policy.ExitCodeRule{Operator: "Has", Values: []string{"1"}}, "", 1, false},
	} {
		assert.Equal(t, tc.want, tc.rule.Matches(tc.task, tc.code), "%+v %s %d", tc.rule, tc.task, tc.code)
	}
}

// Backoff waits never shrink as restarts add up and never exceed the cap;
// the jitter is the job's own, so a replay waits exactly as long.
func TestBackoffWaitProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base := time.Duration(rapid.Int64Range(1, int64(time.Hour)).Draw(t, "base"))
		b := policy.RestartBackoff{
			Base:          metav1.Duration{Duration: base},
			Max:           metav1.Duration{Duration: base + time.Duration(rapid.Int64Range(0, int64(24*time.Hour)).Draw(t, "extra"))},
			JitterPercent: rapid.Int32Range(0, 100).Draw(t, "jitter"),
		}
		uid := rapid.StringMatching(`[a-f0-9-]{0,36}`).Draw(t, "uid")
		prev := time.Duration(0)
		for n := int32(1); n <= 70; n++ {
			w := b.Wait(n, uid)
			if w < prev {
				t.Fatalf("wait %d shrank: %v after %v", n, w, prev)
			}
			if w > b.Max.Duration {
				t.Fatalf("wait %d = %v above the cap %v", n, w, b.Max.Duration)
			}
			if w != b.Wait(n, uid) {
				t.Fatalf("wait %d not reproducible", n)
			}
			prev = w
		}
		if b.Wait(0, uid) != 0 {
			t.Fatalf("no restart, no wait")
		}
	})
}

func TestBackoffWaitDoubles(t *testing.T) {
	b := policy.RestartBackoff{Base: metav1.Duration{Duration: 10 * time.Second}, Max: metav1.Duration{Duration: time.Minute}}
	var got []time.Duration
	for n := int32(1); n <= 5; n++ {
		got = append(got, b.Wait(n, "u"))
	}
	assert.Equal(t, []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, time.Minute, time.Minute}, got)
	b.JitterPercent = 50
	assert.NotEqual(t, b.Wait(1, "a"), b.Wait(1, "b"), "two jobs spread out")
}

func TestDeadlineAndHold(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d := policy.DeadlineRule{After: metav1.Duration{Duration: time.Hour}}
	job := &vcjob.Job{}
	_, ok := d.Due(job)
	assert.False(t, ok, "no start yet")
	later := metav1.NewTime(t0.Add(time.Minute))
	first := metav1.NewTime(t0)
	job.Status.Conditions = []vcjob.JobCondition{{Status: vcjob.Running, LastTransitionTime: &later}, {Status: vcjob.Pending, LastTransitionTime: &first}}
	due, ok := d.Due(job)
	assert.True(t, ok)
	assert.Equal(t, t0.Add(time.Hour), due, "the earliest condition")
	job.CreationTimestamp = metav1.NewTime(t0.Add(-time.Hour))
	due, _ = d.Due(job)
	assert.Equal(t, t0, due, "creationTimestamp wins")

	b := &policy.RestartBackoff{Base: metav1.Duration{Duration: 10 * time.Second}, Max: metav1.Duration{Duration: time.Minute}}
	_, held := b.HoldCreatesUntil(job, t0)
	assert.False(t, held, "never restarted")
	restarted := metav1.NewTime(t0)
	job.Status.RetryCount = 2
	job.Status.Conditions = append(job.Status.Conditions, vcjob.JobCondition{Status: vcjob.Restarting, LastTransitionTime: &restarted})
	until, held := b.HoldCreatesUntil(job, t0.Add(5*time.Second))
	assert.True(t, held)
	assert.Equal(t, t0.Add(20*time.Second), until)
	_, held = b.HoldCreatesUntil(job, t0.Add(20*time.Second))
	assert.False(t, held, "the backoff is over")
	var none *policy.RestartBackoff
	_, held = none.HoldCreatesUntil(job, t0)
	assert.False(t, held)
}

func TestDisrupted(t *testing.T) {
	pod := &corev1.Pod{}
	assert.False(t, policy.Disrupted(pod))
	assert.False(t, policy.Disrupted(nil))
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionFalse}}
	assert.False(t, policy.Disrupted(pod))
	pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue})
	assert.True(t, policy.Disrupted(pod))
}

func TestBackoffWaitNeverOverflows(t *testing.T) {
	const huge = time.Duration(1<<63 - 1)
	b := policy.RestartBackoff{Base: metav1.Duration{Duration: huge/2 + 1}, Max: metav1.Duration{Duration: huge}}
	assert.Equal(t, huge, b.Wait(5, "u"))
}
