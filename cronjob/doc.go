// Package cronjob is one sync of Volcano's CronJob controller
// (batch.volcano.sh/v1alpha1, pkg/controllers/cronjob) as a value: the API
// calls it makes in order (the job deletes, the job create, the status
// write), the Events it records, the status it leaves, when it asks to be
// synced again, and whether it fails.
//
// Decide is a pure function of the cronjob, every job the Job lister
// holds and the time: it reads no clock and no cluster, and keeps no
// state. A controller makes the calls of the Decision it returns, records
// its Events on the cronjob and requeues as it says. Where the API server
// answers a call otherwise than the lister predicts (a create that
// conflicts or fails, a delete or a status write that fails, the UID a
// created job gets), Decision.Answer gives the rest of the sync:
//
//	d := cronjob.Decide(cj, jobs, now) // jobs: everything the Job lister holds
//	for i := 0; i < len(d.Calls); i++ {
//		if a, unforeseen := apply(d.Calls[i]); unforeseen {
//			d = d.Answer(i, a)
//		}
//	}
//	for _, e := range d.Events { recorder.Event(cj, e.Type, e.Reason, e.Message) }
//	if d.Err != nil { /* retry with backoff */ } else if d.RequeueAfter != nil { /* sync again then */ }
//
// The default is Volcano's behaviour, quirks included; DecideWith's
// Options turn on vcjob's own choices (each a fix of one of them) and say
// which zone Volcano's controller runs in. The rules, in the order a sync
// applies them, each beside its code:
//
//   - A cronjob being deleted: nothing at all (decide.go, sync).
//   - The cronjob's jobs are those in its namespace whose controller
//     reference names a CronJob of its name and UID, any apiVersion
//     (jobs.go, IsControlledBy). Completed, Failed and Terminated are
//     finished; Aborted is not (jobs.go, isFinished).
//   - A finished job listed in status.active by UID leaves it
//     (SawCompletedJob); a Completed one moves lastSuccessfulTime. Beyond
//     each history limit the oldest Completed, then Failed, jobs are
//     deleted (SuccessfulDelete, FailedDelete); Terminated ones never
//     (history.go, finishedJobs).
//   - An unfinished job not listed is an OrphanedJob; an entry whose job
//     is missing or of another UID is a StaleReference and leaves the list
//     by its UID; the entry after each removed one is skipped (active.go,
//     checkActive).
//   - Suspended: stop, with no requeue (decide.go, syncCronJob).
//   - A timeZone that does not load fails the sync (InvalidTimeZone); a
//     schedule holding "TZ" is an UnsupportedSchedule and keeps its own
//     zone; one that does not parse fails the sync; a bare zone prefix
//     panics (schedule.go, checkTimeZone, loadSchedule).
//   - The due run is the latest schedule time after lastScheduleTime (else
//     the creation), within startingDeadlineSeconds, found by Volcano's
//     estimate of the times missed: more than 100 is TooManyMissedTimes,
//     two times less than a second apart an InvalidSchedule (schedule.go,
//     unmetTimes).
//   - A due run whose job name is in status.active, or which is
//     lastScheduleTime, is not started again (decide.go, syncCronJob).
//   - Forbid with any entry in status.active holds the run back
//     (ForbidConcurrent); Replace gets and deletes every entry's job
//     (ReplaceConcurrent, FailedGet) (concurrency.go, concurrency).
//   - The job is created as render.go's jobFor builds it
//     (SuccessfulCreate); one of that name that exists fails the sync
//     (create.go, create). It joins status.active, and lastScheduleTime
//     moves to the run.
//   - The requeue is the schedule time after the latest one since
//     lastScheduleTime, plus NextScheduleDelta (schedule.go, requeueAfter).
//   - The status is written when something changed it and the sync did
//     not fail; a failed write is ignored (decide.go, sync).
//
// OnUpdate is the other decision of Volcano's controller: what its
// CronJob update handler queues (update.go), the new schedule's requeue
// when the schedule or the zone changed.
//
// events.go holds every Event's text, word for word.
//
// Volcano reads a schedule without a time zone in the zone of its
// controller's machine. Decide models that machine as one whose zone is
// UTC, as the recorded vectors ran; Options.Local names another.
//
// Schedules are read by robfig/cron, as Volcano reads them: a daylight
// saving gap skips the times that do not exist that day, and an hour that
// happens twice runs its times twice, as two jobs.
//
// # Where things are
//
//	decide.go          Decide, DecideWith, Decision, Answer: one sync as a value; sync, syncCronJob
//	calls.go           Call, Verb, Answer: the sync's API calls, answered as the lister predicts
//	options.go         Options: the controller's zone, vcjob's own choices
//	jobs.go            IsControlledBy, isFinished: the cronjob's jobs; status.active by UID
//	history.go         finishedJobs: SawCompletedJob, lastSuccessfulTime, the history limits
//	active.go          checkActive: OrphanedJob, StaleReference
//	schedule.go        checkTimeZone, loadSchedule, unmetTimes, requeueAfter; ErrPanic
//	concurrency.go     concurrency: Forbid and Replace
//	create.go          create: the job create, a name that exists
//	render.go          JobName, jobFor: the job a run creates
//	update.go          OnUpdate, Update: what the update handler queues
//	events.go          every Event's reason and text
//	parse.go           ParseSchedule, Schedule: a schedule read strictly, in its zone or UTC
//	*_test.go          a table test beside each rule's file
//	property_test.go   rapid properties: a simulated controller, lost writes
//	schedule_test.go   also TestPropertyLastUpToIsTheWalk (rapid)
//	parse_test.go      also FuzzParseSchedule
package cronjob
