package statemachine_test

import (
	"context"
	"errors"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
)

// fixedNames hands out the given strings in turn, then z's.
type fixedNames []string

func (f *fixedNames) RandomString(n int) string {
	if len(*f) == 0 {
		return "zzzzzzzzzzzz"[:n]
	}
	s := (*f)[0]
	*f = (*f)[1:]
	return s
}

func TestClaimsAsVolcanoNamesThem(t *testing.T) {
	spec := &corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}}
	volumes := func() []vcjob.VolumeSpec {
		return []vcjob.VolumeSpec{
			{MountPath: "/shared", VolumeClaimName: "shared"},
			{MountPath: "/out", VolumeClaim: spec},
			{MountPath: "/scratch"},
		}
	}
	running := statemachine.PodGroupState{Exists: true, Phase: "Running"}

	t.Run("a volume without a name gets <job>-pvc-<random>, drawn again while it exists, and is written back", func(t *testing.T) {
		ji := fixture(t, vcjob.Pending)
		ji.Job.Spec.Volumes = volumes()
		names := fixedNames{"taken0000000", "out000000000", "scratch00000"}
		exists := func(ns, name string) (bool, error) { return name == "j-pvc-taken0000000", nil }
		p := statemachine.PlanSyncWith(ji, running, now, statemachine.PlanOptions{Names: &names, ClaimExists: exists})
		require.NoError(t, p.Err)
		require.Len(t, p.Claims, 2, "the named claim must exist; a generated one without a spec is neither created nor checked")
		assert.Equal(t, statemachine.Claim{Name: "shared"}, p.Claims[0])
		assert.Equal(t, "j-pvc-out000000000", p.Claims[1].Name)
		assert.Equal(t, spec, p.Claims[1].Spec)
		require.NotNil(t, p.UpdateJob)
		got := []string{}
		for _, v := range p.UpdateJob.Spec.Volumes {
			got = append(got, v.VolumeClaimName)
		}
		assert.Equal(t, []string{"shared", "j-pvc-out000000000", "j-pvc-scratch00000"}, got)
		assert.Empty(t, ji.Job.Spec.Volumes[1].VolumeClaimName, "the caller's job is not changed")
		// The status records every claim.
		out := p.Complete(nil, nil, now)
		for _, n := range got {
			assert.Equal(t, n, out.Status.ControlledResources["volume-pvc-"+n])
		}
	})

	t.Run("pods mount each claim once, under <job>-<random>", func(t *testing.T) {
		job := fixture(t, vcjob.Running).Job
		job.Spec.Volumes = []vcjob.VolumeSpec{{MountPath: "/a", VolumeClaimName: "c1"}, {MountPath: "/b", VolumeClaimName: "c1"}, {MountPath: "/c", VolumeClaimName: "c2"}}
		names := fixedNames{"aaaaaaaaaaaa", "bbbbbbbbbbbb", "cccccccccccc"}
		pod := statemachine.RenderPodWith(job, &job.Spec.Tasks[0], 0, statemachine.PlanOptions{Names: &names})
		require.Len(t, pod.Spec.Volumes, 2)
		assert.Equal(t, "j-aaaaaaaaaaaa", pod.Spec.Volumes[0].Name)
		assert.Equal(t, "j-cccccccccccc", pod.Spec.Volumes[1].Name, "a name is drawn for the repeated claim too")
		assert.Empty(t, names)
		// Without a source the names follow from the job and the pod.
		a := statemachine.RenderPod(job, &job.Spec.Tasks[0], 0)
		b := statemachine.RenderPod(job, &job.Spec.Tasks[0], 0)
		assert.Equal(t, a.Spec.Volumes, b.Spec.Volumes)
		assert.Regexp(t, regexp.MustCompile(`^j-[0-9a-z]{12}$`), a.Spec.Volumes[0].Name)
	})

	t.Run("a failed claim lookup stops the plan", func(t *testing.T) {
		ji := fixture(t, vcjob.Pending)
		ji.Job.Spec.Volumes = volumes()
		boom := errors.New("lister down")
		p := statemachine.PlanSyncWith(ji, running, now, statemachine.PlanOptions{ClaimExists: func(string, string) (bool, error) { return false, boom }})
		assert.ErrorIs(t, p.Err, boom)
	})

	t.Run("through a cluster: claim created, job written before the PodGroup, status last", func(t *testing.T) {
		ji := fixture(t, "")
		ji.Job.Spec.Volumes = volumes()[1:2]
		c := memcluster.New(now)
		c.PutJob(ji.Job)
		_, err := statemachine.Execute(context.Background(), c, ji, vcjob.SyncJobAction, request.Target{})
		require.NoError(t, err)
		require.Len(t, c.Journal.ClaimsCreated, 1)
		require.Len(t, c.Journal.JobWrites, 1)
		name := c.Journal.ClaimsCreated[0].Name
		assert.Regexp(t, `^j-pvc-[0-9a-z]{12}$`, name)
		assert.Equal(t, name, c.StoredJob(ji.Job.Namespace, ji.Job.Name).Spec.Volumes[0].VolumeClaimName)
		// No PodGroup admits pods yet, so no status but the first Pending
		// one is written: the claim reaches controlledResources with a
		// later write, as with Volcano.
		assert.Equal(t, 1, c.Journal.StatusWrites)
		assert.Empty(t, c.StoredJob(ji.Job.Namespace, ji.Job.Name).Status.ControlledResources)
		assert.True(t, c.LastEffects().JobWritten)
	})

	t.Run("a named claim that is missing fails the sync with Volcano's words", func(t *testing.T) {
		ji := fixture(t, vcjob.Pending)
		ji.Job.Spec.Volumes = volumes()[:1]
		c := memcluster.New(now)
		c.PutJob(ji.Job)
		_, err := statemachine.Execute(context.Background(), c, ji, vcjob.SyncJobAction, request.Target{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "pvc shared is not found, the job will be in the Pending state until the PVC is created")
	})
}
