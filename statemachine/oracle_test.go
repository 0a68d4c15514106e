package statemachine_test

import (
	"errors"
	"fmt"
	"reflect"
	"time"

	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/jobinfo"
	"github.com/vcjob/vcjob/plugins"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/vcjobtest/rapidgen"
)

// TestCountedPlansEqualTheWalk: on random jobs, pods (built up and changed
// pod by pod, so the job info's counts are incremental) and PodGroup
// states, the plans that read the kept counts decide exactly what the
// plans that walk every pod (PlanOptions.Recount, Volcano's way) decide:
// the same pods created, deleted and waiting, and, completed with any
// update rule and any set of failed pod operations, the same outcome. The
// targeted kills agree too.
func TestCountedPlansEqualTheWalk(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	registry := plugins.NewRegistry(plugins.WithSSHKeys(plugins.TestKeySource()))
	rules := []statemachine.UpdateRule{statemachine.UpdateRestart, statemachine.UpdatePendingSync, statemachine.UpdateRunningSync,
		statemachine.UpdateRestarting, statemachine.UpdateCompleted, statemachine.UpdateKeep}
	rapid.Check(t, func(t *rapid.T) {
		job := rapidgen.Job().Draw(t, "job")
		job.Status.State.Phase = rapid.SampledFrom([]vcjob.JobPhase{"", vcjob.Pending, vcjob.Running, vcjob.Restarting, vcjob.Completing}).Draw(t, "phase")
		ji := incremental(t, job)
		pg := statemachine.PodGroupState{
			Exists: rapid.IntRange(0, 5).Draw(t, "pgMissing") != 0,
			Phase:  rapid.SampledFrom([]podgroup.Phase{"", podgroup.PhasePending, podgroup.PhaseInqueue, podgroup.PhaseRunning, podgroup.PhaseUnknown}).Draw(t, "pgPhase"),
		}
		opts := statemachine.PlanOptions{}
		if rapid.Bool().Draw(t, "withPlugins") {
			ps, err := registry.Build(job)
			if err != nil {
				t.Skip("plugins refuse the job:", err)
			}
			opts.Plugins = ps
		}
		walkOpts := opts
		walkOpts.Recount = true

		counted := statemachine.PlanSyncWith(ji, pg, now, opts)
		walked := statemachine.PlanSyncWith(ji, pg, now, walkOpts)
		if d := planDiff(counted, walked); d != "" {
			t.Fatalf("SyncJob plans differ: %s", d)
		}
		for _, rule := range rules {
			failed := failures(t, counted, "sync."+string(rule))
			a := counted.Complete(failed, rule.Func(job), now)
			b := walked.Complete(failed, rule.Func(job), now)
			if d := outcomeDiff(a, b); d != "" {
				t.Fatalf("SyncJob outcome with %s and failures %v: %s", rule, failed, d)
			}
		}

		for _, target := range targets(t, job) {
			counted := statemachine.PlanKillTargetWith(ji, target, opts)
			walked := statemachine.PlanKillTargetWith(ji, target, walkOpts)
			if counted.Noop != walked.Noop || !reflect.DeepEqual(inOrder(counted.Delete), inOrder(walked.Delete)) {
				t.Fatalf("KillTarget %+v: counted noop %v deletes %v, walked noop %v deletes %v",
					target, counted.Noop, inOrder(counted.Delete), walked.Noop, inOrder(walked.Delete))
			}
			failed := failures(t, &statemachine.SyncPlan{Delete: counted.Delete}, "kill")
			a := counted.Complete(failed, statemachine.UpdateRestart.Func(job), now)
			b := walked.Complete(failed, statemachine.UpdateRestart.Func(job), now)
			if d := outcomeDiff(a, b); d != "" {
				t.Fatalf("KillTarget %+v outcome: %s", target, d)
			}
		}
	})
}

// incremental builds the job info pod by pod from rapidgen's pods, with
// some pods changed, dropped and put back on the way, so that the counts
// the plans read are the incremental ones, not a fresh count.
func incremental(t *rapid.T, job *vcjob.Job) *jobinfo.Info {
	pods := rapidgen.Pods(job).Draw(t, "pods")
	ji, err := jobinfo.New(job)
	if err != nil {
		t.Fatal(err)
	}
	var lease *jobinfo.Info
	for i, p := range pods {
		label := fmt.Sprint("pod", i)
		if rapid.IntRange(0, 3).Draw(t, label+".earlier") == 0 {
			// An earlier version of the pod: Pending, not yet bound.
			early := p.DeepCopy()
			early.Status = corev1.PodStatus{Phase: corev1.PodPending}
			early.DeletionTimestamp = nil
			must(t, ji.AddPod(early))
		}
		if rapid.IntRange(0, 5).Draw(t, label+".leased") == 0 {
			if lease != nil {
				lease.Release()
			}
			lease = ji.Lease()
		}
		must(t, ji.AddPod(p))
		if rapid.IntRange(0, 7).Draw(t, label+".gone") == 0 {
			ji.DeletePod(p)
		}
	}
	if lease != nil {
		lease.Release()
	}
	return ji.Clone()
}

func must(t *rapid.T, err error) {
	if err != nil {
		t.Fatal(err)
	}
}

// failures picks some of a plan's creates and deletes to fail.
func failures(t *rapid.T, p *statemachine.SyncPlan, label string) map[string]error {
	failed := map[string]error{}
	for _, pod := range append(append([]*corev1.Pod(nil), p.Create...), p.Delete...) {
		if rapid.IntRange(0, 9).Draw(t, label+".fail."+pod.Name) == 0 {
			failed[pod.Name] = errors.New("injected")
		}
	}
	return failed
}

// targets are the kill targets of every kind the job's requests can name.
func targets(t *rapid.T, job *vcjob.Job) []request.Target {
	var out []request.Target
	for _, req := range rapidgen.Requests(job).Draw(t, "requests") {
		for _, a := range []vcjob.Action{vcjob.RestartTaskAction, vcjob.RestartPodAction, vcjob.RestartPartitionAction} {
			if tg := request.TargetOf(a, req); tg.Level != vcjob.JobLevel {
				out = append(out, tg)
			}
		}
	}
	return out
}

// inOrder names pods in the order given.
func inOrder(pods []*corev1.Pod) []string {
	out := []string{}
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}

func planDiff(a, b *statemachine.SyncPlan) string {
	switch {
	case a.Noop != b.Noop || a.Initiate != b.Initiate || a.Reconcile != b.Reconcile:
		return fmt.Sprintf("noop/initiate/reconcile %v/%v/%v vs %v/%v/%v", a.Noop, a.Initiate, a.Reconcile, b.Noop, b.Initiate, b.Reconcile)
	case (a.Err == nil) != (b.Err == nil):
		return fmt.Sprintf("errors %v vs %v", a.Err, b.Err)
	case !reflect.DeepEqual(inOrder(a.Create), inOrder(b.Create)):
		return fmt.Sprintf("creates %v vs %v", inOrder(a.Create), inOrder(b.Create))
	case !equality.Semantic.DeepEqual(a.Create, b.Create):
		return "the created pods differ"
	case !reflect.DeepEqual(inOrder(a.Delete), inOrder(b.Delete)):
		return fmt.Sprintf("deletes %v vs %v", inOrder(a.Delete), inOrder(b.Delete))
	case !reflect.DeepEqual(a.Waiting, b.Waiting):
		return fmt.Sprintf("waiting %v vs %v", a.Waiting, b.Waiting)
	case !equality.Semantic.DeepEqual(a.PodGroup, b.PodGroup) || !equality.Semantic.DeepEqual(a.InitStatus, b.InitStatus):
		return "PodGroup or initial status differ"
	case !equality.Semantic.DeepEqual(a.Claims, b.Claims) || !equality.Semantic.DeepEqual(a.Objects, b.Objects):
		return "claims or plugin objects differ"
	}
	return ""
}

func outcomeDiff(a, b statemachine.Outcome) string {
	if (a.Err == nil) != (b.Err == nil) || a.Write != b.Write || a.PhaseChanged != b.PhaseChanged || a.DeletePodGroup != b.DeletePodGroup {
		return fmt.Sprintf("err/write/phaseChanged/deletePodGroup %v/%v/%v/%v vs %v/%v/%v/%v",
			a.Err, a.Write, a.PhaseChanged, a.DeletePodGroup, b.Err, b.Write, b.PhaseChanged, b.DeletePodGroup)
	}
	if !equality.Semantic.DeepEqual(a.Status, b.Status) {
		return fmt.Sprintf("status\n%+v\nvs\n%+v", a.Status, b.Status)
	}
	return ""
}

// TestCompleteTwice: Complete leaves the plan as it was, so completing a
// plan again (with other failures or another rule) starts from the same
// counts.
func TestCompleteTwice(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	rapid.Check(t, func(t *rapid.T) {
		job := rapidgen.Job().Draw(t, "job")
		job.Status.State.Phase = vcjob.Running
		ji := incremental(t, job)
		plan := statemachine.PlanSyncWith(ji, statemachine.PodGroupState{Exists: true, Phase: podgroup.PhaseRunning}, now, statemachine.PlanOptions{})
		update := statemachine.UpdateRunningSync.Func(job)
		first := plan.Complete(nil, update, now)
		for range 2 {
			if again := plan.Complete(nil, update, now); !equality.Semantic.DeepEqual(first, again) {
				t.Fatalf("a second Complete differs:\n%+v\n%+v", first.Status, again.Status)
			}
		}
	})
}
