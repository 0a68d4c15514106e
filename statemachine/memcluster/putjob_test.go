package memcluster_test

import (
	"context"
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/jobinfo"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
)

// PutJob stores a manifest's job as an API server stores it.
func TestPutJobStoresAsAnAPIServer(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	c := memcluster.New(now)
	manifest := &vcjob.Job{ObjectMeta: metav1.ObjectMeta{Name: "train"}}

	stored := c.PutJob(manifest)
	if stored.Namespace != "default" || stored.UID != "uid-train" || !stored.CreationTimestamp.Equal(&now) {
		t.Errorf("stored %s/%s uid %q created %v, want default/train uid-train at %v", stored.Namespace, stored.Name, stored.UID, stored.CreationTimestamp, now)
	}
	if manifest.Namespace != "" || manifest.UID != "" {
		t.Error("PutJob changed the caller's job")
	}
	if got := c.Job("default", "train"); got == nil || got.UID != stored.UID {
		t.Errorf("the cluster holds %v", got)
	}

	// An update keeps the UID and the creation time.
	c.Now = metav1.NewTime(now.Add(time.Hour))
	updated := c.PutJob(&vcjob.Job{ObjectMeta: metav1.ObjectMeta{Name: "train"}, Spec: vcjob.JobSpec{Queue: "q"}})
	if updated.UID != "uid-train" || !updated.CreationTimestamp.Equal(&now) {
		t.Errorf("update: uid %q created %v", updated.UID, updated.CreationTimestamp)
	}

	// A job re-created under its name is another job.
	c.RemoveJob("default", "train")
	again := c.PutJob(manifest)
	if again.UID == "uid-train" || again.UID == "" {
		t.Errorf("re-created job has uid %q, want a new one", again.UID)
	}

	// generateName gets a name; a namespace given is kept.
	gen := c.PutJob(&vcjob.Job{ObjectMeta: metav1.ObjectMeta{GenerateName: "mnist-", Namespace: "ml"}})
	if gen.Namespace != "ml" || len(gen.Name) <= len("mnist-") || gen.Name[:6] != "mnist-" {
		t.Errorf("generateName: %s/%s", gen.Namespace, gen.Name)
	}
}

// A job no API server stored (no namespace or UID) is refused by every
// call, with an error that says so, rather than written with empty names.
func TestUnstoredJobIsRefused(t *testing.T) {
	c := memcluster.New(metav1.Now())
	ji, err := jobinfo.New(&vcjob.Job{ObjectMeta: metav1.ObjectMeta{Name: "train"},
		Spec: vcjob.JobSpec{Tasks: []vcjob.TaskSpec{{Name: "w", Replicas: 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = statemachine.Execute(context.Background(), c, ji, vcjob.SyncJobAction, request.Target{})
	if !errors.Is(err, statemachine.ErrNotStored) {
		t.Fatalf("err %v, want ErrNotStored", err)
	}
	if len(c.Journal.Created) != 0 || c.Journal.StatusWrites != 0 {
		t.Errorf("something was written: %+v", c.Journal)
	}
}
