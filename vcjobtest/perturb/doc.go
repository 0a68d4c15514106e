// Package perturb plays a job's scenario with its controller perturbed
// the way real controllers are, and checks what comes of it against the
// unperturbed run of the same scenario. It owns the plans, the Applier
// wrapper and watch filter that play them, the relist that starts a new
// controller, and the checks.
//
// Three plans (Plan, Kind):
//
//	Crash       after one Applier call a step makes (a pod delete counts
//	            twice: its out-of-sync mark, then the delete), the
//	            controller stops; a new one starts from what the cluster
//	            holds (a new cache filled by a relist, no queue, no
//	            delayed actions, no history) and the scenario goes on
//	Stale       one step decides on a cache that lags the cluster by 1 to
//	            MaxLag changes (an informer behind the API server); they
//	            arrive after the step
//	Unobserved  one state of a pod or PodGroup never reaches the cache: the
//	            object's next change arrives from the state before it, as a
//	            relist after a cut watch shows only the last state (or the
//	            relist comes when the scenario needs it, or at its end)
//
// An unperturbed run (Plan{Kind: None}) counts what there is to perturb
// (Run.Counts: Applier calls, steps, states a later change follows);
// Plans lists every run of a scenario from those counts, and Sample a
// seeded subset.
//
// The checks (Check): the job ends in the phase and retry count of the
// unperturbed run (Run.Compare); never two live pods of one job version
// with the same task and index; no pod created for a job in a terminal
// phase; no status write lowers status.version or the retry count; after
// the scenario, a drain (what the run held back, pods finishing, every
// delayed action, a new controller's relist and sync) leaves the job
// stable and not stuck waiting for what will not come (Stuck).
//
// A Run sits between a controller and its World: Wrap is the Applier the
// controller acts through, Deliver filters its watch, Stepped, Idle and
// Restart are called by the loop that drives it. Controller is such a
// loop over any World and Feed (a memcluster is both); PlayScript drives
// it through a rapidgen scenario. An embedder perturbs its own Applier by
// making it a World (the stored objects, for the checks and the relist),
// handing its watch events over as Changes, and driving a Controller:
//
//	base := perturb.NewRun(perturb.Plan{Kind: perturb.None})
//	want := playMine(base) // the scenario on a fresh world, see below
//	for _, plan := range perturb.Plans(base.Counts()) {
//		run := perturb.NewRun(plan)
//		got := playMine(run)
//		run.Compare(got, want)
//		for _, v := range run.Violations() {
//			report(plan, v) // a bug, or a behaviour to explain
//		}
//	}
//
//	func playMine(run *perturb.Run) perturb.Final {
//		w := newMyWorld()                   // a perturb.World and perturb.Feed
//		job := w.Create(myJob)
//		ctl := perturb.NewController(run, w, w, job.Namespace, job.Name, behavior.Set{}, registry)
//		_ = ctl.Settle(now)
//		for _, change := range myScript {
//			change(w)                       // what the kubelet, the scheduler, users do
//			_ = ctl.Advance(now)            // settle, and fire what fell due
//		}
//		_, _ = ctl.Drain(now, w.FinishTerminating, w.SetNow)
//		return perturb.FinalOf(w, job.Namespace, job.Name)
//	}
//
// Scenario files of the simulator run under the plans in
// vcjobtest/scenario (Perturb), which also holds the table of
// Volcano's own behaviours under perturbation; docs/perturbation.md
// describes both.
//
// Like the rest of vcjob the package keeps no global state, starts no
// goroutine and reads no clock: time is the caller's.
package perturb
