// Package exhaustive model-checks a small job: Explore enumerates every
// state the job can reach under every event the cluster, its users and time
// can produce, running the real pipeline (memcluster as the cluster, the
// cache fed by its watch as informers would, worker.Step for every request
// and every delayed action), and checks every step and the whole graph.
//
// A state is what decides the job's future, and nothing else: its status
// (phase, retry count, counts; status.version only as "0" or "above 0",
// which is all a decision reads), each pod (phase, bound to a node,
// containers ready, terminating, out of sync, created before the last
// whole-job kill, in-place restarts up to the task's maxRetry), the
// PodGroup (missing, or its phase), and the pending delayed actions (in
// registration order: action, target, pod, the event that registered them,
// whether that pod is still the one registered, whether a later
// registration orphaned them, and the time left). Times, UIDs and
// conditions are left out. A state is rebuilt from its key before it is
// expanded, so the search needs no copies of the world; Options.VerifyEvery
// cross-checks the rebuilding against the world a state was found in.
//
// From each state, the events are:
//
//	start POD          a Pending pod is bound and runs, containers ready
//	fail POD CODE      a Running pod fails, its first container exiting CODE
//	succeed POD        a Running pod succeeds
//	restart POD        a Running pod's container restarts in place
//	                   (Options.ContainerRestarts)
//	evict POD          someone else deletes a pod that is not terminating
//	finish POD         a terminating pod goes away
//	podgroup PHASE     the scheduler moves the PodGroup to Pending,
//	                   Inqueue, Running or Unknown
//	command ACTION     a Command asks for ACTION
//	advance            time runs to the next delayed action, which fires
//
// and after each, the controller settles: every request the change raises
// is processed, and every request those raise, until none is left. The
// labels are the script language of cmd/simulate (but "finish" there
// finishes every terminating pod, and "advance" there takes a duration).
//
// Every processing step is checked with rapidgen.CheckStep and
// rapidgen.CheckEffects (so Failed only ever comes from maxRetry or the
// completion rules, and no kill touches a pod outside its target), plus
// Options.Check; the graph is checked for liveness: from every state a
// terminal phase (Completed, Terminated, Failed, or Aborted, which only
// ResumeJob leaves) must be reachable. Result carries the violations, each
// with the events that lead to it.
//
//	res, err := exhaustive.Explore(job, exhaustive.Options{})
//	if err != nil {
//		return err // an invalid job, or more states than Options.MaxStates
//	}
//	fmt.Println(res.States, "states")
//	return res.Err() // violations and states that cannot finish
//
// Keep jobs small: a handful of pods and maxRetry of 1 or 2 already make
// tens of thousands of states. Volumes are refused and plugins are not run
// (their objects never feed back into decisions).
//
// Options.Semantics explores under a semantics profile. Of the policy
// extensions (the vcjob.dev/policy annotation) exit-code sets and
// disruptions are explored; a deadline, a backoff, a retry budget or an
// escalation is refused, since states keep no absolute time and no history.
package exhaustive
