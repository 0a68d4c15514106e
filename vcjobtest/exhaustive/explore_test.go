package exhaustive_test

import (
	"fmt"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/vcjobtest/exhaustive"
)

func task(name string, replicas int32, policies ...vcjob.LifecyclePolicy) vcjob.TaskSpec {
	return vcjob.TaskSpec{Name: name, Replicas: replicas, Policies: policies,
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "main", Image: "busybox"}}}}}
}

func on(e vcjob.Event, a vcjob.Action) vcjob.LifecyclePolicy {
	return vcjob.LifecyclePolicy{Event: e, Action: a}
}

func onCode(code int32, a vcjob.Action) vcjob.LifecyclePolicy {
	return vcjob.LifecyclePolicy{ExitCode: &code, Action: a}
}

func after(p vcjob.LifecyclePolicy, d time.Duration) vcjob.LifecyclePolicy {
	p.Timeout = &metav1.Duration{Duration: d}
	return p
}

func i32(v int32) *int32 { return &v }

// The jobs explored. Between them: a policy of every action, exit codes,
// delays (PodPending and PodEvicted timeouts), a partitioned task,
// dependsOn with both iterations, minSuccess below the replicas, and
// TaskFailed from in-place restarts.
type exploreCase struct {
	name string
	job  *vcjob.Job
	opts exhaustive.Options
}

func exploreCases() []exploreCase {
	job := func(name string, maxRetry int32, tasks []vcjob.TaskSpec, policies ...vcjob.LifecyclePolicy) *vcjob.Job {
		return &vcjob.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"},
			Spec: vcjob.JobSpec{MaxRetry: maxRetry, Tasks: tasks, Policies: policies}}
	}
	elastic := job("elastic", 2, []vcjob.TaskSpec{task("worker", 2, on(vcjob.TaskFailedEvent, vcjob.RestartTaskAction))},
		on(vcjob.TaskCompletedEvent, vcjob.CompleteJobAction))
	elastic.Spec.Tasks[0].MinAvailable = i32(1)
	elastic.Spec.Tasks[0].MaxRetry = 1
	elastic.Spec.MinSuccess = i32(1)

	partitioned := job("parted", 1, []vcjob.TaskSpec{
		task("worker", 2, on(vcjob.PodFailedEvent, vcjob.RestartPartitionAction)),
		task("ps", 1, on(vcjob.PodFailedEvent, vcjob.AbortJobAction)),
	})
	partitioned.Spec.Tasks[0].PartitionPolicy = &vcjob.PartitionPolicySpec{TotalPartitions: 2, PartitionSize: 1}

	staged := job("staged", 1, []vcjob.TaskSpec{
		task("prep", 1),
		task("train", 1),
		task("report", 1, on(vcjob.TaskCompletedEvent, vcjob.CompleteJobAction)),
	}, on(vcjob.PodFailedEvent, vcjob.RestartJobAction))
	staged.Spec.Tasks[1].DependsOn = &vcjob.DependsOn{Name: []string{"prep"}}
	staged.Spec.Tasks[2].DependsOn = &vcjob.DependsOn{Name: []string{"prep", "train"}, Iteration: vcjob.IterationAny}

	// PodGroup Unknown acts as Running (both admit pods, and both phase
	// changes raise requests that only sync) unless a policy names
	// Unknown or "*"; only the gang job does, so only it explores Unknown.
	twoPhases := []podgroup.Phase{podgroup.PhasePending, podgroup.PhaseRunning}
	return []exploreCase{
		{
			name: "restarts",
			job: job("restarts", 2, []vcjob.TaskSpec{task("worker", 2,
				onCode(137, vcjob.RestartPodAction),
				on(vcjob.PodEvictedEvent, vcjob.RestartTaskAction),
			)}, on(vcjob.PodFailedEvent, vcjob.RestartJobAction), on(vcjob.TaskCompletedEvent, vcjob.CompleteJobAction)),
			opts: exhaustive.Options{PodGroupPhases: twoPhases},
		},
		{
			name: "gang-with-timeouts",
			job: job("gang", 2, []vcjob.TaskSpec{
				task("master", 1, on(vcjob.TaskCompletedEvent, vcjob.CompleteJobAction), on(vcjob.PodFailedEvent, vcjob.TerminateJobAction)),
				task("worker", 1, after(on(vcjob.PodPendingEvent, vcjob.AbortJobAction), 5*time.Minute), after(on(vcjob.PodEvictedEvent, vcjob.RestartJobAction), time.Minute)),
			}, on(vcjob.JobUnknownEvent, vcjob.ResumeJobAction)),
			// Two timeouts on one pod orphan each other's delayed actions,
			// which pile up without bound: explore up to two at once.
			opts: exhaustive.Options{MaxDelayed: 2, PodGroupPhases: []podgroup.Phase{podgroup.PhasePending, podgroup.PhaseRunning, podgroup.PhaseUnknown}},
		},
		{name: "partitioned", job: partitioned, opts: exhaustive.Options{PodGroupPhases: twoPhases}},
		{name: "elastic-task-failed", job: elastic, opts: exhaustive.Options{ContainerRestarts: true, PodGroupPhases: twoPhases}},
		{name: "staged-depends-on", job: staged, opts: exhaustive.Options{PodGroupPhases: twoPhases}},
	}
}

// TestExplore explores each job and asserts: no processing step breaks an
// invariant (rapidgen.CheckStep and CheckEffects: Failed only through
// maxRetry or the completion rules, no kill outside its target, ...), and
// every state can reach a terminal phase. Across the jobs, every policy
// action must have fired and every way into a terminal phase must have
// been taken, so the search is known not to be vacuous.
//
// The full run takes about a minute of CPU with -race; -short explores the
// first job only.
func TestExplore(t *testing.T) {
	// The search allocates many short-lived objects; collecting less
	// often saves about a third of the time.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	verify := 20
	if testing.Short() {
		verify = 0
	}
	states, transitions := 0, 0
	moves, fired := map[string]int{}, map[vcjob.Action]int{}
	start := time.Now()
	for i, tc := range exploreCases() {
		if testing.Short() && i > 0 {
			break
		}
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			opts.VerifyEvery = verify
			began := time.Now()
			res, err := exhaustive.Explore(tc.job, opts)
			if err != nil {
				t.Fatal(err)
			}
			states += res.States
			transitions += res.Transitions
			for k, n := range res.Moves {
				moves[k] += n
			}
			for k, n := range res.Fired {
				fired[k] += n
			}
			t.Logf("%d states, %d transitions, %d steps, depth %d, %d verified, %d cut, %s; command-only %d; by phase %s",
				res.States, res.Transitions, res.Steps, res.Depth, res.Verified, res.Cut, time.Since(began).Round(time.Millisecond), res.CommandOnly, phases(res.ByPhase))
			if err := res.Err(); err != nil {
				t.Fatal(err)
			}
			if verify > 0 && res.Verified == 0 {
				t.Error("nothing was verified")
			}
			if res.Cut > 0 && opts.MaxDelayed == 0 {
				t.Errorf("%d transitions cut by the default bound on delayed actions", res.Cut)
			}
			if res.Moves["Running->Restarting"] == 0 {
				t.Error("the job never restarted")
			}
		})
	}
	t.Logf("%d states, %d transitions in all, %s", states, transitions, time.Since(start).Round(time.Millisecond))
	if testing.Short() {
		return
	}
	for _, a := range vcjob.PolicyActions() {
		if fired[a] == 0 {
			t.Errorf("no policy ever fired %s", a)
		}
	}
	for _, m := range []string{
		"Restarting->Failed", "Running->Failed", "Running->Completed", "Completing->Completed",
		"Aborting->Aborted", "Terminating->Terminated", "Aborted->Restarting", "Restarting->Pending",
	} {
		if moves[m] == 0 {
			t.Errorf("no step moved %s", m)
		}
	}
}

func phases(m map[vcjob.JobPhase]int) string {
	var parts []string
	for _, p := range vcjob.Phases() {
		if m[p] > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", p, m[p]))
		}
	}
	return strings.Join(parts, " ")
}

// TestExploreReportsViolations: a check that fails shows up as a
// violation with the events that lead to it, and Err reports it.
func TestExploreReportsViolations(t *testing.T) {
	job := exploreCases()[0].job
	res, err := exhaustive.Explore(job, exhaustive.Options{
		PodGroupPhases: []podgroup.Phase{podgroup.PhaseRunning},
		Commands:       []vcjob.Action{vcjob.AbortJobAction},
		Check: func(s exhaustive.Step) error {
			if s.Record.PhaseAfter == vcjob.Aborting {
				return fmt.Errorf("aborting is forbidden here")
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.ViolationCount == 0 || res.Err() == nil {
		t.Fatal("the failing check was not reported")
	}
	v := res.Violations[0]
	if v.Path[0] != "create" || v.Path[len(v.Path)-1] != "command AbortJob" || !strings.Contains(v.Error(), "aborting is forbidden here") {
		t.Fatalf("violation %v", v)
	}
}

// TestExploreReportsStuckStates: with a PodGroup the scheduler never
// admits and no commands, the job can never finish.
func TestExploreReportsStuckStates(t *testing.T) {
	res, err := exhaustive.Explore(exploreCases()[0].job, exhaustive.Options{
		NoCommands: true, PodGroupPhases: []podgroup.Phase{podgroup.PhasePending},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.StuckCount == 0 || res.StuckCount != res.States {
		t.Fatalf("%d of %d states stuck, want all", res.StuckCount, res.States)
	}
	if err := res.Err(); err == nil || !strings.Contains(err.Error(), "no terminal phase is reachable") {
		t.Fatalf("Err: %v", err)
	}
}

func TestExploreRefuses(t *testing.T) {
	valid := exploreCases()[0].job
	invalid := valid.DeepCopy()
	invalid.Spec.Tasks[0].Name = "Not_A_Name"
	withVolume := valid.DeepCopy()
	withVolume.Spec.Volumes = []vcjob.VolumeSpec{{MountPath: "/data", VolumeClaimName: "data"}}
	for name, tc := range map[string]struct {
		job  *vcjob.Job
		opts exhaustive.Options
		want string
	}{
		"nil job":     {nil, exhaustive.Options{}, "no job"},
		"invalid job": {invalid, exhaustive.Options{}, "invalid job"},
		"volumes":     {withVolume, exhaustive.Options{}, "volumes"},
		"too many":    {valid, exhaustive.Options{MaxStates: 10}, "more than 10 states"},
	} {
		if _, err := exhaustive.Explore(tc.job, tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", name, err, tc.want)
		}
	}
}
