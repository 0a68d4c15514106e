package cronjob

import (
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/record"
)

func TestCreate(t *testing.T) {
	// The 00:15 run is due at 00:15.
	now := t0015
	n := JobName("nightly", t0015)
	cj := func(opts ...func(*vcjob.CronJob)) *vcjob.CronJob {
		return cronJob(every5, append([]func(*vcjob.CronJob){withLastSchedule(t0010)}, opts...)...)
	}
	next := requeue(5*time.Minute + delta)
	existing := job(t0015, vcjob.Running)
	finished := job(t0015, vcjob.Completed, finishedAt(t0015.Add(time.Second)))
	foreign := job(t0015, vcjob.Running, ownedBy(controllerRef(vcjob.APIVersion, vcjob.CronJobKind, "other", "other-uid")))
	terminating := &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: 403, Reason: metav1.StatusReasonForbidden,
		Message: "namespace ml is being terminated",
		Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: corev1.NamespaceTerminatingCause}}},
	}}
	runSyncCases(t, []syncCase{
		{
			name: "the due run's job exists: the create conflicts, the Get of it asks no namespace, the sync fails",
			cj:   cj(), jobs: jobs(existing), now: now,
			calls:        []string{"get cronjobs ml/nightly", "create jobs ml/" + n, "get jobs /" + n},
			events:       []record.Event{orphanedJob(n, "uid-"+n)},
			lastSchedule: &t0010, err: `"` + n + `" not found`, due: &t0015, skipped: SkipFailed,
		},
		{
			name: "the same with the job finished: no status write for lastSuccessfulTime either",
			cj:   cj(), jobs: jobs(finished), now: now,
			calls:        []string{"create jobs ml/" + n, "get jobs /" + n},
			lastSchedule: &t0010, lastSuccessful: timePtr(t0015.Add(time.Second)), err: "not found", due: &t0015, skipped: SkipFailed,
		},
		{
			name: "AdoptExistingJob: the running job becomes the run's",
			cj:   cj(), jobs: jobs(existing), now: now, opts: Options{AdoptExistingJob: true},
			calls:  []string{"get cronjobs ml/nightly", "update cronjobs/status ml/nightly"},
			events: []record.Event{orphanedJob(n, "uid-"+n)},
			active: []string{n}, write: true, lastSchedule: &t0015, requeue: next, due: &t0015, skipped: SkipAlreadyExists,
		},
		{
			name: "AdoptExistingJob: a finished job counts as the run, and stays out of status.active",
			cj:   cj(), jobs: jobs(finished), now: now, opts: Options{AdoptExistingJob: true},
			calls: []string{"update cronjobs/status ml/nightly"},
			write: true, lastSchedule: &t0015, lastSuccessful: timePtr(t0015.Add(time.Second)), requeue: next, due: &t0015, skipped: SkipAlreadyExists,
		},
		{
			name: "AdoptExistingJob: a job of the run's name that another owner controls is a ForeignJob; the run waits",
			cj:   cj(), jobs: jobs(foreign), now: now, opts: Options{AdoptExistingJob: true},
			events:       []record.Event{foreignJob(n, "other")},
			lastSchedule: &t0010, requeue: next, due: &t0015, skipped: SkipAlreadyExists,
		},
		{
			name: "AdoptExistingJob: a conflict the lister did not foresee gets the job in the cronjob's namespace",
			cj:   cj(), now: now, opts: Options{AdoptExistingJob: true},
			answers: map[int]Answer{0: {Err: apierrors.NewAlreadyExists(jobsResource, n)}, 1: {Job: existing}},
			calls:   []string{"create jobs ml/" + n, "get jobs ml/" + n, "update cronjobs/status ml/nightly"},
			active:  []string{n}, write: true, lastSchedule: &t0015, requeue: next, due: &t0015, skipped: SkipAlreadyExists,
		},
		{
			name: "MatchRunsByScheduledTime: a job of another name annotated with the due time is the run's",
			cj:   cj(), now: now, opts: Options{MatchRunsByScheduledTime: true},
			jobs:   jobs(job(t0015, vcjob.Running, func(j *vcjob.Job) { j.Name = "renamed" })),
			calls:  []string{"get cronjobs ml/nightly", "update cronjobs/status ml/nightly"},
			events: []record.Event{orphanedJob("renamed", "uid-"+n)},
			active: []string{"renamed"}, write: true, lastSchedule: &t0015, requeue: next, due: &t0015, skipped: SkipAlreadyExists,
		},
		{
			name: "without it that job is an orphan, and the run starts",
			cj:   cj(), now: now,
			jobs:   jobs(job(t0015, vcjob.Running, func(j *vcjob.Job) { j.Name = "renamed" })),
			calls:  []string{"get cronjobs ml/nightly", "create jobs ml/" + n, "update cronjobs/status ml/nightly"},
			events: []record.Event{orphanedJob("renamed", "uid-"+n), successfulCreate(n, "ml/nightly")},
			active: []string{n}, write: true, lastSchedule: &t0015, requeue: next, due: &t0015,
		},
		{
			name: "a conflict whose Get finds the cronjob's unfinished job: Volcano takes it as created",
			cj:   cj(), now: now,
			answers: map[int]Answer{0: {Err: apierrors.NewAlreadyExists(jobsResource, n)}, 1: {Job: existing}},
			calls:   []string{"create jobs ml/" + n, "get jobs /" + n, "update cronjobs/status ml/nightly"},
			active:  []string{n}, write: true, lastSchedule: &t0015, requeue: next, due: &t0015,
		},
		{
			name: "a conflict whose Get finds another owner's job: ForeignJob, the run waits",
			cj:   cj(), now: now,
			answers:      map[int]Answer{0: {Err: apierrors.NewAlreadyExists(jobsResource, n)}, 1: {Job: foreign}},
			calls:        []string{"create jobs ml/" + n, "get jobs /" + n},
			events:       []record.Event{foreignJob(n, "other")},
			lastSchedule: &t0010, requeue: next, due: &t0015, skipped: SkipAlreadyExists,
		},
		{
			name: "a conflict whose Get finds the cronjob's finished job: the run waits",
			cj:   cj(), now: now,
			answers:      map[int]Answer{0: {Err: apierrors.NewAlreadyExists(jobsResource, n)}, 1: {Job: finished}},
			calls:        []string{"create jobs ml/" + n, "get jobs /" + n},
			lastSchedule: &t0010, requeue: next, due: &t0015, skipped: SkipAlreadyExists,
		},
		{
			name: "a conflict whose Get fails otherwise fails the sync",
			cj:   cj(), now: now,
			answers:      map[int]Answer{0: {Err: apierrors.NewAlreadyExists(jobsResource, n)}, 1: {Err: apierrors.NewBadRequest("the server rejected our request")}},
			calls:        []string{"create jobs ml/" + n, "get jobs /" + n},
			lastSchedule: &t0010, err: "failed to fetch conflicting job", due: &t0015, skipped: SkipFailed,
		},
		{
			name: "a terminating namespace: NamespaceTerminating, the sync fails",
			cj:   cj(), now: now,
			answers:      map[int]Answer{0: {Err: terminating}},
			calls:        []string{"create jobs ml/" + n},
			events:       []record.Event{namespaceTerminating("ml")},
			lastSchedule: &t0010, err: "being terminated", due: &t0015, skipped: SkipFailed,
		},
		{
			name: "any other create error: FailedCreate, the sync fails",
			cj:   cj(), now: now,
			answers:      map[int]Answer{0: {Err: errors.New("admission webhook denied the request")}},
			calls:        []string{"create jobs ml/" + n},
			events:       []record.Event{failedCreate(errors.New("admission webhook denied the request"))},
			lastSchedule: &t0010, err: "admission webhook denied", due: &t0015, skipped: SkipFailed,
		},
		{
			name: "a created job returned without the cronjob's controller reference is deleted again; the sync fails",
			cj:   cj(), now: now,
			answers:      map[int]Answer{0: {Job: job(t0015, vcjob.Pending, ownedBy())}},
			calls:        []string{"create jobs ml/" + n, "delete jobs ml/" + n},
			lastSchedule: &t0010, err: "missing owner reference", due: &t0015, skipped: SkipFailed,
		},
	})
}

// The created job's UID, from the create's answer, goes into
// status.active; a job the answer shows listed already is not listed again.
func TestCreateAnswerUID(t *testing.T) {
	cj := cronJob(every5, withLastSchedule(t0010))
	d := Decide(cj, nil, t0015)
	if len(d.Calls) != 2 || d.Calls[0].Verb != VerbCreate {
		t.Fatalf("calls %q", callStrings(d.Calls))
	}
	created := d.JobToCreate().DeepCopy()
	created.Namespace, created.UID, created.ResourceVersion = "ml", "uid-api", "7"
	d = d.Answer(0, Answer{Job: created})
	want := corev1.ObjectReference{Kind: vcjob.JobKind, APIVersion: vcjob.APIVersion, Namespace: "ml", Name: created.Name, UID: "uid-api", ResourceVersion: "7"}
	if len(d.Status.Active) != 1 || d.Status.Active[0] != want {
		t.Errorf("active %+v, want %+v", d.Status.Active, want)
	}

	// An API server that answers with the UID of a job already listed (a
	// job of another name): nothing is added, the run counts as existing.
	other := named("other", vcjob.Running)
	other.UID = "uid-api"
	listed := cronJob(every5, withLastSchedule(t0010), withActive(refOf(other)))
	d = Decide(listed, jobs(other), t0015)
	if d.Calls[0].Verb != VerbCreate {
		t.Fatalf("calls %q", callStrings(d.Calls))
	}
	d = d.Answer(0, Answer{Job: created})
	if got := names(d.Status.Active); len(got) != 1 || got[0] != "other" || d.WriteStatus || d.Skipped != SkipAlreadyExists {
		t.Errorf("active %v, written %v, skipped %q", got, d.WriteStatus, d.Skipped)
	}
}
