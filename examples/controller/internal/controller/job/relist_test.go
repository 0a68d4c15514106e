package job

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/podgroup"
)

// A job killed for a restart leaves Restarting on a sync that finds its
// PodGroup Inqueue: until then a sync recounts nothing and keeps the
// terminating count the kill wrote. The PodGroup's change to Inqueue is
// what raises that sync. When the watch loses the change and a relist
// shows the PodGroup as new, already Inqueue, Volcano's controller raises
// nothing and the job waits in Restarting for ever, with no pods and
// nothing queued (what one stress fault run ended in: the previous
// controller was killed right after the kill, and the next one created
// the PodGroup while the API server was going down). Under the
// podgroup-phase-on-add correction the add raises the sync instead.
// A new job in Pending waits for the same move, and is stuck the same way.
func TestJobGetsItsPodsWhenARelistShowsItsPodGroupInqueue(t *testing.T) {
	for _, phase := range []vcjob.JobPhase{vcjob.Restarting, vcjob.Pending} {
		for _, sem := range []behavior.Set{{}, behavior.Of(behavior.PodGroupPhaseOnAdd)} {
			t.Run(string(phase)+"/"+sem.String(), func(t *testing.T) { testRelistShowsPodGroupInqueue(t, phase, sem) })
		}
	}
}

func testRelistShowsPodGroupInqueue(t *testing.T, phase vcjob.JobPhase, sem behavior.Set) {
	job := newJob(t, phase)
	if phase == vcjob.Restarting {
		job.Status.Version, job.Status.RetryCount = 1, 1
		job.Status.Terminating = 2 // the pods the kill deleted
	}
	f := newFixtureWith(t, job, func(c *Config) { c.Behavior = sem })
	s := f.c.shards[0]
	ctx := context.Background()

	// The next controller's first sync: no PodGroup and no pods yet.
	s.handle(context.Background(), item{Req: demoRequest(vcjob.OutOfSyncEvent)})
	pg, err := f.vc.PodGroups("ns").Get(ctx, podgroup.Name(job), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the sync did not create the PodGroup: %v", err)
	}
	if got := f.storedJob().Status.State.Phase; got != phase {
		t.Fatalf("phase after the first sync = %s, want %s (no pods until the PodGroup is Inqueue)", got, phase)
	}

	pg.Status.Phase = podgroup.PhaseInqueue
	if err := f.c.pgStore.Add(pg); err != nil {
		t.Fatal(err)
	}
	f.c.intake.PodGroups().OnAdd(pg, true)
	if n := s.queue.Len(); n != 0 {
		t.Fatalf("an add in the informer's first list queued %d requests, want none (the job's own add syncs it)", n)
	}
	fresh := pg.DeepCopy()
	fresh.Status.Phase = ""
	f.c.intake.PodGroups().OnAdd(fresh, false)
	if n := s.queue.Len(); n != 0 {
		t.Fatalf("the add of a PodGroup with no phase queued %d requests, want none", n)
	}

	f.c.intake.PodGroups().OnAdd(pg, false)
	if sem.IsVolcano() {
		if n := s.queue.Len(); n != 0 {
			t.Fatalf("under Volcano's semantics the relist's add queued %d requests, want none", n)
		}
		f.drain()
		if got := f.storedJob().Status.State.Phase; got != phase {
			t.Errorf("phase = %s, want %s (nothing syncs the job)", got, phase)
		}
		if pods, _ := f.kube.CoreV1().Pods("ns").List(ctx, metav1.ListOptions{}); len(pods.Items) != 0 {
			t.Errorf("%d pods, want none", len(pods.Items))
		}
		return
	}
	if n := s.queue.Len(); n != 1 {
		t.Fatalf("the relist's add of an Inqueue PodGroup queued %d requests, want 1", n)
	}
	f.drain()
	pods, err := f.kube.CoreV1().Pods("ns").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 2 {
		t.Errorf("%d pods after the sync, want the job's 2", len(pods.Items))
	}
	if got := f.storedJob().Status.State.Phase; got != vcjob.Pending {
		t.Errorf("phase after the sync = %s, want Pending", got)
	}
	if got := testutil.ToFloat64(f.c.metrics.PodGroupsSeenLate); got != 1 {
		t.Errorf("%s = %v, want 1", "podgroups seen late", got)
	}
}
