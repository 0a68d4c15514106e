package job

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/request"

	vcfake "github.com/vcjob/vcjob/examples/controller/pkg/clients/fake"
)

func debugPod(job, task string, index int, phase corev1.PodPhase, deleting bool) *corev1.Pod {
	yes := true
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: vcjob.PodName(job, task, index), Namespace: "ns", UID: types.UID("uid-" + vcjob.PodName(job, task, index)), ResourceVersion: "1",
			Labels: map[string]string{vcjob.TaskIndexKey: strconv.Itoa(index), vcjob.JobNameKey: job},
			Annotations: map[string]string{vcjob.JobNameKey: job, vcjob.TaskSpecKey: task, vcjob.JobVersionKey: "2",
				vcjob.TaskIndexKey: strconv.Itoa(index)},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind, Name: job, UID: types.UID("uid-" + job), Controller: &yes}},
		},
		Status: corev1.PodStatus{Phase: phase},
	}
	if deleting {
		now := metav1.Now()
		p.DeletionTimestamp = &now
	}
	return p
}

// The view answers "why does this job not move": here a job Restarting
// while one of its pods is still being deleted.
func TestJobViewHandler(t *testing.T) {
	c, err := New(t.Context(), Config{Kube: fake.NewClientset(), Volcano: vcfake.NewVolcano(), Workers: 2,
		Clock: testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))})
	require.NoError(t, err)
	job := &vcjob.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "uid-j", ResourceVersion: "5"},
		Spec:       vcjob.JobSpec{MinAvailable: 2, Tasks: []vcjob.TaskSpec{{Name: "w", Replicas: 2}}},
		Status:     vcjob.JobStatus{State: vcjob.JobState{Phase: vcjob.Restarting}, Version: 2, RetryCount: 1, Terminating: 1},
	}
	_, _, err = c.jobs.OnJobAdd(job)
	require.NoError(t, err)
	c.jobs.OnPodAdd(debugPod("j", "w", 1, corev1.PodRunning, true))
	c.jobs.OnPodAdd(debugPod("j", "w", 0, corev1.PodPending, false))

	get := func(query string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		c.JobViewHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/debug/vcjob/job?"+query, nil))
		return rec
	}
	rec := get("job=ns/j")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	var v JobView
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &v))
	assert.Equal(t, "ns/j", v.Job)
	assert.Equal(t, vcjob.Restarting, v.Phase)
	assert.Equal(t, int32(2), v.Version)
	assert.Equal(t, int32(1), v.RetryCount)
	assert.Equal(t, int32(1), v.Status.Terminating)
	assert.Equal(t, []PodView{
		{Name: "j-w-0", Task: "w", Phase: "Pending", JobVersion: "2"},
		{Name: "j-w-1", Task: "w", Phase: "Running", Deleting: true, JobVersion: "2"},
	}, v.Pods)
	assert.Equal(t, "none", v.PodGroup, "a whole-job kill deleted it")
	assert.Equal(t, c.shardOf("ns", "j").id, v.Worker)
	assert.Empty(t, v.Retrying)
	assert.False(t, v.WorkerBusy)

	// The PodGroup the next sync created, then the scheduler admitted.
	pg := podgroup.Desired(job, nil)
	require.NoError(t, c.pgStore.Add(&pg))
	v, err = c.ViewJob("ns", "j")
	require.NoError(t, err)
	assert.Equal(t, "(no phase)", v.PodGroup)
	pg.Status.Phase = podgroup.PhaseInqueue
	require.NoError(t, c.pgStore.Update(&pg))
	v, err = c.ViewJob("ns", "j")
	require.NoError(t, err)
	assert.Equal(t, "Inqueue", v.PodGroup)

	// What the worker holds back for the job.
	s := c.shardOf("ns", "j")
	failed := item{Kind: kindRequest, Req: request.Request{Namespace: "ns", JobName: "j", Event: vcjob.OutOfSyncEvent}}
	s.held = map[string]*heldJob{"ns/j": {failed: failed, parked: []item{{Kind: kindRequest}, {Kind: kindRequest}}}}
	s.waiting = map[string][]item{"ns/j": {{Kind: kindRequest}}}
	// A status that only moves counts, held back by the worker's Applier.
	held := job.Status.DeepCopy()
	held.Terminating = 0
	require.NoError(t, s.statuses.Applier().UpdateStatus(context.Background(), job.DeepCopy(), held))
	v, err = c.ViewJob("ns", "j")
	require.NoError(t, err)
	assert.Equal(t, failed.Req.String(), v.Retrying)
	assert.Equal(t, 2, v.Parked)
	assert.Equal(t, 1, v.Waiting)
	assert.True(t, v.StatusHeld)

	// A worker in the middle of an item is not waited for past a second.
	s.mu.Lock()
	v, err = c.ViewJob("ns", "j")
	s.mu.Unlock()
	require.NoError(t, err)
	assert.True(t, v.WorkerBusy)
	assert.Empty(t, v.Retrying, "not read while the worker holds its state")

	assert.Equal(t, http.StatusNotFound, get("job=ns/other").Code)
	assert.Equal(t, http.StatusBadRequest, get("job=nonamespace").Code)
	assert.Equal(t, http.StatusBadRequest, get("").Code)
}
