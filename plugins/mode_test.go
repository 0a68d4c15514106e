package plugins

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

// vcjobChoices are the registry options most of the package's tests run
// with: the hooks' rules are the same, and these tests were written
// against vcjob's choices. mode_test.go tests Volcano's defaults.
var vcjobChoices = []Option{WithObjectLabels(), WithReplacedEnv(), WithStrictArguments()}

func TestVolcanoDefaultsGoPastBadArguments(t *testing.T) {
	// Volcano parses with ContinueOnError and logs: the flags before the
	// bad one hold, those after it are not read.
	job := newJob("j", map[string][]string{"svc": {"--publish-not-ready-addresses=true", "--no-such=1", "--disable-network-policy=true"}}, task("a", 1, "c"))
	ps, warnings, err := NewRegistry().BuildAll(job)
	require.NoError(t, err)
	require.Len(t, ps, 1)
	require.Len(t, warnings, 1)
	assert.Equal(t, "svc", warnings[0].Plugin)
	assert.Contains(t, warnings[0].Error(), "no-such")
	svc := ps[0].(*svcPlugin)
	assert.True(t, svc.publishNotReadyAddresses)
	assert.False(t, svc.disableNetworkPolicy, "an argument after the bad one is not read")

	_, err = NewRegistry(WithStrictArguments()).Build(job)
	require.Error(t, err)

	// An out-of-range value is used as given, with a warning.
	ps, warnings, err = NewRegistry().BuildAll(newJob("j", map[string][]string{"tensorflow": {"--port=0"}}, task("a", 1, "c")))
	require.NoError(t, err)
	require.Len(t, warnings, 1)
	assert.Equal(t, 0, ps[0].(*tensorflowPlugin).port)
}

func TestVolcanoDefaultsAppendEnvAndLeaveObjectsUnlabelled(t *testing.T) {
	job := newJob("j", map[string][]string{"env": {}, "svc": {}}, task("a", 2, "c"))
	ps, err := NewRegistry().Build(job)
	require.NoError(t, err)
	pod := &corev1.Pod{}
	pod.Name = "j-a-1"
	pod.Annotations = map[string]string{"volcano.sh/task-spec": "a"}
	pod.Spec.Containers = []corev1.Container{{Name: "c", Env: []corev1.EnvVar{{Name: EnvVCTaskIndex, Value: "99"}}}}
	for _, p := range ps {
		require.NoError(t, p.OnPodCreate(pod, job))
	}
	var values []string
	for _, e := range pod.Spec.Containers[0].Env {
		if e.Name == EnvVCTaskIndex {
			values = append(values, e.Value)
		}
	}
	assert.Equal(t, []string{"99", "1"}, values, "Volcano appends a second entry")

	objs, err := ps[1].OnJobAdd(job)
	require.NoError(t, err)
	require.NotEmpty(t, objs.Apply)
	for _, o := range objs.Apply {
		m := o.(interface{ GetLabels() map[string]string })
		assert.Empty(t, m.GetLabels(), "%T", o)
	}
	job = newJob("j", map[string][]string{"env": {}, "svc": {}}, task("a", 2, "c"))
	ps, err = NewRegistry(WithObjectLabels()).Build(job)
	require.NoError(t, err)
	objs, err = ps[1].OnJobAdd(job)
	require.NoError(t, err)
	assert.NotEmpty(t, objs.Apply[0].(interface{ GetLabels() map[string]string }).GetLabels())
}

// choices is the mode of vcjobChoices, for tests that build one plugin.
func choices() *mode { return &mode{strict: true, labels: true, replaceEnv: true} }
