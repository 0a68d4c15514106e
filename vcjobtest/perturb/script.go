package perturb

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/statemachine/memcluster"
	"github.com/vcjob/vcjob/vcjobtest/rapidgen"
)

// scriptStart is the clock of a played rapidgen script at its start.
func scriptStart() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

// PlayScript plays a rapidgen scenario on a memcluster under plan: its
// world steps change the cluster (the controller settles after each, and
// an advance fires the delayed actions that fell due), its commands are
// queued as a command handler queues them, and then the run drains
// (Controller.Drain). The pod and task events a script hands the
// controller directly are left out: a perturbed controller learns of the
// world from its watch and its relist, and an event with no change of the
// world behind it would be lost by any relist. It returns the run and
// the job's end.
func PlayScript(sc rapidgen.Script, plan Plan, sem behavior.Set) (*Run, Final, error) {
	c := memcluster.New(metav1.NewTime(scriptStart()))
	c.Watch, c.GracefulDelete = true, true
	job := c.PutJob(sc.Job)
	ns, name := job.Namespace, job.Name
	if sc.PodGroup != "" {
		c.SetPodGroupPhase(ns, podgroup.Name(job), sc.PodGroup)
	}
	run := NewRun(plan)
	ctl := NewController(run, c, c, ns, name, sem, nil)
	fail := func(err error) (*Run, Final, error) {
		run.Violate(Stable, "%v", err)
		return run, FinalOf(c, ns, name), nil
	}
	if err := ctl.Settle(c.Now.Time); err != nil {
		return fail(err)
	}
	for _, st := range sc.Steps {
		job := c.Job(ns, name)
		if job == nil {
			break
		}
		switch {
		case st.Kind == rapidgen.StepRequest && st.Action != "":
			ctl.Queue(st.Request(job, c.Pods(ns, name)))
		case st.Kind == rapidgen.StepRequest:
			continue
		default:
			st.Apply(c, job)
		}
		if err := ctl.Advance(c.Now.Time); err != nil {
			return fail(err)
		}
	}
	_, err := ctl.Drain(c.Now.Time, func() { c.FinishTerminating() }, func(t time.Time) { c.Now = metav1.NewTime(t) })
	if err != nil {
		return fail(err)
	}
	return run, FinalOf(c, ns, name), nil
}
