package ttl_test

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/ttl"
)

// apiServer is an API server holding one job.
type apiServer struct{ job *vcjob.Job }

func (a *apiServer) Get(_ context.Context, namespace, name string) (*vcjob.Job, error) {
	if a.job == nil {
		return nil, apierrors.NewNotFound(schema.GroupResource{Group: vcjob.GroupName, Resource: "jobs"}, name)
	}
	return a.job.DeepCopy(), nil
}

func (a *apiServer) Delete(_ context.Context, namespace, name string, opts metav1.DeleteOptions) error {
	fmt.Printf("DELETE %s/%s propagation=%s uid=%s\n", namespace, name, *opts.PropagationPolicy, *opts.Preconditions.UID)
	a.job = nil
	return nil
}

// A job Completed at noon with a ten-minute ttl: at 12:04 the collector
// looks again six minutes later; at 12:10 it reads the job again and
// deletes it.
func ExampleProcess() {
	finished := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	job := &vcjob.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "mnist", UID: "6f1c"},
		Spec:       vcjob.JobSpec{TTLSecondsAfterFinished: new(int32(600))},
	}
	job.Status.State.Phase = vcjob.Completed
	job.Status.State.LastTransitionTime = metav1.NewTime(finished)
	api := &apiServer{job: job}

	fmt.Println("queued:", ttl.Enqueues(job))
	clock := func(t time.Time) func() time.Time { return func() time.Time { return t } }
	r := ttl.Process(context.Background(), api, job, clock(finished.Add(4*time.Minute)))
	fmt.Println(r.Next, r.After)
	r = ttl.Process(context.Background(), api, job, clock(finished.Add(10*time.Minute)))
	fmt.Println(r.Next)
	// Output:
	// queued: true
	// requeue-after 6m0s
	// DELETE ml/mnist propagation=Foreground uid=6f1c
	// done
}

// An Aborted job is not finished for the garbage collector: its ttl never
// runs out.
func ExampleCheck() {
	job := &vcjob.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "sweep"},
		Spec: vcjob.JobSpec{TTLSecondsAfterFinished: new(int32(0))}}
	job.Status.State.Phase = vcjob.Aborted
	job.Status.State.LastTransitionTime = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)

	fmt.Printf("%+v\n", ttl.Check(job, now))
	_, err := ttl.TimeLeft(job, now)
	fmt.Println(err)
	// Output:
	// {Expired:false After:0s FinishedInFuture:false Err:<nil>}
	// job ml/sweep should not be cleaned up
}

// workQueue is the part of client-go's rate-limiting work queue a
// garbage collector's controller uses.
type workQueue interface {
	Add(key string)
	AddAfter(key string, d time.Duration)
	AddRateLimited(key string)
	Forget(key string)
}

// A controller's garbage collector: the informer's handlers queue a job
// when a change makes it one to clean up; the worker processes each key
// and does what the result says. (Compiled, not run: the README's TTL
// section shows its body.)
func Example_controller() {
	var (
		ctx    = context.Background()
		queue  workQueue
		api    ttl.API                     // Get and Delete on the API server
		cached func(key string) *vcjob.Job // the informer's copy, nil when it holds none
		key    = "ml/mnist"                // namespace/name
		job    = &vcjob.Job{}              // an added or updated job
	)

	now := time.Now()
	left, err := ttl.TimeLeft(job, now) // or *ttl.NoCleanupError, *ttl.NoFinishTimeError
	v := ttl.Check(job, now)            // v.Expired, or look again after v.After
	_, _, _ = left, err, v

	// The informer's add and update handlers:
	if ttl.Enqueues(job) {
		queue.Add(key)
	}

	// The worker, for each key it takes from the queue:
	r := ttl.Process(ctx, api, cached(key), time.Now)
	switch r.Next {
	case ttl.Done:
		queue.Forget(key)
	case ttl.RequeueAfter:
		queue.Forget(key)
		queue.AddAfter(key, r.After)
	case ttl.Retry:
		queue.AddRateLimited(key) // r.Err says why
	}
}
