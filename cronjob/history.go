package cronjob

import (
	"cmp"
	"slices"
)

// historyToDelete returns the finished jobs beyond the history limits,
// oldest first: Completed jobs beyond successfulLimit, then the other
// finished jobs beyond failedLimit. A nil limit keeps every job of its
// kind (the API server defaults the limits to 3 and 1).
func historyToDelete(jobs []JobState, successfulLimit, failedLimit *int32) []string {
	var successful, failed []JobState
	for _, j := range jobs {
		switch {
		case !isFinished(j.Phase):
		case isSuccessful(j.Phase):
			successful = append(successful, j)
		default:
			failed = append(failed, j)
		}
	}
	return append(oldestBeyond(successful, successfulLimit), oldestBeyond(failed, failedLimit)...)
}

// oldestBeyond names the oldest jobs that do not fit in limit.
func oldestBeyond(jobs []JobState, limit *int32) []string {
	if limit == nil || len(jobs) <= int(max(*limit, 0)) {
		return nil
	}
	slices.SortFunc(jobs, olderFirst)
	var names []string
	for _, j := range jobs[:len(jobs)-int(max(*limit, 0))] {
		names = append(names, j.Name)
	}
	return names
}

// olderFirst orders jobs by creation time, then name; jobs without a
// creation time come last, as in Volcano.
func olderFirst(a, b JobState) int {
	if az, bz := a.CreationTimestamp.IsZero(), b.CreationTimestamp.IsZero(); az != bz {
		if az {
			return 1
		}
		return -1
	}
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp); c != 0 {
		return c
	}
	return cmp.Compare(a.Name, b.Name)
}
