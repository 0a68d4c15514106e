package cronjob

import (
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/record"
)

func TestCheckActive(t *testing.T) {
	now := t0015.Add(time.Minute)
	idle := requeue(4*time.Minute + delta)
	cj := func(opts ...func(*vcjob.CronJob)) *vcjob.CronJob {
		return cronJob(every5, append([]func(*vcjob.CronJob){withLastSchedule(t0015)}, opts...)...)
	}
	running := named("running", vcjob.Running)
	elsewhere := named("elsewhere", vcjob.Running, inNamespace("other"), ownedBy())
	runSyncCases(t, []syncCase{
		{
			name:   "an unfinished job of the cronjob's not in status.active is an OrphanedJob, one Get of the cronjob each",
			cj:     cj(),
			jobs:   jobs(running, named("pending", ""), named("aborted", vcjob.Aborted), named("done", vcjob.Completed, finishedAt(t0010))),
			now:    now,
			calls:  []string{"get cronjobs ml/nightly", "get cronjobs ml/nightly", "get cronjobs ml/nightly", "update cronjobs/status ml/nightly"},
			events: []record.Event{orphanedJob("running", "uid-running"), orphanedJob("pending", "uid-pending"), orphanedJob("aborted", "uid-aborted")},
			write:  true, lastSchedule: &t0015, lastSuccessful: &t0010, requeue: idle, skipped: SkipNotDue,
		},
		{
			name:         "a job the cronjob does not control is no orphan",
			cj:           cj(),
			jobs:         jobs(named("deployment's", vcjob.Running, ownedBy(controllerRef("apps/v1", "Deployment", "nightly", "cj-uid")))),
			now:          now,
			lastSchedule: &t0015, requeue: idle, skipped: SkipNotDue,
		},
		{
			name:    "the cronjob as the API server holds it lists the orphan: the rest of the check works on that copy",
			cj:      cj(withActive(ref("gone", "uid-gone"))),
			jobs:    jobs(running),
			now:     now,
			answers: map[int]Answer{0: {CronJob: cronJob(every5, withActive(ref("running", "uid-running"), ref("gone2", "uid-gone2")))}},
			calls:   []string{"get cronjobs ml/nightly", "update cronjobs/status ml/nightly"},
			events:  []record.Event{staleReferenceGone("gone2", "uid-gone2")},
			active:  []string{"gone"}, write: true, lastSchedule: &t0015, requeue: idle, skipped: SkipNotDue,
		},
		{
			name:    "a failed Get of the cronjob fails the sync",
			cj:      cj(),
			jobs:    jobs(running),
			now:     now,
			answers: map[int]Answer{0: {Err: errors.New("connection refused")}},
			calls:   []string{"get cronjobs ml/nightly"},
			err:     "connection refused", lastSchedule: &t0015, skipped: SkipFailed,
		},
		{
			name: "references to a missing job, and to a job of another UID, are StaleReferences and leave the list",
			cj:   cj(withActive(ref("gone", "uid-gone"), ref("running", "uid-old"))),
			jobs: jobs(running),
			now:  now,
			// uid-running is not listed: "running" is an orphan too. The
			// second entry moves into the first's place when that leaves,
			// but the loop reads the copy of it left at the end.
			calls: []string{"get cronjobs ml/nightly", "update cronjobs/status ml/nightly"},
			events: []record.Event{
				orphanedJob("running", "uid-running"),
				staleReferenceGone("gone", "uid-gone"),
				staleReferenceUID("running", "uid-old", "uid-running"),
			},
			write: true, lastSchedule: &t0015, requeue: idle, skipped: SkipNotDue,
		},
		{
			name:   "a reference of another UID after a kept one",
			cj:     cj(withActive(ref("running", "uid-running"), ref("running", "uid-old"))),
			jobs:   jobs(running),
			now:    now,
			calls:  []string{"update cronjobs/status ml/nightly"},
			events: []record.Event{staleReferenceUID("running", "uid-old", "uid-running")},
			active: []string{"running"}, write: true, lastSchedule: &t0015, requeue: idle, skipped: SkipNotDue,
		},
		{
			name:   "a reference without a UID to a job is a StaleReference that stays (removal is by UID)",
			cj:     cj(withActive(ref("running", ""))),
			jobs:   jobs(running),
			now:    now,
			calls:  []string{"get cronjobs ml/nightly", "update cronjobs/status ml/nightly"},
			events: []record.Event{orphanedJob("running", "uid-running"), staleReferenceUID("running", "", "uid-running")},
			active: []string{"running"}, write: true, lastSchedule: &t0015, requeue: idle, skipped: SkipNotDue,
		},
		{
			name:   "a reference to a job of its UID in another namespace, not the cronjob's, stays",
			cj:     cj(withActive(refOf(elsewhere))),
			jobs:   jobs(elsewhere),
			now:    now,
			active: []string{"elsewhere"}, lastSchedule: &t0015, requeue: idle, skipped: SkipNotDue,
		},
		{
			name: "a reference without a namespace finds no job",
			cj: cj(withActive(func() corev1.ObjectReference {
				r := ref("running", "uid-running-elsewhere")
				r.Namespace = ""
				return r
			}())),
			jobs:   jobs(),
			now:    now,
			calls:  []string{"update cronjobs/status ml/nightly"},
			events: []record.Event{staleReferenceGone("running", "uid-running-elsewhere")},
			write:  true, lastSchedule: &t0015, requeue: idle, skipped: SkipNotDue,
		},
		{
			name:   "a reference with the UID of a controlled job is not looked up, whatever its name",
			cj:     cj(withActive(ref("renamed", "uid-running"))),
			jobs:   jobs(running),
			now:    now,
			active: []string{"renamed"}, lastSchedule: &t0015, requeue: idle, skipped: SkipNotDue,
		},
		{
			name:   "a controlled job without a UID makes every reference without one look controlled",
			cj:     cj(withActive(ref("gone", ""))),
			jobs:   jobs(withoutUID(named("no-uid", vcjob.Completed))),
			now:    now,
			calls:  []string{"update cronjobs/status ml/nightly"},
			active: []string{"gone"}, write: true, lastSchedule: &t0015, requeue: idle, skipped: SkipNotDue,
		},
		{
			name:   "two stale references in a row: the second is skipped",
			cj:     cj(withActive(ref("a", "uid-a"), ref("b", "uid-b"), ref("running", "uid-running"))),
			jobs:   jobs(running),
			now:    now,
			calls:  []string{"update cronjobs/status ml/nightly"},
			events: []record.Event{staleReferenceGone("a", "uid-a")},
			active: []string{"b", "running"}, write: true, lastSchedule: &t0015, requeue: idle, skipped: SkipNotDue,
		},
		{
			name:   "VisitEveryActiveReference: both leave",
			cj:     cj(withActive(ref("a", "uid-a"), ref("b", "uid-b"), ref("running", "uid-running"))),
			jobs:   jobs(running),
			now:    now,
			opts:   Options{VisitEveryActiveReference: true},
			calls:  []string{"update cronjobs/status ml/nightly"},
			events: []record.Event{staleReferenceGone("a", "uid-a"), staleReferenceGone("b", "uid-b")},
			active: []string{"running"}, write: true, lastSchedule: &t0015, requeue: idle, skipped: SkipNotDue,
		},
		{
			name: "stale references at the end: the last is still seen, from the copy left behind",
			cj:   cj(withActive(ref("running", "uid-running"), ref("a", "uid-a"), ref("b", "uid-b"))),
			jobs: jobs(running),
			now:  now,
			// a leaves and b moves into its place; the loop's third turn
			// reads the copy of b left at the end, and b leaves too.
			calls:  []string{"update cronjobs/status ml/nightly"},
			events: []record.Event{staleReferenceGone("a", "uid-a"), staleReferenceGone("b", "uid-b")},
			active: []string{"running"}, write: true, lastSchedule: &t0015, requeue: idle, skipped: SkipNotDue,
		},
	})
}

func withoutUID(j *vcjob.Job) *vcjob.Job {
	j.UID = ""
	return j
}
