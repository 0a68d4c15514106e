package intake

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/vcjob/vcjob"
	jobcache "github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/manifest"
	vcrecord "github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"

	vcfake "github.com/vcjob/vcjob/examples/controller/pkg/clients/fake"
	"github.com/vcjob/vcjob/examples/controller/pkg/expectations"
	"github.com/vcjob/vcjob/examples/controller/pkg/metrics"
)

const jobYAML = `apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: demo
  namespace: ns
spec:
  minAvailable: 2
  tasks:
  - name: worker
    replicas: 2
    template:
      spec:
        containers:
        - name: c
          image: busybox
`

func newJob(t *testing.T) *vcjob.Job {
	t.Helper()
	job, err := manifest.DecodeJob([]byte(jobYAML))
	if err != nil {
		t.Fatal(err)
	}
	vcjob.SetDefaults(job)
	job.UID, job.ResourceVersion = "job-uid", "1"
	return job
}

// fixture is Handlers on a fresh cache and the fake typed Volcano client,
// with what they hand to the workers recorded instead.
type fixture struct {
	vc           *vcfake.Volcano
	cmds         cache.Indexer
	jobs         *jobcache.Cache
	expectations *expectations.Expectations
	m            *metrics.Metrics
	h            *Handlers

	queued    []request.Request
	woken     []string
	forgotten []string
}

func newFixture() *fixture {
	f := &fixture{vc: vcfake.NewVolcano(), cmds: cache.NewIndexer(cache.MetaNamespaceKeyFunc, nil),
		jobs: jobcache.New(), expectations: expectations.New(testingclock.NewFakeClock(time.Unix(1000, 0))), m: metrics.New()}
	f.h = New(context.Background(), Config{Jobs: f.jobs, Expectations: f.expectations, Metrics: f.m, Volcano: f.vc, CommandStore: f.cmds, MaxRequeue: 2,
		Enqueue: func(r request.Request) { f.queued = append(f.queued, r) },
		Wake: func(job string, last bool) {
			if last {
				f.woken = append(f.woken, job)
			}
		},
		Forget:       func(namespace, name string) { f.forgotten = append(f.forgotten, namespace+"/"+name) },
		RecordEvents: func(request.Request, []vcrecord.Event) {},
	})
	return f
}

// A job refused as invalid when added is judged again when it is updated:
// once valid it is cached and its request queued.
func TestInvalidJobIsAdmittedOnceFixed(t *testing.T) {
	f := newFixture()
	invalid := newJob(t)
	invalid.Spec.MinAvailable = -1
	f.h.Jobs().OnAdd(invalid, false)
	if f.jobs.Has("ns/demo") || testutil.ToFloat64(f.m.InvalidJobs) != 1 {
		t.Fatalf("an invalid job was cached (or not counted: %v)", testutil.ToFloat64(f.m.InvalidJobs))
	}
	if n := len(f.queued); n != 0 {
		t.Fatalf("an invalid job queued %d requests", n)
	}
	fixed := newJob(t)
	fixed.ResourceVersion = "2"
	f.h.Jobs().OnUpdate(invalid, fixed)
	if !f.jobs.Has("ns/demo") {
		t.Fatal("the fixed job was not cached")
	}
	if len(f.queued) != 1 || f.queued[0].JobName != "demo" {
		t.Errorf("queued %+v, want the job's request", f.queued)
	}
	f.h.Jobs().OnDelete(fixed)
	if len(f.forgotten) != 1 || f.forgotten[0] != "ns/demo" {
		t.Errorf("forgotten %v, want the deleted job", f.forgotten)
	}
}

func TestCommandIsDeletedThenQueued(t *testing.T) {
	f := newFixture()
	if _, _, err := f.jobs.OnJobAdd(newJob(t)); err != nil {
		t.Fatal(err)
	}
	cmd := &vcjob.Command{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "abort-demo", UID: "cmd-uid"},
		Action:       string(vcjob.AbortJobAction),
		TargetObject: &metav1.OwnerReference{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind, Name: "demo", UID: "job-uid"}}
	if err := f.vc.Tracker().Add(cmd.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	if err := f.cmds.Add(cmd); err != nil {
		t.Fatal(err)
	}

	if err := f.h.TakeCommand(context.Background(), "ns/abort-demo"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.vc.Commands("ns").Get(context.Background(), "abort-demo", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("command not deleted: %v", err)
	}
	if len(f.queued) != 1 {
		t.Fatalf("queued %+v, want the command's request", f.queued)
	}
	if r := f.queued[0]; r.Action != vcjob.AbortJobAction || r.Event != vcjob.CommandIssuedEvent || r.JobName != "demo" {
		t.Errorf("queued %+v, want the command's AbortJob", r)
	}
	// Taken by someone else already: nothing is queued, no error.
	if err := f.h.TakeCommand(context.Background(), "ns/abort-demo"); err != nil {
		t.Errorf("second take: %v", err)
	}
	if len(f.queued) != 1 {
		t.Errorf("queued %d requests, want still 1", len(f.queued))
	}
}

// The add event of the last pod created for a job wakes the job; the add
// of a pod nobody expects wakes nothing.
func TestPodAddObservesTheCreation(t *testing.T) {
	f := newFixture()
	job := newJob(t)
	p0 := statemachine.RenderPod(job, &job.Spec.Tasks[0], 0)
	p1 := statemachine.RenderPod(job, &job.Spec.Tasks[0], 1)
	f.expectations.ExpectPodCreation("ns/"+p0.Name, "ns/demo")
	f.h.Pods().OnAdd(p1, false)
	if len(f.woken) != 0 {
		t.Fatalf("woken %v by a pod not expected", f.woken)
	}
	f.h.Pods().OnAdd(p0, false)
	if len(f.woken) != 1 || f.woken[0] != "ns/demo" {
		t.Errorf("woken %v, want the job", f.woken)
	}
}
