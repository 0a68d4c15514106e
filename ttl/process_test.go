package ttl

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"
)

var jobs = schema.GroupResource{Group: vcjob.GroupName, Resource: "jobs"}

// fakeAPI holds at most one job and records the calls.
type fakeAPI struct {
	job       *vcjob.Job
	getErr    error
	deleteErr error
	getNil    bool // Get answers (nil, nil)
	calls     []string
	ctxs      []context.Context
	deleted   *metav1.DeleteOptions
}

func (a *fakeAPI) Get(ctx context.Context, namespace, name string) (*vcjob.Job, error) {
	a.calls = append(a.calls, "get "+namespace+"/"+name)
	a.ctxs = append(a.ctxs, ctx)
	switch {
	case a.getErr != nil:
		return nil, a.getErr
	case a.getNil:
		return nil, nil
	case a.job == nil:
		return nil, apierrors.NewNotFound(jobs, name)
	}
	return a.job.DeepCopy(), nil
}

func (a *fakeAPI) Delete(ctx context.Context, namespace, name string, opts metav1.DeleteOptions) error {
	a.calls = append(a.calls, "delete "+namespace+"/"+name)
	a.ctxs = append(a.ctxs, ctx)
	a.deleted = &opts
	return a.deleteErr
}

func TestProcess(t *testing.T) {
	expired := job(vcjob.Completed, t0, seconds(60))
	now := t0.Add(time.Hour)
	withUID := func(j *vcjob.Job, uid types.UID) *vcjob.Job { j = j.DeepCopy(); j.UID = uid; return j }
	foreground := metav1.DeletePropagationForeground
	deleteOf := func(uid types.UID) *Delete {
		return &Delete{Namespace: "ns", Name: "j", Options: metav1.DeleteOptions{PropagationPolicy: &foreground, Preconditions: &metav1.Preconditions{UID: &uid}}}
	}
	cases := map[string]struct {
		cached *vcjob.Job
		api    *fakeAPI
		now    time.Time
		next   Next
		after  time.Duration
		err    string
		delete *Delete
		calls  []string
	}{
		"not in the cache":        {cached: nil, api: &fakeAPI{job: expired}, now: now, next: Done},
		"not finished":            {cached: job(vcjob.Running, t0, seconds(60)), api: &fakeAPI{job: expired}, now: now, next: Done},
		"Aborted":                 {cached: job(vcjob.Aborted, t0, seconds(0)), api: &fakeAPI{job: expired}, now: now, next: Done},
		"being deleted":           {cached: deleting(expired.DeepCopy()), api: &fakeAPI{job: expired}, now: now, next: Done},
		"not expired: wait":       {cached: expired, api: &fakeAPI{job: expired}, now: t0.Add(45 * time.Second), next: RequeueAfter, after: 15 * time.Second},
		"no finish time":          {cached: job(vcjob.Failed, time.Time{}, seconds(60)), api: &fakeAPI{job: expired}, now: now, next: Retry, err: "unable to find the time when the Job ns/j finished"},
		"expired: deleted":        {cached: expired, api: &fakeAPI{job: expired}, now: now, next: Done, delete: deleteOf("u1"), calls: []string{"get ns/j", "delete ns/j"}},
		"expired, gone":           {cached: expired, api: &fakeAPI{}, now: now, next: Done, calls: []string{"get ns/j"}},
		"expired, Get (nil, nil)": {cached: expired, api: &fakeAPI{getNil: true}, now: now, next: Done, calls: []string{"get ns/j"}},
		"expired, Get fails": {cached: expired, api: &fakeAPI{getErr: errors.New("connection refused")}, now: now,
			next: Retry, err: "connection refused", calls: []string{"get ns/j"}},
		"the copy's ttl grew": {cached: expired, api: &fakeAPI{job: job(vcjob.Completed, t0, seconds(7200))}, now: now,
			next: RequeueAfter, after: time.Hour, calls: []string{"get ns/j"}},
		"the copy's ttl is gone": {cached: expired, api: &fakeAPI{job: job(vcjob.Completed, t0, nil)}, now: now,
			next: Done, calls: []string{"get ns/j"}},
		"the copy restarted": {cached: expired, api: &fakeAPI{job: job(vcjob.Restarting, t0, seconds(60))}, now: now,
			next: Done, calls: []string{"get ns/j"}},
		"the copy is being deleted": {cached: expired, api: &fakeAPI{job: deleting(expired.DeepCopy())}, now: now,
			next: Done, calls: []string{"get ns/j"}},
		"the copy has no finish time": {cached: expired, api: &fakeAPI{job: job(vcjob.Completed, time.Time{}, seconds(60))}, now: now,
			next: Retry, err: "unable to find the time when the Job ns/j finished", calls: []string{"get ns/j"}},
		"recreated and expired: the new UID is deleted": {cached: expired, api: &fakeAPI{job: withUID(expired, "u2")}, now: now,
			next: Done, delete: deleteOf("u2"), calls: []string{"get ns/j", "delete ns/j"}},
		"the delete fails": {cached: expired, api: &fakeAPI{job: expired, deleteErr: errors.New("etcd timeout")}, now: now,
			next: Retry, err: "etcd timeout", delete: deleteOf("u1"), calls: []string{"get ns/j", "delete ns/j"}},
		"the delete finds it gone: an error as Volcano returns it": {cached: expired, api: &fakeAPI{job: expired, deleteErr: apierrors.NewNotFound(jobs, "j")}, now: now,
			next: Retry, err: `jobs.batch.volcano.sh "j" not found`, delete: deleteOf("u1"), calls: []string{"get ns/j", "delete ns/j"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.WithValue(context.Background(), ctxKey{}, name)
			reads := 0
			clock := func() time.Time { reads++; return tc.now }
			var before *vcjob.Job
			if tc.cached != nil {
				before = tc.cached.DeepCopy()
			}
			r := Process(ctx, tc.api, tc.cached, clock)
			assert.Equal(t, tc.next, r.Next, "next")
			assert.Equal(t, tc.after, r.After, "after")
			if tc.err == "" {
				assert.NoError(t, r.Err)
			} else if assert.Error(t, r.Err) {
				assert.Equal(t, tc.err, r.Err.Error())
			}
			assert.Equal(t, tc.delete, r.Delete, "delete")
			assert.Equal(t, tc.calls, tc.api.calls, "calls")
			for _, c := range tc.api.ctxs {
				assert.Equal(t, name, c.Value(ctxKey{}), "every call gets the caller's context")
			}
			if tc.delete != nil {
				assert.Equal(t, tc.delete.Options, *tc.api.deleted, "the options sent")
			}
			judged := 0
			if tc.cached != nil {
				judged = 1
			}
			if len(tc.calls) > 0 && tc.api.getErr == nil && tc.api.job != nil {
				judged = 2
			}
			assert.Equal(t, judged, reads, "the clock is read once per copy judged")
			assert.Equal(t, before, tc.cached, "Process must not modify the cached job")
		})
	}
}

type ctxKey struct{}

// TestProcessClockPerCopy: the copy read again is judged at the clock's
// reading after the read, as Volcano judges it: a job that expires during
// the read is deleted.
func TestProcessClockPerCopy(t *testing.T) {
	cached := job(vcjob.Completed, t0, seconds(60))
	fresh := job(vcjob.Completed, t0, seconds(61))
	times := []time.Time{t0.Add(time.Minute), t0.Add(61 * time.Second)}
	clock := func() time.Time { t := times[0]; times = times[1:]; return t }
	api := &fakeAPI{job: fresh}
	r := Process(context.Background(), api, cached, clock)
	if r.Next != Done || r.Delete == nil {
		t.Fatalf("got %+v, want the delete", r)
	}
}
