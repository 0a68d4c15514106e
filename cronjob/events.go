package cronjob

import (
	"github.com/vcjob/vcjob/record"
)

// The Events one sync records, all on the cronjob, word for word as
// Volcano's CronJob controller records them (reasons included: Volcano
// reports a failed Replace Get as FailedGet and a conflicting job of
// another owner as ForeignJob).

// Finished jobs and history (history.go).

func sawCompletedJob(job string) record.Event {
	return record.Normalf("SawCompletedJob", "Saw completed job: %s in active, remove", job)
}

func successfulDelete(job string) record.Event {
	return record.Normalf("SuccessfulDelete", "Deleted job %q", job)
}

func failedDelete(job string, err error) record.Event {
	return record.Warningf("FailedDelete", "Error deleting job %q: %v", job, err)
}

// The controlled jobs against status.active (active.go).

func orphanedJob(job, uid string) record.Event {
	return record.Warningf("OrphanedJob", "Detected orphaned job forgotten or not managed by controller: %s (UID: %s)", job, uid)
}

func staleReferenceGone(job, uid string) record.Event {
	return record.Warningf("StaleReference", "Active job %q no longer exists (UID: %s)", job, uid)
}

func staleReferenceUID(job, expected, actual string) record.Event {
	return record.Warningf("StaleReference", "Active job reference %q points to a different UID (expected: %s, actual: %s)", job, expected, actual)
}

// The schedule (schedule.go, decide.go).

func invalidTimeZone(zone string, err error) record.Event {
	return record.Warningf("InvalidTimeZone", "Invalid time zone %q: %v", zone, err)
}

func unsupportedSchedule(schedule string) record.Event {
	return record.Warningf("UnsupportedSchedule", "CRON_TZ or TZ in the schedule %q is not officially supported. If set, the TimeZone field will be ignored during execution.", schedule)
}

func invalidSchedule(err error) record.Event {
	return record.Warningf("InvalidSchedule", "Error getting schedule time: %v", err)
}

func tooManyMissedTimes() record.Event {
	return record.Warningf("TooManyMissedTimes", "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew")
}

// The concurrency policy (concurrency.go).

func forbidConcurrent() record.Event {
	return record.Warningf("ForbidConcurrent", "Skipping job creation because another job is already running")
}

func replaceConcurrent() record.Event {
	return record.Warningf("ReplaceConcurrent", "Replacing active job for CronJob")
}

func failedGet(err error) record.Event {
	return record.Warningf("FailedGet", "Get job: %v", err)
}

// The create (create.go).

func successfulCreate(job, cronJob string) record.Event {
	return record.Normalf("SuccessfulCreate", "Created job %s for CronJob %s", job, cronJob)
}

func failedCreate(err error) record.Event {
	return record.Warningf("FailedCreate", "Failed to create job: %v", err)
}

func namespaceTerminating(namespace string) record.Event {
	return record.Warningf("NamespaceTerminating", "Namespace %s is terminating, skipping job creation", namespace)
}

func foreignJob(job, owner string) record.Event {
	return record.Warningf("ForeignJob", "Job %s exists but is not owned by this CronJob (current owner: %s)", job, owner)
}

// The update handler (update.go).

func unparseableSchedule(schedule string) record.Event {
	return record.Warningf("UnParseableCronJobSchedule", "unparseable schedule for cronjob: %s", schedule)
}
