// Package cronjob decides what Volcano's CronJob controller does on one
// sync of a batch.volcano.sh/v1alpha1 CronJob: which scheduled run is due,
// the Job to create for it, the jobs to delete, the status to write, and
// when to look again. It follows the Kubernetes CronJob controller (v2),
// which Volcano's is a port of.
//
// Decide is a pure function of the cronjob, the jobs it owns and the time:
// it reads no clock, keeps no state and touches no cluster. The caller lists
// the jobs (JobStateOf turns a Job into a JobState, IsControlledBy picks the
// cronjob's jobs), applies the decision (delete, create, write the status)
// and calls Decide again after RequeueAfter or when one of its jobs changes:
//
//	d := cronjob.Decide(cj, states, now)
//	for _, name := range d.Delete { /* delete the job cj.Namespace/name */ }
//	if d.Create != nil { /* create d.Create */ }
//	cj.Status = d.Status // write it if it changed
//	if d.RequeueAfter > 0 { /* sync again after d.RequeueAfter */ }
//
// The rules, in the order Decide applies them:
//   - Finished jobs (Completed, Failed, Terminated, Aborted) and jobs that no
//     longer exist leave status.active; status.lastSuccessfulTime follows
//     the latest Completed job.
//   - Beyond successfulJobsHistoryLimit (Completed) and
//     failedJobsHistoryLimit (Failed, Terminated, Aborted) the oldest
//     finished jobs are deleted, by creation time, then name. A deleted
//     job's scheduled time moves status.lastScheduleTime up if the status
//     missed that run, so that the run is never started again.
//   - A cronjob being deleted, a schedule or time zone that does not parse,
//     and suspend start nothing.
//   - The earliest time considered is status.lastScheduleTime, else the
//     creation time, and never earlier than now − startingDeadlineSeconds.
//     The most recent schedule time after it and not after now is due; the
//     missed ones before it are skipped, and more than 100 of them is a
//     warning. A run missed by more than the deadline is skipped.
//   - A job of the due run's name (<cronjob>-<scheduled unix time / 60>)
//     that already exists is not created again.
//   - Forbid starts nothing while status.active is not empty; Replace
//     deletes the active jobs first; Allow just starts.
//   - The next look is due at the next schedule time plus NextScheduleDelta.
//
// Schedules read in a named time zone follow robfig/cron across daylight
// saving changes: a time that does not exist that day (02:30 when clocks
// jump from 02:00 to 03:00) does not run, and one that happens twice (01:30
// when clocks fall back) runs twice, as two jobs.
package cronjob
