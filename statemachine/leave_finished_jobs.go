package statemachine

import "github.com/vcjob/vcjob/jobinfo"

// leaveAlone reports whether a finished or Aborted job has nothing left to
// delete, so that its row under behavior.LeaveFinishedJobs
// (CallKillJobUnlessIdle) makes no call: no kill, no version bump, no
// status write. A job being deleted is left to the kill, which does
// nothing for it anyway.
func leaveAlone(ji *jobinfo.Info) bool {
	if ji.Job.DeletionTimestamp != nil {
		return false
	}
	for _, pod := range ji.Pods() {
		if pod.DeletionTimestamp == nil && !RetainSoft.Keeps(pod.Status.Phase) {
			return false
		}
	}
	return true
}
