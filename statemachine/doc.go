// Package statemachine owns the ten job phases and what each action does in
// each of them, and the pure plans behind the three cluster calls.
//
// The machine is data: Table lists, for every state and action, which call
// the controller makes on the cluster (SyncJob, KillJob or KillTarget), which
// pods a kill retains, and the update rule that judges the new status.
// Execute looks the row up and makes the call on a Cluster the caller
// injects; there is no global state, no goroutine and no clock.
//
// A Cluster does what the plans say. PlanSync, PlanKillJob and
// PlanKillTarget compute, from a job info and the PodGroup's phase, the pods
// to create (fully rendered) and to delete; the caller applies them and
// hands the failures to the plan's Complete, which returns the status to
// write and whether to delete the PodGroup:
//
//	plan := statemachine.PlanKillJob(ji, retain)
//	failed := map[string]error{}
//	for _, pod := range plan.Delete {
//		if err := deletePod(pod); err != nil { // mark out-of-sync, then delete
//			failed[pod.Name] = err
//		}
//	}
//	out := plan.Complete(failed, update, now)
//	if out.Err != nil {
//		return out.Err // nothing is written
//	}
//	writeStatus(out.Status)
//	if out.DeletePodGroup {
//		deletePodGroup()
//	}
//
// Applied applies the plans through an Applier (the API calls: PodGroups,
// plugin objects, claims, the job's spec and status, pods) in Volcano's
// order. A SyncJob writes what Volcano's writes, object for object: the
// pods in full, the plugins' objects, the PodGroup with minResources as
// Volcano charges pods, claims named <job>-pvc-<random> (drawn from a
// NameSource) and written back into the job. Where vcjob's own choice is
// better (deterministic claim names, requests-only minResources) it is a
// field of Choices, off by default:
//
//	a := &statemachine.Applied{Applier: myApplier, Plugins: registry,
//		Names: statemachine.RandomNames()}
//	a.Now = now
//	_, err := statemachine.Execute(a, ji, vcjob.SyncJobAction, vcjob.Target{})
//	for _, w := range a.Last.Warnings {
//		log.Print(w) // plugin arguments Volcano logs and goes past
//	}
//
// memcluster is such a Cluster, in memory; a real controller applies the
// same plans with its clients.
//
// ExecuteWith decides under Options: a semantics profile (vcjob.Semantics,
// the job's vcjob.dev/semantics annotation on top; LookupWith is its
// table), and the policy extensions' marks on a decision (a restart that
// keeps retries, one that fails the job). The plans read the profile and
// the restart backoff from PlanOptions.Semantics and Extensions.
//
//	tr, err := statemachine.ExecuteWith(a, ji, action, target,
//		statemachine.Options{Semantics: vcjob.Corrected()})
package statemachine
