package delay

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/request"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func at(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

func sec(s int) time.Duration { return time.Duration(s) * time.Second }

// pr is a pod request of job ns/job.
type pr struct {
	ns, job, task, pod, partition string
	uid                           types.UID
	event                         vcjob.Event
}

func (p pr) req() request.Request {
	ns := p.ns
	if ns == "" {
		ns = "ns"
	}
	job := p.job
	if job == "" {
		job = "j"
	}
	return request.Request{
		Namespace: ns, JobName: job, JobUID: types.UID("uid-" + job),
		TaskName: p.task, PodName: p.pod, PodUID: p.uid, PartitionID: p.partition,
		Event: p.event,
	}
}

// mustRegister registers action for req with its usual target and fails
// the test when the registration is dropped.
func mustRegister(t *testing.T, q *Queue, req request.Request, action vcjob.Action, delay time.Duration, now time.Time) Entry {
	t.Helper()
	e, ok := q.Register(req, action, request.TargetOf(action, req), delay, now)
	require.True(t, ok, "registration of %s for %s dropped", action, req)
	return e
}

func ids(es []Entry) []uint64 {
	out := []uint64{}
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}

func typesUID(s string) types.UID { return types.UID(s) }
