package perturb_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
	"github.com/vcjob/vcjob/vcjobtest/perturb"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func testJob() *vcjob.Job { return testJobOn(vcjob.RestartJobAction) }

// testJobOn is a gang of two whose pod failure takes action.
func testJobOn(action vcjob.Action) *vcjob.Job {
	job := &vcjob.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "j"},
		Spec: vcjob.JobSpec{MinAvailable: 2, MaxRetry: 3,
			Policies: []vcjob.LifecyclePolicy{{Event: vcjob.PodFailedEvent, Action: action}},
			Tasks: []vcjob.TaskSpec{{Name: "worker", Replicas: 2, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "main", Image: "busybox"}}}}}}},
	}
	vcjob.SetDefaults(job)
	return job
}

// world is a memcluster watched as the harness wants it.
func world() *memcluster.Cluster {
	c := memcluster.New(metav1.NewTime(t0))
	c.Watch, c.GracefulDelete = true, true
	return c
}

// play runs a small life on c under run: created, admitted, started, a
// pod fails (RestartJob), the pods go, admitted again, then the drain.
// broken, when set, wraps the Applier the controller's step acts
// through, as a bug in a controller would.
func play(t *testing.T, c *memcluster.Cluster, run *perturb.Run, broken func(statemachine.Applier) statemachine.Applier) perturb.Final {
	return playOn(t, c, run, broken, vcjob.RestartJobAction)
}

func playOn(t *testing.T, c *memcluster.Cluster, run *perturb.Run, broken func(statemachine.Applier) statemachine.Applier, action vcjob.Action) perturb.Final {
	t.Helper()
	job := c.PutJob(testJobOn(action))
	var w perturb.World = c
	if action == vcjob.AbortJobAction {
		w = sticky{c} // a world that keeps the job Aborting (TestPlantedBugsAreCaught)
	}
	ctl := perturb.NewController(run, w, c, job.Namespace, job.Name, behavior.Set{}, nil)
	if broken != nil {
		ctl.Step.Cluster.Applier = broken(ctl.Step.Cluster.Applier)
	}
	now := t0
	settle := func() {
		t.Helper()
		if err := ctl.Settle(now); err != nil {
			t.Fatal(err)
		}
	}
	settle()
	admit := func() {
		c.SetPodGroupPhase("ns", podgroup.Name(job), podgroup.PhaseInqueue)
		settle()
	}
	admit()
	for _, p := range c.Pods("ns", "j") {
		p.Status.Phase, p.Spec.NodeName = corev1.PodRunning, "node-0"
		c.PutPod(p)
	}
	settle()
	if p := c.Pod("ns", "j-worker-0"); p != nil {
		p.Status.Phase = corev1.PodFailed
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1}}}}
		c.PutPod(p)
	}
	settle()
	c.FinishTerminating()
	settle()
	if c.PodGroup(c.StoredJob("ns", "j")).Exists {
		admit()
	}
	if _, err := ctl.Drain(now, func() { c.FinishTerminating() }, func(t time.Time) { c.Now = metav1.NewTime(t) }); err != nil {
		t.Fatal(err)
	}
	return perturb.FinalOf(c, "ns", "j")
}

func TestUnperturbedRunKeepsEveryCheck(t *testing.T) {
	run := perturb.NewRun(perturb.Plan{Kind: perturb.None})
	final := play(t, world(), run, nil)
	if vs := run.Violations(); len(vs) > 0 {
		t.Fatalf("violations: %v", vs)
	}
	if final.Phase != vcjob.Pending || final.RetryCount != 1 {
		t.Fatalf("ends %s, want Pending retryCount 1 (restarted, admitted, pods not running yet)", final)
	}
	c := run.Counts()
	if c.Calls == 0 || c.Steps == 0 || len(c.Skippable) == 0 {
		t.Fatalf("nothing to perturb: %+v", c)
	}
	if n := len(perturb.Plans(c)); n != c.Calls+perturb.MaxLag*c.Steps+len(c.Skippable) {
		t.Fatalf("%d plans for %+v", n, c)
	}
}

// duplicating creates every pod twice: the second under another name with
// the same task, index and version, as a controller that lost track of
// its pods would.
type duplicating struct{ statemachine.Applier }

func (d duplicating) CreatePod(ctx context.Context, pod *corev1.Pod) error {
	if err := d.Applier.CreatePod(ctx, pod); err != nil {
		return err
	}
	dup := pod.DeepCopy()
	dup.Name += "-dup"
	return d.Applier.CreatePod(ctx, dup)
}

// forgetful writes the retry count back to 0 once it has written one, as
// a controller that built the status from scratch would.
type forgetful struct {
	statemachine.Applier
	raised bool
}

func (f *forgetful) UpdateStatus(ctx context.Context, job *vcjob.Job, status *vcjob.JobStatus) error {
	if !f.raised {
		f.raised = status.RetryCount > 0
		return f.Applier.UpdateStatus(ctx, job, status)
	}
	st := status.DeepCopy()
	st.RetryCount = 0
	return f.Applier.UpdateStatus(ctx, job, st)
}

// sticky reports a status write that leaves Aborting done and makes
// none, as a controller writing to a stale copy would: the job waits in
// Aborting with nothing left to abort.
type sticky struct {
	*memcluster.Cluster
}

func (s sticky) UpdateStatus(ctx context.Context, job *vcjob.Job, status *vcjob.JobStatus) error {
	if stored := s.StoredJob(job.Namespace, job.Name); stored != nil && stored.Status.State.Phase == vcjob.Aborting && status.State.Phase != vcjob.Aborting {
		return nil
	}
	return s.Cluster.UpdateStatus(ctx, job, status)
}

// The harness catches planted bugs: each check fails on the controller
// built to break it.
func TestPlantedBugsAreCaught(t *testing.T) {
	for _, tc := range []struct {
		name   string
		broken func(statemachine.Applier) statemachine.Applier
		action vcjob.Action
		want   perturb.Check
	}{
		{"duplicate pod", func(a statemachine.Applier) statemachine.Applier { return duplicating{a} }, vcjob.RestartJobAction, perturb.UniqueIndex},
		{"retry count lowered", func(a statemachine.Applier) statemachine.Applier { return &forgetful{Applier: a} }, vcjob.RestartJobAction, perturb.Monotonic},
		{"left Aborting", nil, vcjob.AbortJobAction, perturb.Live},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := perturb.NewRun(perturb.Plan{Kind: perturb.None})
			playOn(t, world(), run, tc.broken, tc.action)
			for _, v := range run.Violations() {
				if v.Check == tc.want {
					return
				}
			}
			t.Fatalf("%s not caught; violations: %v", tc.want, run.Violations())
		})
	}
}

// Every crash point of the small life is played, and the new controller
// takes over from the cluster: no run breaks a check but convergence,
// and some crash changes the end (the restart's status write lost),
// which Compare reports.
func TestCrashEveryCall(t *testing.T) {
	base := perturb.NewRun(perturb.Plan{Kind: perturb.None})
	want := play(t, world(), base, nil)
	diverged := 0
	for _, plan := range perturb.Plans(base.Counts()) {
		if plan.Kind != perturb.Crash {
			continue
		}
		run := perturb.NewRun(plan)
		got := play(t, world(), run, nil)
		if run.Crashes != 1 || !strings.HasPrefix(run.Point, "after ") {
			t.Fatalf("%s: crashes %d at %q", plan, run.Crashes, run.Point)
		}
		run.Compare(got, want)
		for _, v := range run.Violations() {
			if v.Check != perturb.Converges {
				t.Errorf("%s: %v", plan, v)
			} else {
				diverged++
			}
		}
	}
	if diverged == 0 {
		t.Fatal("no crash point changes the end: the crash is not played")
	}
}

func podChange(typ memcluster.ChangeType, old, new corev1.PodPhase) perturb.Change {
	mk := func(ph corev1.PodPhase, rv string) *corev1.Pod {
		if ph == "" {
			return nil
		}
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", ResourceVersion: rv}, Status: corev1.PodStatus{Phase: ph}}
	}
	return perturb.Change{Type: typ, OldPod: mk(old, "1"), NewPod: mk(new, "2")}
}

func pgChange(old, new podgroup.Phase) perturb.Change {
	return perturb.Change{Type: memcluster.Modified, PodGroupNamespace: "ns", PodGroupJob: "j", OldPhase: old, NewPhase: new}
}

// Deliver: what reaches the cache under each plan.
func TestDeliver(t *testing.T) {
	changes := []perturb.Change{
		podChange(memcluster.Added, "", corev1.PodPending),                   // 0
		pgChange("", podgroup.PhaseInqueue),                                  // 1
		podChange(memcluster.Modified, corev1.PodPending, corev1.PodRunning), // 2
		podChange(memcluster.Modified, corev1.PodRunning, corev1.PodFailed),  // 3
	}
	for _, tc := range []struct {
		name string
		plan perturb.Plan
		// want are the changes delivered, each as Describe says it.
		want []string
		held int
	}{
		{"none", perturb.Plan{Kind: perturb.None}, []string{
			"pod p (none) -> Pending", "podgroup of j (no phase) -> Inqueue", "pod p Pending -> Running", "pod p Running -> Failed"}, 0},
		{"running never seen", perturb.Plan{Kind: perturb.Unobserved, At: 2}, []string{
			"pod p (none) -> Pending", "podgroup of j (no phase) -> Inqueue", "pod p Pending -> Failed"}, 0},
		{"pending never seen: the pod is new when first seen", perturb.Plan{Kind: perturb.Unobserved, At: 0}, []string{
			"podgroup of j (no phase) -> Inqueue", "pod p (none) -> Running", "pod p Running -> Failed"}, 0},
		{"step 0 lags 2", perturb.Plan{Kind: perturb.Stale, At: 0, Lag: 2}, []string{
			"pod p (none) -> Pending", "podgroup of j (no phase) -> Inqueue"}, 2},
		{"step 1 lags 2: not this delivery", perturb.Plan{Kind: perturb.Stale, At: 1, Lag: 2}, []string{
			"pod p (none) -> Pending", "podgroup of j (no phase) -> Inqueue", "pod p Pending -> Running", "pod p Running -> Failed"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := perturb.NewRun(tc.plan)
			var got []string
			for _, ch := range run.Deliver(changes) {
				got = append(got, perturb.Describe(ch))
			}
			if strings.Join(got, "; ") != strings.Join(tc.want, "; ") {
				t.Fatalf("delivered %q, want %q", got, tc.want)
			}
			run.Stepped()
			if run.Plan.Kind == perturb.Stale && run.Plan.At == 0 && run.Lagged != tc.held {
				t.Fatalf("lagged %d, want %d", run.Lagged, tc.held)
			}
			// What was held back comes with the next delivery.
			if n := len(run.Deliver(nil)); n != tc.held {
				t.Fatalf("%d delivered after the step, want %d", n, tc.held)
			}
		})
	}
}

// A PodGroup phase change lost and undone before the relist shows
// nothing at all.
func TestDeliverDropsAChangeUndone(t *testing.T) {
	run := perturb.NewRun(perturb.Plan{Kind: perturb.Unobserved, At: 0})
	got := run.Deliver([]perturb.Change{pgChange(podgroup.PhaseInqueue, podgroup.PhaseRunning), pgChange(podgroup.PhaseRunning, podgroup.PhaseInqueue)})
	if len(got) != 0 || len(run.Flush()) != 0 {
		t.Fatalf("delivered %v", got)
	}
}

func TestStuck(t *testing.T) {
	for _, tc := range []struct {
		name  string
		phase vcjob.JobPhase
		pg    podgroup.Phase
		pods  bool
		want  bool
	}{
		{"Terminating with nothing to wait for", vcjob.Terminating, podgroup.PhaseRunning, false, true},
		{"Restarting waits for the scheduler", vcjob.Restarting, podgroup.PhasePending, false, false},
		{"Restarting admitted and no pod", vcjob.Restarting, podgroup.PhaseInqueue, false, true},
		{"Pending admitted and no pod", vcjob.Pending, podgroup.PhaseInqueue, false, true},
		{"Running with pods", vcjob.Running, podgroup.PhaseRunning, true, false},
		{"Completed", vcjob.Completed, "", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := world()
			job := c.PutJob(testJob())
			if err := c.UpdateStatus(context.Background(), job.DeepCopy(), &vcjob.JobStatus{State: vcjob.JobState{Phase: tc.phase}}); err != nil {
				t.Fatal(err)
			}
			if tc.pg != "" {
				c.SetPodGroupPhase("ns", podgroup.Name(job), tc.pg)
			}
			if tc.pods {
				c.PutPod(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "j-worker-0",
					Annotations: map[string]string{vcjob.JobNameKey: "j"}}})
			}
			if got := perturb.Stuck(c, "ns", "j") != ""; got != tc.want {
				t.Fatalf("stuck %v (%q), want %v", got, perturb.Stuck(c, "ns", "j"), tc.want)
			}
		})
	}
}
