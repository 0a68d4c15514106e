package controller

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

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

// TestEventsPosted: with Config.Events the controller records, on the
// job, the Events of its steps (a failed create, the retry limit) and of
// the commands it takes, as Volcano's controller does.
func TestEventsPosted(t *testing.T) {
	rec := kuberecord.NewFakeRecorder(100)
	job := newJob(t, vcjob.Pending)
	f := newFixtureWith(t, job, func(c *Config) { c.Events = rec })
	f.putPodGroup(job, podgroup.PhaseInqueue)
	f.kube.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewInternalError(errors.New("etcd is down"))
	})
	f.c.enqueue(request(vcjob.OutOfSyncEvent))
	f.drain(300 * time.Millisecond)
	events := drainEvents(rec)
	if len(events) != 4 {
		t.Fatalf("events %q, want a FailedCreate per try (3) and the retry limit's", events)
	}
	for _, e := range events[:3] {
		if !strings.HasPrefix(e, "Warning FailedCreate Error creating pods: [failed to create pod demo-worker-0, err: &errors.StatusError{ErrStatus:v1.Status{") {
			t.Errorf("event %q, want Volcano's FailedCreate", e)
		}
	}
	// The give-up's TerminateJob deletes no pod (none was created).
	if want := "Normal ExecuteAction Job failed on action SyncJob for retry limit reached"; events[3] != want {
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
	if err := f.c.takeCommand(context.Background(), "ns/resume-demo"); err != nil {
		t.Fatal(err)
	}
	want := []string{"Normal CommandIssued Start to execute command ResumeJob, and clean it up to make sure executed not more than once."}
	if got := drainEvents(rec); len(got) != 1 || got[0] != want[0] {
		t.Errorf("events %q, want %q", got, want)
	}
}
