package cronjob

import "time"

// Options are what DecideWith may do differently from Volcano, and the one
// fact about Volcano's controller process a sync depends on: its zone. The
// zero Options is Volcano's controller on a machine whose zone is UTC:
// Decide.
//
// Each bool is one of vcjob's own choices, off by default. Most correct a
// Volcano behaviour that looks like a bug; the README's table of
// differences lists them with their reasons.
type Options struct {
	// Local is the zone Volcano's controller process runs in (its TZ),
	// nil for UTC. Volcano reads a schedule in that zone when the cronjob
	// sets no timeZone, when timeZone is "Local", and when the schedule
	// begins "TZ=Local "; Decide never reads the machine's zone itself.
	Local *time.Location

	// AdoptExistingJob: when the job of the due run already exists (its
	// status write was lost after it was created, or someone made one of
	// that name), the sync does not fail. A job the cronjob controls
	// counts as the run: status.lastScheduleTime moves to it and, while it
	// is unfinished, it joins status.active; a job of that name the
	// cronjob does not control gets a ForeignJob warning and the run
	// waits. This is the path Volcano's createJob means to take on a
	// conflict; its Get of the existing job omits the namespace (the job
	// it built has none), so the Get fails and so does every sync, until
	// the job is deleted.
	AdoptExistingJob bool
	// MatchRunsByScheduledTime: a job the cronjob controls whose
	// volcano.sh/cronjob-scheduled-timestamp annotation is the due time is
	// the run's job, whatever its name, and is handled as AdoptExistingJob
	// handles the job of the run's name. Volcano knows a run only by the
	// job name it derives from the scheduled time.
	MatchRunsByScheduledTime bool
	// RecordDeletedRuns: when the history limit deletes a job whose
	// scheduled-timestamp annotation is later than
	// status.lastScheduleTime (and not after now), lastScheduleTime moves
	// up to it. The job is the only evidence of a run whose status write
	// was lost; once it is gone Volcano would start that run again.
	RecordDeletedRuns bool
	// RefuseMachineZones: timeZone "" and "Local" are refused as unknown
	// zones are (InvalidTimeZone, the sync fails). Volcano accepts both:
	// "" is UTC and "Local" the controller's own zone, so the same cronjob
	// runs at other times on another controller.
	RefuseMachineZones bool
	// RejectBareZonePrefix: a schedule that is only a "TZ=<zone>" or
	// "CRON_TZ=<zone>" prefix, with no space and no schedule after it,
	// fails the sync as an unparseable schedule does. Volcano's sync
	// panics in robfig/cron's parser, which cuts the zone at the first
	// space without checking there is one.
	RejectBareZonePrefix bool
	// VisitEveryActiveReference: the stale-reference check and Replace
	// visit every entry of status.active. Volcano removes entries from the
	// list while it ranges over it, so the entry after each removed one
	// is skipped: a stale reference survives the sync, and Replace leaves
	// a job running (or fails on a Get of the one it deleted already).
	VisitEveryActiveReference bool
	// ReportFailedStatusWrite: a failed status write fails the sync (the
	// controller retries it). Volcano logs the failure and returns no
	// error and no requeue, so nothing syncs the cronjob again until it
	// or one of its jobs changes.
	ReportFailedStatusWrite bool
}

// local is the zone Volcano's "local" stands for.
func (o Options) local() *time.Location {
	if o.Local == nil {
		return time.UTC
	}
	return o.Local
}
