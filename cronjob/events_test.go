package cronjob

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/vcjob/vcjob/record"
)

// Every Event the sync records, word for word as Volcano's CronJob
// controller records it. The other tables build their expectations with
// the same constructors, so the text is pinned here.
func TestEventMessages(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		got  record.Event
		want string
	}{
		{sawCompletedJob("a-1"), `Normal SawCompletedJob Saw completed job: a-1 in active, remove`},
		{successfulDelete("a-1"), `Normal SuccessfulDelete Deleted job "a-1"`},
		{failedDelete("a-1", boom), `Warning FailedDelete Error deleting job "a-1": boom`},
		{orphanedJob("a-1", "u1"), `Warning OrphanedJob Detected orphaned job forgotten or not managed by controller: a-1 (UID: u1)`},
		{staleReferenceGone("a-1", "u1"), `Warning StaleReference Active job "a-1" no longer exists (UID: u1)`},
		{staleReferenceUID("a-1", "u1", "u2"), `Warning StaleReference Active job reference "a-1" points to a different UID (expected: u1, actual: u2)`},
		{invalidTimeZone("Mars/Base", boom), `Warning InvalidTimeZone Invalid time zone "Mars/Base": boom`},
		{unsupportedSchedule("TZ=UTC 0 * * * *"), `Warning UnsupportedSchedule CRON_TZ or TZ in the schedule "TZ=UTC 0 * * * *" is not officially supported. If set, the TimeZone field will be ignored during execution.`},
		{invalidSchedule(boom), `Warning InvalidSchedule Error getting schedule time: boom`},
		{tooManyMissedTimes(), `Warning TooManyMissedTimes too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew`},
		{forbidConcurrent(), `Warning ForbidConcurrent Skipping job creation because another job is already running`},
		{replaceConcurrent(), `Warning ReplaceConcurrent Replacing active job for CronJob`},
		{failedGet(boom), `Warning FailedGet Get job: boom`},
		{successfulCreate("a-1", "ns/a"), `Normal SuccessfulCreate Created job a-1 for CronJob ns/a`},
		{failedCreate(boom), `Warning FailedCreate Failed to create job: boom`},
		{namespaceTerminating("ns"), `Warning NamespaceTerminating Namespace ns is terminating, skipping job creation`},
		{foreignJob("a-1", "none"), `Warning ForeignJob Job a-1 exists but is not owned by this CronJob (current owner: none)`},
		{unparseableSchedule("61 * * * *"), `Warning UnParseableCronJobSchedule unparseable schedule for cronjob: 61 * * * *`},
	} {
		assert.Equal(t, tc.want, tc.got.String())
	}
}
