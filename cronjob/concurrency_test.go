package cronjob

import (
	"errors"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/record"
)

func TestConcurrency(t *testing.T) {
	// The 00:15 run is due at 00:15.
	now := t0015
	n := JobName("nightly", t0015)
	cj := func(policy vcjob.ConcurrencyPolicy, opts ...func(*vcjob.CronJob)) *vcjob.CronJob {
		return cronJob(every5, append([]func(*vcjob.CronJob){withLastSchedule(t0010), withPolicy(policy)}, opts...)...)
	}
	r1, r2, r3 := named("r1", vcjob.Running), named("r2", vcjob.Running), named("r3", vcjob.Running)
	aborted := named("aborted", vcjob.Aborted)
	elsewhere := named("elsewhere", vcjob.Running, inNamespace("other"), ownedBy())
	next := requeue(5*time.Minute + delta)
	held := requeue(5*time.Minute + delta)
	created := []string{"create jobs ml/" + n, "update cronjobs/status ml/nightly"}
	runSyncCases(t, []syncCase{
		{
			name: "Forbid with an active job holds the run back: no write",
			cj:   cj(vcjob.ForbidConcurrent, withActive(refOf(r1))), jobs: jobs(r1), now: now,
			events: []record.Event{forbidConcurrent()},
			active: []string{"r1"}, lastSchedule: &t0010, requeue: held, due: &t0015, skipped: SkipForbidConcurrent,
		},
		{
			name: "Forbid: an Aborted job is active",
			cj:   cj(vcjob.ForbidConcurrent, withActive(refOf(aborted))), jobs: jobs(aborted), now: now,
			events: []record.Event{forbidConcurrent()},
			active: []string{"aborted"}, lastSchedule: &t0010, requeue: held, due: &t0015, skipped: SkipForbidConcurrent,
		},
		{
			name: "Forbid: a stale entry the check could not remove (no UID) holds the run back too",
			cj:   cj(vcjob.ForbidConcurrent, withActive(ref("gone", ""))), now: now,
			calls:  []string{"update cronjobs/status ml/nightly"},
			events: []record.Event{staleReferenceGone("gone", ""), forbidConcurrent()},
			active: []string{"gone"}, write: true, lastSchedule: &t0010, requeue: held, due: &t0015, skipped: SkipForbidConcurrent,
		},
		{
			name: "Forbid once the active job finished: the run starts",
			cj:   cj(vcjob.ForbidConcurrent, withActive(refOf(r1))), jobs: jobs(named("r1", vcjob.Completed, finishedAt(t0010))), now: now,
			calls:  created,
			events: []record.Event{sawCompletedJob("r1"), successfulCreate(n, "ml/nightly")},
			active: []string{n}, write: true, lastSchedule: &t0015, lastSuccessful: &t0010, requeue: next, due: &t0015,
		},
		{
			name: "Allow starts the run beside the active ones",
			cj:   cj(vcjob.AllowConcurrent, withActive(refOf(r1))), jobs: jobs(r1), now: now,
			calls:  created,
			events: []record.Event{successfulCreate(n, "ml/nightly")},
			active: []string{"r1", n}, write: true, lastSchedule: &t0015, requeue: next, due: &t0015,
		},
		{
			name: "an empty or unknown policy is Allow",
			cj:   cj("Sometimes", withActive(refOf(r1))), jobs: jobs(r1), now: now,
			calls:  created,
			events: []record.Event{successfulCreate(n, "ml/nightly")},
			active: []string{"r1", n}, write: true, lastSchedule: &t0015, requeue: next, due: &t0015,
		},
		{
			name: "Replace gets and deletes the active job, then starts the run",
			cj:   cj(vcjob.ReplaceConcurrent, withActive(refOf(r1))), jobs: jobs(r1), now: now,
			calls:  append([]string{"get jobs ml/r1", "delete jobs ml/r1"}, created...),
			events: []record.Event{replaceConcurrent(), successfulDelete("r1"), successfulCreate(n, "ml/nightly")},
			active: []string{n}, write: true, lastSchedule: &t0015, requeue: next, due: &t0015,
		},
		{
			name: "Replace with nothing active just starts the run",
			cj:   cj(vcjob.ReplaceConcurrent), now: now,
			calls:  created,
			events: []record.Event{successfulCreate(n, "ml/nightly")},
			active: []string{n}, write: true, lastSchedule: &t0015, requeue: next, due: &t0015,
		},
		{
			name: "Replace with three active jobs skips the second, and fails on a second Get of the third",
			cj:   cj(vcjob.ReplaceConcurrent, withActive(refOf(r1), refOf(r2), refOf(r3))), jobs: jobs(r1, r2, r3), now: now,
			calls: []string{"get jobs ml/r1", "delete jobs ml/r1", "get jobs ml/r3", "delete jobs ml/r3", "get jobs ml/r3"},
			events: []record.Event{
				replaceConcurrent(), successfulDelete("r1"), successfulDelete("r3"),
				failedGet(apierrors.NewNotFound(jobsResource, "r3")),
			},
			active: []string{"r2"}, lastSchedule: &t0010, err: `"r3" not found`, due: &t0015, skipped: SkipFailed,
		},
		{
			name: "VisitEveryActiveReference: Replace deletes all three",
			cj:   cj(vcjob.ReplaceConcurrent, withActive(refOf(r1), refOf(r2), refOf(r3))), jobs: jobs(r1, r2, r3), now: now,
			opts:  Options{VisitEveryActiveReference: true},
			calls: append([]string{"get jobs ml/r1", "delete jobs ml/r1", "get jobs ml/r2", "delete jobs ml/r2", "get jobs ml/r3", "delete jobs ml/r3"}, created...),
			events: []record.Event{
				replaceConcurrent(), successfulDelete("r1"), successfulDelete("r2"), successfulDelete("r3"),
				successfulCreate(n, "ml/nightly"),
			},
			active: []string{n}, write: true, lastSchedule: &t0015, requeue: next, due: &t0015,
		},
		{
			name: "Replace: an entry whose job is gone, kept for want of a UID, fails the Get (FailedGet)",
			cj:   cj(vcjob.ReplaceConcurrent, withActive(ref("gone", ""))), now: now,
			calls: []string{"get jobs ml/gone"},
			events: []record.Event{
				staleReferenceGone("gone", ""), replaceConcurrent(),
				failedGet(apierrors.NewNotFound(jobsResource, "gone")),
			},
			active: []string{"gone"}, lastSchedule: &t0010, err: `"gone" not found`, due: &t0015, skipped: SkipFailed,
		},
		{
			name: "Replace deletes a job the entry names in another namespace, which the cronjob does not control",
			cj:   cj(vcjob.ReplaceConcurrent, withActive(refOf(elsewhere))), jobs: jobs(elsewhere), now: now,
			calls:  append([]string{"get jobs other/elsewhere", "delete jobs other/elsewhere"}, created...),
			events: []record.Event{replaceConcurrent(), successfulDelete("elsewhere"), successfulCreate(n, "ml/nightly")},
			active: []string{n}, write: true, lastSchedule: &t0015, requeue: next, due: &t0015,
		},
		{
			name: "Replace: a delete that fails is a FailedDelete and fails the sync",
			cj:   cj(vcjob.ReplaceConcurrent, withActive(refOf(r1))), jobs: jobs(r1), now: now,
			answers: map[int]Answer{1: {Err: errors.New("etcd is down")}},
			calls:   []string{"get jobs ml/r1", "delete jobs ml/r1"},
			events:  []record.Event{replaceConcurrent(), failedDelete("r1", errors.New("etcd is down"))},
			active:  []string{"r1"}, lastSchedule: &t0010, err: "could not replace job ml/r1", due: &t0015, skipped: SkipFailed,
		},
	})
}
