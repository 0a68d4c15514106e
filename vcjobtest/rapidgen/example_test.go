package rapidgen_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/vcjob/vcjob/delay"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
	"github.com/vcjob/vcjob/vcjobtest/rapidgen"
	"github.com/vcjob/vcjob/worker"
)

// controller is a tiny controller built on vcjob: an in-memory cluster,
// and Volcano's processing step for every request and every delayed
// action that falls due.
type controller struct {
	ns, name string
	cluster  *memcluster.Cluster
	step     *worker.Step
	steps    int
}

func newController(sc rapidgen.Script) *controller {
	c := memcluster.New(metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
	c.GracefulDelete = true // bound pods terminate until FinishTerminating
	c.PutJob(sc.Job)
	if sc.PodGroup != "" {
		c.SetPodGroupPhase(sc.Job.Namespace, podgroup.Name(sc.Job), sc.PodGroup)
	}
	return &controller{
		ns: sc.Job.Namespace, name: sc.Job.Name, cluster: c,
		step: &worker.Step{Jobs: c, Delays: delay.New(), Cluster: &statemachine.Applied{Applier: c}},
	}
}

// run plays one scenario step: a request is processed; a world change is
// applied, then the delayed actions that fell due fire. Every processing
// step is checked; run returns what broke.
func (ctl *controller) run(st rapidgen.Step) error {
	job := ctl.cluster.Job(ctl.ns, ctl.name)
	if st.Kind == rapidgen.StepRequest {
		req := st.Request(job, ctl.cluster.Pods(ctl.ns, ctl.name))
		return ctl.checked(func(now time.Time) worker.Record { return ctl.step.Process(context.Background(), req, now) })
	}
	st.Apply(ctl.cluster, job)
	var errs []error
	for _, e := range ctl.step.Delays.Due(ctl.cluster.Now.Time) {
		errs = append(errs, ctl.checked(func(now time.Time) worker.Record { return ctl.step.Fire(context.Background(), e, now) }))
	}
	return errors.Join(errs...)
}

// checked runs one processing step and checks it with rapidgen.
func (ctl *controller) checked(do func(now time.Time) worker.Record) error {
	ctl.steps++
	before := ctl.cluster.Job(ctl.ns, ctl.name)
	pods := ctl.cluster.Pods(ctl.ns, ctl.name)
	rec := do(ctl.cluster.Now.Time)
	after := ctl.cluster.Job(ctl.ns, ctl.name)
	errs := []error{rapidgen.CheckStep(before, after, rec), rapidgen.CheckEffects(before, pods, rec)}
	for _, name := range rec.Effects.Created {
		if p := ctl.cluster.Pod(ctl.ns, name); p != nil {
			errs = append(errs, rapidgen.CheckPod(before, p))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%s: %w", rec, err)
	}
	return nil
}

// Property-test a controller: draw scenarios, drive the controller through
// each, and check every step it takes. Generator.Example draws a fixed
// value per seed, which suits a runnable example; a test would use
// rapid.Check (see TestTinyController).
func Example() {
	const scenarios = 60
	steps, violations := 0, 0
	for seed := 0; seed < scenarios; seed++ {
		sc := rapidgen.Scenario().Example(seed)
		ctl := newController(sc)
		for _, st := range sc.Steps {
			if err := ctl.run(st); err != nil {
				violations++
				fmt.Println(err)
			}
		}
		steps += ctl.steps
	}
	fmt.Printf("%d scenarios, more than 500 checked steps: %v, violations: %d\n", scenarios, steps > 500, violations)
	// Output: 60 scenarios, more than 500 checked steps: true, violations: 0
}

// TestTinyController is the example as a property test: rapid shrinks a
// failing scenario to a minimal one.
func TestTinyController(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sc := rapidgen.Scenario().Draw(t, "scenario")
		ctl := newController(sc)
		for i, st := range sc.Steps {
			if err := ctl.run(st); err != nil {
				t.Fatalf("step %d (%s): %v", i, st, err)
			}
		}
	})
}
