package ttl

import (
	"context"
	"errors"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/util/workqueue"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/vcjob/vcjob"

	"github.com/vcjob/vcjob/examples/controller/internal/testclock"
	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
	vcfake "github.com/vcjob/vcjob/examples/controller/pkg/clients/fake"
)

var (
	finished = time.Date(2026, 1, 5, 12, 0, 0, 0, time.UTC)
	now      = finished.Add(3 * time.Second)
)

func newController(t *testing.T, vc *vcfake.Volcano) *Controller {
	t.Helper()
	return newControllerOn(t, vc, testingclock.NewFakeClock(now))
}

// newControllerOn is newController on clk.
func newControllerOn(t *testing.T, vc *vcfake.Volcano, clk *testingclock.FakeClock) *Controller {
	t.Helper()
	fast := func() workqueue.TypedRateLimiter[string] {
		return workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, 10*time.Millisecond)
	}
	c, err := New(t.Context(), Config{Volcano: vc, RateLimiter: fast, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// job is ns/demo, in phase since finished, with ttl seconds (nil: none).
func job(phase vcjob.JobPhase, ttl *int32) *vcjob.Job {
	j := &vcjob.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "demo", UID: "uid-1", ResourceVersion: "7"}}
	j.Spec.TTLSecondsAfterFinished = ttl
	j.Status.State.Phase = phase
	j.Status.State.LastTransitionTime = metav1.NewTime(finished)
	return j
}

// put stores the job in the API and, as cached, in the informer's store.
func put(t *testing.T, vc *vcfake.Volcano, c *Controller, api, cached *vcjob.Job) {
	t.Helper()
	if api != nil {
		if err := vc.Tracker().Add(api); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.cfg.VolcanoInformers.Jobs().Informer().GetIndexer().Add(cached); err != nil {
		t.Fatal(err)
	}
}

func verbs(vc *vcfake.Volcano) []string {
	var out []string
	for _, a := range vc.Actions() {
		out = append(out, a.GetVerb())
	}
	return out
}

// The handlers queue finished jobs with a TTL only; Aborted is not
// finished, so an Aborted job is never collected.
func TestEnqueues(t *testing.T) {
	c := newController(t, vcfake.NewVolcano())
	deleting := job(vcjob.Completed, new(int32(2)))
	deleting.DeletionTimestamp = &metav1.Time{Time: now}
	for _, j := range []*vcjob.Job{job(vcjob.Running, new(int32(2))), job(vcjob.Aborted, new(int32(2))), job(vcjob.Completed, nil), deleting} {
		c.enqueue(j)
	}
	if c.queue.Len() != 0 {
		t.Fatalf("queued %d, want none", c.queue.Len())
	}
	for _, p := range []vcjob.JobPhase{vcjob.Completed, vcjob.Failed, vcjob.Terminated} {
		c.enqueue(job(p, new(int32(2))))
	}
	if c.queue.Len() != 1 { // one key
		t.Errorf("queue %d, want ns/demo once", c.queue.Len())
	}
}

// Expired in the cache: the job is read again from the API server and,
// expired there too, deleted in the foreground with its UID as
// precondition; the key is forgotten.
func TestExpiredJobIsRereadThenDeleted(t *testing.T) {
	vc := vcfake.NewVolcano()
	c := newController(t, vc)
	put(t, vc, c, job(vcjob.Completed, new(int32(2))), job(vcjob.Completed, new(int32(2))))
	var opts metav1.DeleteOptions
	vc.PrependReactor("delete", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
		opts = a.(k8stesting.DeleteAction).GetDeleteOptions()
		return false, nil, nil
	})
	c.queue.Add("ns/demo")
	c.processNext(context.Background())
	if got := verbs(vc); len(got) != 2 || got[0] != "get" || got[1] != "delete" {
		t.Fatalf("calls %q, want get then delete", got)
	}
	if opts.PropagationPolicy == nil || *opts.PropagationPolicy != metav1.DeletePropagationForeground ||
		opts.Preconditions == nil || opts.Preconditions.UID == nil || *opts.Preconditions.UID != "uid-1" {
		t.Errorf("delete options %+v, want Foreground and the UID precondition", opts)
	}
	if _, err := vc.Tracker().Get(clients.JobsResource, "ns", "demo"); !apierrors.IsNotFound(err) {
		t.Errorf("job not deleted: %v", err)
	}
	if c.queue.NumRequeues("ns/demo") != 0 || c.queue.Len() != 0 {
		t.Error("key not forgotten")
	}
}

// The reread copy decides: its TTL was raised, so nothing is deleted and
// the key comes back when that copy expires.
func TestRereadCopyDecides(t *testing.T) {
	vc := vcfake.NewVolcano()
	c := newController(t, vc)
	put(t, vc, c, job(vcjob.Completed, new(int32(60))), job(vcjob.Completed, new(int32(2))))
	r := c.process(context.Background(), "ns/demo")
	if r.Next != "requeue-after" || r.After != 57*time.Second || r.Delete != nil {
		t.Errorf("result %+v, want a requeue after 57s and no delete", r)
	}
	if got := verbs(vc); len(got) != 1 || got[0] != "get" {
		t.Errorf("calls %q, want the get only", got)
	}
	// Gone from the API server meanwhile: done.
	if err := vc.Tracker().Delete(clients.JobsResource, "ns", "demo"); err != nil {
		t.Fatal(err)
	}
	if r := c.process(context.Background(), "ns/demo"); r.Next != "done" {
		t.Errorf("result %+v, want done", r)
	}
}

// Not expired in the cache: no API call, the key comes back when it is.
func TestNotExpiredWaits(t *testing.T) {
	vc := vcfake.NewVolcano()
	c := newController(t, vc)
	put(t, vc, c, nil, job(vcjob.Completed, new(int32(10))))
	r := c.process(context.Background(), "ns/demo")
	if r.Next != "requeue-after" || r.After != 7*time.Second {
		t.Errorf("result %+v, want a requeue after 7s", r)
	}
	if len(vc.Actions()) != 0 {
		t.Errorf("calls %q, want none", verbs(vc))
	}
}

// A job not expired yet comes back when it expires on the collector's
// clock, not before.
func TestNotExpiredComesBackOnTheClock(t *testing.T) {
	vc := vcfake.NewVolcano()
	clk := testingclock.NewFakeClock(now)
	c := newControllerOn(t, vc, clk)
	put(t, vc, c, nil, job(vcjob.Completed, new(int32(10))))
	c.queue.Add("ns/demo")
	c.processNext(context.Background())
	if n := c.queue.Len(); n != 0 {
		t.Fatalf("queue %d right after the requeue, want the key waiting", n)
	}
	testclock.StepUntil(t, clk, 100*time.Millisecond, func() bool { return c.queue.Len() > 0 })
	// Not before, and soon after: on the real clock it would come only
	// after 7 s of real time, many thousands of steps.
	if waited := clk.Since(now); waited < 7*time.Second || waited > 17*time.Second {
		t.Errorf("the key came back after %v on the fake clock, want 7s (when the job expires)", waited)
	}
	if len(vc.Actions()) != 0 {
		t.Errorf("calls %q, want none", verbs(vc))
	}
}

// A failed reread or delete is retried with backoff.
func TestFailuresAreRetried(t *testing.T) {
	vc := vcfake.NewVolcano()
	c := newController(t, vc)
	put(t, vc, c, job(vcjob.Completed, new(int32(2))), job(vcjob.Completed, new(int32(2))))
	vc.PrependReactor("get", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewInternalError(errors.New("etcd is down"))
	})
	c.queue.Add("ns/demo")
	c.processNext(context.Background())
	if n := c.queue.NumRequeues("ns/demo"); n != 1 {
		t.Errorf("requeues %d, want 1", n)
	}

	vc = vcfake.NewVolcano()
	c = newController(t, vc)
	put(t, vc, c, job(vcjob.Completed, new(int32(2))), job(vcjob.Completed, new(int32(2))))
	vc.PrependReactor("delete", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewConflict(clients.JobsResource.GroupResource(), "demo", errors.New("UID precondition"))
	})
	if r := c.process(context.Background(), "ns/demo"); r.Next != "retry" || r.Delete == nil {
		t.Errorf("result %+v, want a retry after the sent delete", r)
	}
}
