package memcluster

import (
	"context"
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob/statemachine"
)

// Nil objects are refused or ignored, never a panic.
func TestNilObjects(t *testing.T) {
	c := New(metav1.NewTime(time.Unix(0, 0)))
	c.PutPodGroup(nil)
	// A deleted job's PodGroup, looked up with the nil StoredJob gives.
	if pg := c.PodGroup(c.StoredJob("default", "gone")); pg.Exists {
		t.Errorf("PodGroup(nil) = %+v, want none", pg)
	}
	if err := c.UpdateJob(context.Background(), nil); !errors.Is(err, statemachine.ErrNoJob) {
		t.Errorf("UpdateJob(nil) = %v, want ErrNoJob", err)
	}
}
