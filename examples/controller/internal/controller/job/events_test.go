package job

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	kuberecord "k8s.io/client-go/tools/record"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
)

// drainEvents reads what the fake recorder holds.
func drainEvents(r *kuberecord.FakeRecorder) []string {
	var out []string
	for {
		select {
		case e := <-r.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// The controller records, on the job, the Events of its steps (a failed
// create on each try, then the retry limit's) and of the Commands it
// takes, as Volcano's job controller does.
func TestEventsRecorded(t *testing.T) {
	rec := kuberecord.NewFakeRecorder(100)
	rec.IncludeObject = true
	job := newJob(t, vcjob.Pending)
	f := newFixtureWith(t, job, func(c *Config) { c.Events = rec })
	if err := f.c.jobStore.Add(job.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	f.putPodGroup(job, podgroup.PhaseInqueue)
	f.kube.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewInternalError(errors.New("etcd is down"))
	})
	f.c.enqueue(demoRequest(vcjob.OutOfSyncEvent))
	f.drain()
	events := drainEvents(rec)
	if len(events) != 4 {
		t.Fatalf("events %q, want a FailedCreate per try (3) and the retry limit's", events)
	}
	// FakeRecorder with IncludeObject appends the involved object.
	const on = " involvedObject{kind=Job,apiVersion=batch.volcano.sh/v1alpha1}"
	for _, e := range events[:3] {
		if !strings.HasPrefix(e, "Warning FailedCreate Error creating pods: [failed to create pod demo-worker-0, err: ") || !strings.HasSuffix(e, on) {
			t.Errorf("event %q, want Volcano's FailedCreate on the job", e)
		}
	}
	if want := "Normal ExecuteAction Job failed on action SyncJob for retry limit reached" + on; events[3] != want {
		t.Errorf("event %q, want %q", events[3], want)
	}

	cmd := &vcjob.Command{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "resume-demo", UID: "cmd-uid"},
		Action:       string(vcjob.ResumeJobAction),
		TargetObject: &metav1.OwnerReference{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind, Name: "demo", UID: "job-uid"}}
	if err := f.vc.Tracker().Add(cmd.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	if err := f.c.cmdStore.Add(cmd); err != nil {
		t.Fatal(err)
	}
	if err := f.c.intake.TakeCommand(context.Background(), "ns/resume-demo"); err != nil {
		t.Fatal(err)
	}
	want := "Normal CommandIssued Start to execute command ResumeJob, and clean it up to make sure executed not more than once." + on
	if got := drainEvents(rec); len(got) != 1 || got[0] != want {
		t.Errorf("events %q, want %q", got, want)
	}
}

// An Event is about the job as the informer holds it (its UID and
// resourceVersion); once the informer has dropped it, a reference by name.
func TestEventObject(t *testing.T) {
	job := newJob(t, vcjob.Running)
	f := newFixture(t, job)
	req := demoRequest(vcjob.PodFailedEvent)
	ref, ok := f.c.eventObject(req).(*corev1.ObjectReference)
	if !ok || ref.Name != "demo" || ref.Namespace != "ns" || ref.UID != "job-uid" || ref.Kind != vcjob.JobKind || ref.APIVersion != vcjob.APIVersion {
		t.Errorf("without the informer's job: %#v, want a reference to ns/demo", f.c.eventObject(req))
	}
	if err := f.c.jobStore.Add(job); err != nil {
		t.Fatal(err)
	}
	if got := f.c.eventObject(req); got != job {
		t.Errorf("with the informer's job: %#v, want it", got)
	}
}

// No recorder, no Events and no work.
func TestNoRecorder(t *testing.T) {
	f := newFixture(t, newJob(t, vcjob.Running))
	f.c.recordEvents(demoRequest(vcjob.PodFailedEvent), nil)
	f.c.enqueue(demoRequest(vcjob.OutOfSyncEvent))
	f.drain()
}
