package statemachine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
)

// versionChecker is an Applier that, like an API server, refuses a status
// write carrying an older resourceVersion than the stored one.
type versionChecker struct {
	*memcluster.Cluster
	writes []string
}

func (v *versionChecker) UpdateStatus(ctx context.Context, job *vcjob.Job, status *vcjob.JobStatus) error {
	stored := v.Cluster.Job(job.Namespace, job.Name)
	if stored.ResourceVersion != job.ResourceVersion {
		return assert.AnError
	}
	v.writes = append(v.writes, job.ResourceVersion)
	return v.Cluster.UpdateStatus(ctx, job, status)
}

func TestAppliedWritesTwiceWithTheCurrentVersion(t *testing.T) {
	c := memcluster.New(now)
	c.Watch = true // resourceVersions move on every write
	job := &vcjob.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "u1"},
		Spec: vcjob.JobSpec{MinAvailable: 1, Tasks: []vcjob.TaskSpec{{Name: "w", Replicas: 1}}}}
	c.PutJob(job)
	c.SetPodGroupPhase("ns", podgroup.Name(job), podgroup.PhaseRunning)
	v := &versionChecker{Cluster: c}
	a := &statemachine.Applied{Applier: v, Now: now}
	ji, err := c.JobInfo("ns", "j")
	require.NoError(t, err)
	before := ji.Job.DeepCopy()

	// A new job whose PodGroup already admits pods: the Pending status,
	// then the counts, in one call.
	require.NoError(t, a.SyncJob(context.Background(), ji, statemachine.UpdatePendingSync.Func(ji.Job)))
	assert.Len(t, v.writes, 2)
	assert.NotEqual(t, v.writes[0], v.writes[1], "the second write carries the first one's version")
	assert.Equal(t, before, ji.Job, "the caller's snapshot is not changed")
}
