package memcluster_test

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/statemachine/memcluster"
)

// A status or spec write of a job read at an older resourceVersion is a
// Conflict, as on an API server: without it a step deciding on a stale
// cache lowered the retry count another step had written (found by
// package perturb's Stale runs).
func TestStaleWriteConflicts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		watch bool
		stale bool
		// rv is the version the caller's copy names, when it names its
		// own (a test that plays the API server's versions itself).
		rv   string
		want bool
	}{
		{"current version", true, false, "", false},
		{"stale version", true, true, "", true},
		{"another version", true, false, "99", true},
		{"no versions kept", false, true, "", false},
		{"no versions kept: the caller's own version", false, false, "99", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := memcluster.New(metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
			c.Watch = tc.watch
			job := c.PutJob(&vcjob.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "j"}})
			read := job.DeepCopy()
			if tc.rv != "" {
				read.ResourceVersion = tc.rv
			}
			if tc.stale {
				// Another writer moves the job on after read was taken.
				if err := c.UpdateStatus(context.Background(), job.DeepCopy(), &vcjob.JobStatus{RetryCount: 1}); err != nil {
					t.Fatal(err)
				}
			}
			// The write leaves r holding what was stored, as a client does.
			r := read.DeepCopy()
			err := c.UpdateStatus(context.Background(), r, &vcjob.JobStatus{RetryCount: 1})
			if got := apierrors.IsConflict(err); got != tc.want {
				t.Fatalf("UpdateStatus: conflict %v, want %v (err %v)", got, tc.want, err)
			}
			err = c.UpdateJob(context.Background(), r)
			if got := apierrors.IsConflict(err); got != tc.want {
				t.Fatalf("UpdateJob: conflict %v, want %v (err %v)", got, tc.want, err)
			}
			before := int32(0)
			if tc.stale {
				before = 1
			}
			if tc.want && c.StoredJob("ns", "j").Status.RetryCount != before {
				t.Fatalf("a refused write changed the job: %+v", c.StoredJob("ns", "j").Status)
			}
		})
	}
}
