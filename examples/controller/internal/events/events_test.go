package events

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kuberecord "k8s.io/client-go/tools/record"

	"github.com/vcjob/vcjob"
	vcrecord "github.com/vcjob/vcjob/record"

	"github.com/vcjob/vcjob/examples/controller/pkg/metrics"
)

// Record hands every Event to client-go's recorder on the object, in
// order, and counts them; a nil Recorder (events off) does nothing.
func TestRecord(t *testing.T) {
	fake := kuberecord.NewFakeRecorder(10)
	m := metrics.New()
	r := For(fake, m, "cronjob")
	cj := &vcjob.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "nightly"}}
	r.Record(cj, []vcrecord.Event{
		vcrecord.Normalf("SuccessfulCreate", "Created job %s for CronJob %s", "nightly-1", "ml/nightly"),
		vcrecord.Warningf("ForbidConcurrent", "Skipping job creation because another job is already running"),
	})
	close(fake.Events)
	var got []string
	for e := range fake.Events {
		got = append(got, e)
	}
	want := []string{"Normal SuccessfulCreate Created job nightly-1 for CronJob ml/nightly",
		"Warning ForbidConcurrent Skipping job creation because another job is already running"}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("events %q, want %q", got, want)
	}
	if n := testutil.ToFloat64(m.Events.WithLabelValues("cronjob", "Warning", "ForbidConcurrent")); n != 1 {
		t.Errorf("counted %v", n)
	}

	var off *Recorder = For(nil, m, "job")
	off.Record(cj, []vcrecord.Event{vcrecord.Normalf("R", "m")})
}
