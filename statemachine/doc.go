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
//	_, err := statemachine.Execute(ctx, a, ji, vcjob.SyncJobAction, request.Target{})
//	for _, w := range a.Last.Warnings {
//		log.Print(w) // plugin arguments Volcano logs and goes past
//	}
//	for _, e := range a.Last.Events {
//		recorder.Event(ji.Job, e.Type, e.Reason, e.Message) // kubectl describe vcjob
//	}
//
// memcluster is such a Cluster, in memory; a real controller applies the
// same plans with its clients.
//
// # Contexts
//
// Every call that reaches a cluster takes a context.Context first (Execute,
// ExecuteWith, the Cluster and Applier methods) and Applied hands it to
// each Applier call, so that a controller shutting down, or losing its
// lease, stops the call under way, and a logger or trace in the context
// reaches the clients. A cancelled context does to a half-applied plan what
// a crash would, no more:
//
//   - the API calls already made stay made (a PodGroup created, some pods
//     created or deleted, a Pending status written); nothing is rolled
//     back;
//   - the call stops at the first Applier call that fails with the
//     context's error and returns that error, wrapped (errors.Is finds
//     context.Canceled or context.DeadlineExceeded); the status is not
//     written, as after any failed create or delete, and the call records
//     no Event for what the context stopped;
//   - the same request run again (the requeued request, on any
//     controller) computes its plan afresh from the cluster as it is, not
//     from the interrupted one, and finishes the work: the pods still
//     missing are created, the ones still to go are deleted (those already
//     deleted count as terminating while they terminate), and the status
//     it writes is the one an uninterrupted call would have written
//     (TestCancelledPlanConverges stops every step of a job's life before
//     each of its calls in turn).
//
// Two things are not undone that way. A kill stopped after its status write
// (only the PodGroup delete left) has done its work as far as the status
// says; the PodGroup is deleted by the job's next kill. A claim created for
// a generated name (no Choices.DeterministicClaimNames) before the name was
// written back into the job is drawn again by the next sync: the first
// claim stays, unused, owned by the job, as it does with Volcano.
//
// # Events
//
// Effects.Events are the Kubernetes Events (package record, not
// vcjob.Event) Volcano's job controller records during the call, in its
// order, with its reasons and messages word for word. All are Warnings:
//
//	JobStatusError   Failed to initialize job status, err: <err>        a new job's Pending status write failed
//	PluginError      Execute plugin when job add failed, err: <err>     OnJobAdd or OnJobUpdate (sic) failed, or writing their objects did
//	PVCError         Failed to create PVC, err: <err>                   a claim lookup, create or the job's write-back failed; a named claim is missing
//	PodGroupError    Failed to create PodGroup, err: <err>              the PodGroup could not be read, created or updated
//	PodGroupPending  PodGroup <ns>:<job> <type>, reason: <message>       the PodGroup's latest true condition is not Scheduled (every sync)
//	FailedCreate     Error creating pods: [failed to create pod <name>, err: <%#v> ...]
//	FailedDelete     Error deleting pods: [failed to delete pod <name>, err <%#v> ...]
//
// The first four end the call (SyncJob only); PodGroupPending does not.
// A missing claim's error is ClaimNotFound's; a failed out-of-sync mark is
// a MarkError. Volcano records nothing for a plugin's OnPodCreate or
// OnJobDelete error, a failed status write other than the first, or a
// PodGroup delete, and neither does Applied. A call handed a job being
// deleted records nothing. The Events of the worker around the call
// (ExecuteAction) are package worker's.
//
// # The table is the whole machine
//
// Table lists Volcano's rows, then the rows of decisions the policy
// extensions mark (MarkKeepRetries: a restart that counts no retry;
// MarkFailJob: a restart beyond the retry budget fails the job), then the
// rows a behaviour difference selects (Transition.When: ResumeJob that
// keeps retries, AbortJob that aborts while Restarting, a finished job left
// alone). LookupFor picks the most specific row that fits the job's
// behaviour (behavior.Set, the job's vcjob.dev/semantics annotation on
// top) and the decision's marks; Lookup is Volcano's row. The other
// corrections the plans make live each in a file named after them, the
// code a job that does not ask for them never enters:
//
//	tr, err := statemachine.ExecuteWith(ctx, a, ji, action, target,
//		statemachine.Options{Behavior: behavior.Corrected()})
//
// # Where things are
//
//	table.go                       states, calls, update rules, marks, the table, Lookup, LookupFor
//	execute.go                     Execute, ExecuteWith, Options
//	update.go                      the update rules as status functions
//	status.go                      counting pods into the status, conditions, Outcome
//	sync.go                        PlanSync: what SyncJob creates and deletes
//	pod.go                         rendering a pod from its task
//	kill.go                        PlanKillJob, PlanKillTarget, Complete
//	apply.go                       Applied: the plans through an Applier, in Volcano's order
//	options.go                     PlanOptions, Choices, claims
//	cluster.go                     the Cluster interface and Retain
//	events.go                      the Events the calls record
//	names.go                       name sources for generated names
//	diagram.go                     the Mermaid diagram of Volcano's rows
//	count_finished_after_kill.go   behavior.CountFinishedAfterKill
//	kill_status_first.go           behavior.KillStatusFirst
//	leave_finished_jobs.go         behavior.LeaveFinishedJobs
//	out_of_sync_counted_once.go    behavior.OutOfSyncCountedOnce
package statemachine
