package cronjob

import (
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

// errNoOwner: the API server returned a created job without the
// cronjob's controller reference.
var errNoOwner = errors.New("created job missing owner reference")

// started is how a create ended.
type started int

const (
	// notStarted: no job to add to status.active (the sync goes on to its
	// requeue).
	notStarted started = iota
	// startedJob: the job was created; it joins status.active.
	startedJob
	// adoptedJob: an existing job was taken as the run's
	// (Options.AdoptExistingJob); the status is set already.
	adoptedJob
)

// create creates the job of the run scheduled at t, in the cronjob's
// namespace.
//
//   - Created: a SuccessfulCreate event. A created job the API server
//     returns without the cronjob's controller reference is deleted again
//     and fails the sync.
//   - A job of that name exists (AlreadyExists): Volcano gets the existing
//     job by the name of the job it built, which has no namespace, so the
//     Get fails (NotFound, from the recorded harness's API; an API server
//     refuses a namespaced Get without a namespace) and so does the sync,
//     with no event. With Options.AdoptExistingJob the Get asks the
//     cronjob's namespace and the job is adopted (see adopt).
//   - The namespace is terminating: a NamespaceTerminating warning; any
//     other error: FailedCreate. Both fail the sync.
func (s *syncer) create(t time.Time) (*vcjob.Job, started, error) {
	job := jobFor(s.cj, t, s.opts.local())
	created, err := s.api.createJob(s.cj.Namespace, job)
	switch {
	case apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
		s.record(namespaceTerminating(s.cj.Namespace))
		return nil, notStarted, fmt.Errorf("create job %s/%s: %w", s.cj.Namespace, job.Name, err)
	case apierrors.IsAlreadyExists(err):
		namespace := job.Namespace
		if s.opts.AdoptExistingJob {
			namespace = s.cj.Namespace
		}
		existing, err := s.api.getJob(namespace, job.Name)
		switch {
		case apierrors.IsNotFound(err):
			return nil, notStarted, fmt.Errorf("get job %q after its create conflicted: %w", job.Name, err)
		case err != nil:
			return nil, notStarted, fmt.Errorf("failed to fetch conflicting job: %w", err)
		case s.opts.AdoptExistingJob:
			s.adopt(existing, t)
			return existing, adoptedJob, nil
		case !metav1.IsControlledBy(existing, s.cj):
			s.record(foreignJob(existing.Name, ownerName(existing)))
			return nil, notStarted, nil
		case isFinished(existing):
			return nil, notStarted, nil
		}
		return existing, startedJob, nil
	case err != nil:
		s.record(failedCreate(err))
		return nil, notStarted, fmt.Errorf("create job %s/%s: %w", s.cj.Namespace, job.Name, err)
	}
	if !metav1.IsControlledBy(created, s.cj) {
		_ = s.api.deleteJob(created.Namespace, created.Name) // Volcano only logs a failure
		return nil, notStarted, fmt.Errorf("create job %s/%s: %w", s.cj.Namespace, job.Name, errNoOwner)
	}
	s.record(successfulCreate(created.Name, cronJobKey(s.cj)))
	return created, startedJob, nil
}

// existingRun is the job that is already the run scheduled at t, when an
// option says to look for one: the job of the run's name
// (AdoptExistingJob), or a controlled job whose scheduled-timestamp
// annotation is t (MatchRunsByScheduledTime).
func (s *syncer) existingRun(jobs []*vcjob.Job, t time.Time) *vcjob.Job {
	if s.opts.AdoptExistingJob {
		if j := listerGet(s.listed, s.cj.Namespace, JobName(s.cj.Name, t)); j != nil {
			return j
		}
	}
	if s.opts.MatchRunsByScheduledTime {
		for _, j := range jobs {
			if at, ok := scheduledTime(j); ok && at.Equal(t) {
				return j
			}
		}
	}
	return nil
}

// adopt takes an existing job as the run scheduled at t. A job the cronjob
// does not control is a ForeignJob warning and changes nothing; the
// cronjob's own job moves status.lastScheduleTime to t and, unfinished and
// not listed yet, joins status.active.
func (s *syncer) adopt(job *vcjob.Job, t time.Time) {
	if !metav1.IsControlledBy(job, s.cj) {
		s.record(foreignJob(job.Name, ownerName(job)))
		return
	}
	if !isFinished(job) && !inActive(s.cj.Status.Active, job.UID) {
		s.cj.Status.Active = append(s.cj.Status.Active, jobReference(job))
	}
	s.cj.Status.LastScheduleTime = &metav1.Time{Time: t}
	s.changed = true
}

// ownerName is the name of a job's controller, "none" without one.
func ownerName(job *vcjob.Job) string {
	if ref := metav1.GetControllerOfNoCopy(job); ref != nil {
		return ref.Name
	}
	return "none"
}
