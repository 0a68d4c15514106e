package statemachine_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/plugins"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
)

// recorder is a plugin that records which hooks ran and marks what it
// touches.
type recorder struct {
	calls []string
	fail  string
}

func (r *recorder) Name() string { return "recorder" }

func (r *recorder) hook(name string, job *vcjob.Job) (plugins.Objects, error) {
	r.calls = append(r.calls, name)
	if r.fail == name {
		return plugins.Objects{}, errors.New("boom")
	}
	if job.Status.ControlledResources == nil {
		job.Status.ControlledResources = map[string]string{}
	}
	job.Status.ControlledResources["plugin-recorder"] = name
	return plugins.Objects{Delete: []plugins.ObjectRef{{Kind: "ConfigMap", Name: name}}}, nil
}

func (r *recorder) OnPodCreate(pod *corev1.Pod, job *vcjob.Job) error {
	r.calls = append(r.calls, "OnPodCreate "+pod.Name)
	pod.Annotations["recorded"] = "yes"
	return nil
}
func (r *recorder) OnJobAdd(job *vcjob.Job) (plugins.Objects, error) { return r.hook("OnJobAdd", job) }
func (r *recorder) OnJobUpdate(job *vcjob.Job) (plugins.Objects, error) {
	return r.hook("OnJobUpdate", job)
}
func (r *recorder) OnJobDelete(job *vcjob.Job) (plugins.Objects, error) {
	return r.hook("OnJobDelete", job)
}

func TestSyncRunsPluginHooks(t *testing.T) {
	running := statemachine.PodGroupState{Exists: true, Phase: podgroup.PhaseRunning}

	t.Run("a job not yet initiated gets OnJobAdd and its pods OnPodCreate", func(t *testing.T) {
		r := &recorder{}
		ji := fixture(t, vcjob.Pending)
		p := statemachine.PlanSyncWith(ji, running, now, statemachine.PlanOptions{Plugins: []plugins.Plugin{r}})
		require.NoError(t, p.Err)
		assert.Equal(t, "OnJobAdd", r.calls[0])
		assert.Len(t, r.calls, 1+5, "OnJobAdd, then one OnPodCreate per created pod")
		for _, pod := range p.Create {
			assert.Equal(t, "yes", pod.Annotations["recorded"])
		}
		assert.Equal(t, "OnJobAdd", p.Objects.Delete[0].Name)
		require.NotNil(t, p.PodGroup)
		assert.Equal(t, "j-u1", p.PodGroup.Name)
		out := p.Complete(nil, statemachine.UpdatePendingSync.Func(ji.Job), now)
		assert.Equal(t, "OnJobAdd", out.Status.ControlledResources["plugin-recorder"], "what a hook records is written")
		assert.Empty(t, ji.Job.Status.ControlledResources, "the caller's job info is not changed")
	})
	t.Run("an initiated job gets OnJobUpdate", func(t *testing.T) {
		r := &recorder{}
		statemachine.PlanSyncWith(fixture(t, vcjob.Running), running, now, statemachine.PlanOptions{Plugins: []plugins.Plugin{r}})
		assert.Equal(t, "OnJobUpdate", r.calls[0])
	})
	t.Run("a hook's error stops the call after the init status", func(t *testing.T) {
		r := &recorder{fail: "OnJobAdd"}
		ji := fixture(t, "")
		ji.Job.Status = vcjob.JobStatus{}
		p := statemachine.PlanSyncWith(ji, running, now, statemachine.PlanOptions{Plugins: []plugins.Plugin{r}})
		require.Error(t, p.Err)
		assert.NotNil(t, p.InitStatus, "the new job's Pending status is still written first")
		assert.Empty(t, p.Create)
		assert.Error(t, p.Complete(nil, nil, now).Err)
	})
	t.Run("volumes become claims recorded in the status", func(t *testing.T) {
		ji := fixture(t, vcjob.Pending)
		ji.Job.Spec.Volumes = []vcjob.VolumeSpec{{MountPath: "/data", VolumeClaimName: "shared"}, {MountPath: "/out", VolumeClaim: &corev1.PersistentVolumeClaimSpec{}}}
		p := statemachine.PlanSyncWith(ji, running, now, statemachine.PlanOptions{Choices: statemachine.Choices{DeterministicClaimNames: true}})
		require.Len(t, p.Claims, 2)
		assert.Nil(t, p.Claims[0].Spec, "a named claim must exist")
		assert.Equal(t, "j-volume-1", p.Claims[1].Name)
		assert.NotNil(t, p.Claims[1].Spec)
		assert.Nil(t, p.UpdateJob, "deterministic names are not written back")
	})
}

func TestKillsRunOnJobDelete(t *testing.T) {
	ji := fixture(t, vcjob.Running, pod("w", 0, corev1.PodRunning))
	for name, plan := range map[string]func(*recorder) *statemachine.KillPlan{
		"whole job": func(r *recorder) *statemachine.KillPlan {
			return statemachine.PlanKillJobWith(ji, statemachine.RetainNone, statemachine.PlanOptions{Plugins: []plugins.Plugin{r}})
		},
		"targeted": func(r *recorder) *statemachine.KillPlan {
			return statemachine.PlanKillTargetWith(ji, request.Target{Level: vcjob.TaskLevel, TaskName: "w"}, statemachine.PlanOptions{Plugins: []plugins.Plugin{r}})
		},
	} {
		t.Run(name, func(t *testing.T) {
			r := &recorder{}
			p := plan(r)
			assert.Equal(t, []string{"OnJobDelete"}, r.calls)
			out := p.Complete(nil, statemachine.UpdateRestart.Func(ji.Job), now)
			require.NoError(t, out.Err)
			assert.Equal(t, "OnJobDelete", out.Status.ControlledResources["plugin-recorder"])

			failing := &recorder{fail: "OnJobDelete"}
			assert.Error(t, plan(failing).Complete(nil, nil, now).Err, "a hook's error writes nothing")
		})
	}
}
