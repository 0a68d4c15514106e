package cronjob

import (
	"errors"
	"testing"
	"time"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/record"
)

func TestFinishedJobs(t *testing.T) {
	// A sync at 00:16 with the 00:15 run done: nothing is due, so the
	// calls and events are the finished jobs' alone.
	now := t0015.Add(time.Minute)
	idle := requeue(4*time.Minute + delta)
	cj := func(opts ...func(*vcjob.CronJob)) *vcjob.CronJob {
		return cronJob(every5, append([]func(*vcjob.CronJob){withLastSchedule(t0015)}, opts...)...)
	}
	a, b, c := at("2026-01-04T10:00:00Z"), at("2026-01-04T11:00:00Z"), at("2026-01-04T12:00:00Z")
	runSyncCases(t, []syncCase{
		{
			name:   "a finished job leaves status.active (SawCompletedJob); a Completed one sets lastSuccessfulTime",
			cj:     cj(withActive(ref("done", "uid-done"), ref("failed", "uid-failed"), ref("terminated", "uid-terminated"))),
			jobs:   jobs(named("done", vcjob.Completed, finishedAt(b)), named("failed", vcjob.Failed), named("terminated", vcjob.Terminated)),
			now:    now,
			calls:  []string{"update cronjobs/status ml/nightly"},
			events: []record.Event{sawCompletedJob("done"), sawCompletedJob("failed"), sawCompletedJob("terminated")},
			write:  true, lastSchedule: &t0015, lastSuccessful: &b, requeue: idle, skipped: SkipNotDue,
		},
		{
			name:   "an Aborted job is not finished: it stays active",
			cj:     cj(withActive(ref("aborted", "uid-aborted"))),
			jobs:   jobs(named("aborted", vcjob.Aborted)),
			now:    now,
			active: []string{"aborted"}, lastSchedule: &t0015, requeue: idle, skipped: SkipNotDue,
		},
		{
			name: "a finished job is found in status.active by UID only",
			cj:   cj(withActive(ref("done", ""), ref("other-name", "uid-done"))),
			jobs: jobs(named("done", vcjob.Completed, finishedAt(b))),
			now:  now,
			// "done" without a UID: a reference to a job of another UID
			// (StaleReference), kept since it has no UID to remove.
			calls:  []string{"update cronjobs/status ml/nightly"},
			events: []record.Event{sawCompletedJob("done"), staleReferenceUID("done", "", "uid-done")},
			active: []string{"done"}, write: true, lastSchedule: &t0015, lastSuccessful: &b, requeue: idle, skipped: SkipNotDue,
		},
		{
			name:  "lastSuccessfulTime moves to a later transition only",
			cj:    cj(withLastSuccessful(b)),
			jobs:  jobs(named("earlier", vcjob.Completed, finishedAt(a)), named("later", vcjob.Completed, finishedAt(c)), named("unset", vcjob.Completed)),
			now:   now,
			calls: []string{"update cronjobs/status ml/nightly"},
			write: true, lastSchedule: &t0015, lastSuccessful: &c, requeue: idle, skipped: SkipNotDue,
		},
		{
			name:  "a Completed job without a transition time sets lastSuccessfulTime to the zero time (written as null) on every sync",
			cj:    cj(),
			jobs:  jobs(named("unset", vcjob.Completed)),
			now:   now,
			calls: []string{"update cronjobs/status ml/nightly"},
			write: true, lastSchedule: &t0015, requeue: idle, skipped: SkipNotDue,
		},
		{
			name: "history: the oldest Completed beyond the limit, then the oldest Failed, by creation time then name; Terminated kept",
			cj:   cj(withLimits(new(int32(1)), new(int32(1)))),
			jobs: jobs(
				named("c3", vcjob.Completed, createdAt(c)),
				named("c1", vcjob.Completed, createdAt(a)),
				named("c2b", vcjob.Completed, createdAt(b)),
				named("c2a", vcjob.Completed, createdAt(b)),
				named("f-uncreated", vcjob.Failed, createdAt(time.Time{})),
				named("f1", vcjob.Failed, createdAt(a)),
				named("t1", vcjob.Terminated, createdAt(a)),
				named("t2", vcjob.Terminated, createdAt(b)),
				named("running", vcjob.Running, createdAt(a)),
			),
			now: now,
			calls: []string{
				"delete jobs ml/c1", "delete jobs ml/c2a", "delete jobs ml/c2b", "delete jobs ml/f1",
				"get cronjobs ml/nightly", "update cronjobs/status ml/nightly",
			},
			events: []record.Event{
				successfulDelete("c1"), successfulDelete("c2a"), successfulDelete("c2b"), successfulDelete("f1"),
				orphanedJob("running", "uid-running"),
			},
			write: true, lastSchedule: &t0015, requeue: idle, skipped: SkipNotDue,
		},
		{
			name:         "both limits unset keep every job",
			cj:           cj(withLimits(nil, nil)),
			jobs:         jobs(named("c1", vcjob.Failed), named("c2", vcjob.Failed)),
			now:          now,
			lastSchedule: &t0015, requeue: idle, skipped: SkipNotDue,
		},
		{
			name:   "an unset limit keeps its kind; limit 0 deletes all of the other",
			cj:     cj(withLimits(nil, new(int32(0)))),
			jobs:   jobs(named("f1", vcjob.Failed, createdAt(a)), named("f2", vcjob.Failed, createdAt(b)), named("ok", vcjob.Completed, finishedAt(c))),
			now:    now,
			calls:  []string{"delete jobs ml/f1", "delete jobs ml/f2", "update cronjobs/status ml/nightly"},
			events: []record.Event{successfulDelete("f1"), successfulDelete("f2")},
			write:  true, lastSchedule: &t0015, lastSuccessful: &c, requeue: idle, skipped: SkipNotDue,
		},
		{
			name:         "a negative limit deletes every job of its kind, then Volcano's sync panics",
			cj:           cj(withLimits(new(int32(-1)), new(int32(1)))),
			jobs:         jobs(named("ok", vcjob.Completed, finishedAt(c))),
			now:          now,
			calls:        []string{"delete jobs ml/ok"},
			events:       []record.Event{successfulDelete("ok")},
			lastSchedule: &t0015, lastSuccessful: &c,
			panics: true, err: "index out of range [1] with length 1", skipped: SkipFailed,
		},
		{
			name:    "a delete that fails is a FailedDelete; the next is deleted all the same",
			cj:      cj(withLimits(new(int32(0)), nil)),
			jobs:    jobs(named("c1", vcjob.Completed, createdAt(a)), named("c2", vcjob.Completed, createdAt(b))),
			now:     now,
			answers: map[int]Answer{0: {Err: errors.New("etcd is down")}},
			calls:   []string{"delete jobs ml/c1", "delete jobs ml/c2", "update cronjobs/status ml/nightly"},
			events:  []record.Event{failedDelete("c1", errors.New("etcd is down")), successfulDelete("c2")},
			write:   true, lastSchedule: &t0015, requeue: idle, skipped: SkipNotDue,
		},
		{
			name:         "a failed delete alone changes no status",
			cj:           cj(withLimits(new(int32(0)), nil), withLastSuccessful(c)),
			jobs:         jobs(named("c1", vcjob.Completed, createdAt(a))),
			now:          now,
			answers:      map[int]Answer{0: {Err: errors.New("etcd is down")}},
			calls:        []string{"delete jobs ml/c1"},
			events:       []record.Event{failedDelete("c1", errors.New("etcd is down"))},
			lastSchedule: &t0015, lastSuccessful: &c, requeue: idle, skipped: SkipNotDue,
		},
	})
}

// RecordDeletedRuns: a deleted job's scheduled time moves
// lastScheduleTime up, so that its run is not started again.
func TestRecordDeletedRuns(t *testing.T) {
	lost := job(t0015, vcjob.Completed) // its status write was lost
	for _, tc := range []struct {
		name   string
		opts   Options
		create bool
	}{
		{"Volcano starts the run again", Options{}, true},
		{"RecordDeletedRuns keeps it run", Options{RecordDeletedRuns: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cj := cronJob(every5, withLastSchedule(t0010), withLimits(new(int32(0)), nil))
			d := DecideWith(cj, jobs(lost), t0015.Add(time.Minute), tc.opts)
			if got := d.JobToCreate() != nil; got != tc.create {
				t.Fatalf("creates %v, want %v: %q", got, tc.create, callStrings(d.Calls))
			}
			if last := d.Status.LastScheduleTime; !tc.create && (last == nil || !last.Time.Equal(t0015)) {
				t.Errorf("lastScheduleTime %v, want %s", d.Status.LastScheduleTime, t0015)
			}
		})
	}
}
