// Package rapidgen is for property-testing code built on vcjob: generators
// of Volcano jobs, pods, requests and whole scenarios for
// pgregory.net/rapid, and checkers of the invariants every step of Volcano's
// job controller keeps.
//
// Generators (each a *rapid.Generator, so values shrink on failure):
//
//	Job()          valid jobs: 1–3 tasks of 0–4 replicas, minAvailable,
//	               minSuccess, maxRetry, partition policies, dependsOn on
//	               earlier tasks, lifecycle policies on tasks and job
//	Pods(job)      pods as the controller renders them, in any phase, some
//	               missing, bound, ready, terminating, out of sync, stale,
//	               and leftovers beyond the replica count
//	Request(job)   one request as Volcano raises it: a pod or task event
//	Requests(job)  (with exit codes, stale versions, other UIDs), a PodGroup
//	               change, a command
//	Scenario()     a Script: a job, its PodGroup's phase and up to 30
//	               Steps: requests and world changes (pod phases, binding,
//	               readiness, PodGroup phases, terminations, time); a
//	               Step builds its request (Step.Request) or applies
//	               itself to a memcluster (Step.Apply) against the world
//	               as it is when it runs
//
// Every generated job passes validation.ValidateJob and has never been synced
// (empty status); jobs are named and carry a UID.
//
// Checkers take what a step saw and did and return an error naming each
// broken invariant (errors.Join), or nil:
//
//	CheckStep(before, after, rec)          phases, retries, versions,
//	                                       transitions, creates and
//	                                       targeted kills, from the job and
//	                                       the worker.Record alone
//	CheckEffects(before, podsBefore, rec)  the pods a call deleted and
//	                                       created against those that
//	                                       existed
//	CheckPod(job, pod)                     a created pod's labels and annotations
//	                                       and annotations
//
// A property test of a controller of yours draws a scenario, drives the
// controller through it, and checks every step:
//
//	rapid.Check(t, func(t *rapid.T) {
//		sc := rapidgen.Scenario().Draw(t, "scenario")
//		ctl := newController(sc)               // yours
//		for _, st := range sc.Steps {
//			before, pods := ctl.job(), ctl.pods()
//			rec := ctl.handle(st)             // a worker.Record
//			if err := rapidgen.CheckStep(before, ctl.job(), rec); err != nil {
//				t.Fatal(err)
//			}
//			if err := rapidgen.CheckEffects(before, pods, rec); err != nil {
//				t.Fatal(err)
//			}
//		}
//	})
//
// The package's Example does exactly this for a tiny controller built on
// memcluster and worker.Step.
//
// A controller deciding under a semantics profile (behavior.Set) is
// checked with CheckStepWith, which reads the transitions the profile
// makes (statemachine.LookupWith) and the policy extensions' marks on the
// record.
package rapidgen
