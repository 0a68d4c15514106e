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
// which zone Volcano's controller runs in. Each rule is stated where its
// code is:
//
//   - which jobs are the cronjob's, and what finished means: IsControlledBy
//     and isFinished (jobs.go);
//   - finished jobs leaving status.active, lastSuccessfulTime, the history
//     limits: finishedJobs (history.go);
//   - orphaned jobs and stale references: checkActive (active.go);
//   - the time zone, the schedule, the due run, the missed runs and the
//     requeue: checkTimeZone, loadSchedule, unmetTimes, requeueAfter
//     (schedule.go);
//   - a run that ran already, and the order of it all: syncCronJob
//     (decide.go);
//   - Forbid and Replace: concurrency (concurrency.go);
//   - the job created and what a conflict does: jobFor (render.go), create
//     (create.go);
//   - every Event, word for word: events.go.
//
// Volcano reads a schedule without a time zone in the zone of its
// controller's machine. Decide models that machine as one whose zone is
// UTC, as the recorded vectors ran; Options.Local names another.
//
// Schedules are read by robfig/cron, as Volcano reads them: a daylight
// saving gap skips the times that do not exist that day, and an hour that
// happens twice runs its times twice, as two jobs.
package cronjob
