package cronjob

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/vcjob/vcjob"
)

// Verb is what an API call does.
type Verb string

// The verbs of a sync's calls.
const (
	VerbGet    Verb = "get"
	VerbCreate Verb = "create"
	VerbDelete Verb = "delete"
	// VerbUpdate is the status write (resource cronjobs/status).
	VerbUpdate Verb = "update"
)

// The resources a sync calls.
const (
	ResourceJobs           = "jobs"
	ResourceCronJobs       = "cronjobs"
	ResourceCronJobsStatus = "cronjobs/status"
)

// Call is one API call of a sync.
type Call struct {
	Verb      Verb
	Resource  string // ResourceJobs, ResourceCronJobs or ResourceCronJobsStatus
	Namespace string
	Name      string
	// Job is the job a create passes, exactly as Volcano builds it: it
	// has no namespace (the call's Namespace is where it goes) and no
	// apiVersion or kind.
	Job *vcjob.Job
	// DeleteOptions is what a delete sends: Volcano sends empty ones.
	DeleteOptions *metav1.DeleteOptions
}

// String is the call as "<verb> <resource> <namespace>/<name>".
func (c Call) String() string {
	return fmt.Sprintf("%s %s %s/%s", c.Verb, c.Resource, c.Namespace, c.Name)
}

// Answer is what the API server answered a call.
type Answer struct {
	// Err is the call's error, nil when it succeeded.
	Err error
	// Job is the job a successful job Get or Create returned. For a
	// Create, nil is the job as passed; the job the API server returns
	// carries the UID that goes into status.active.
	Job *vcjob.Job
	// CronJob is the cronjob a successful cronjob Get returned.
	CronJob *vcjob.CronJob
}

// errAnswer is what Answer reports for an answer it cannot use.
var errAnswer = errors.New("unusable answer")

// jobsResource names jobs in the API's errors.
var jobsResource = schema.GroupResource{Group: vcjob.GroupName, Resource: ResourceJobs}

type objectKey struct{ namespace, name string }

// cluster is the API server as one sync sees it. By default it agrees with
// the lister: it holds the cronjob and every listed job, less those the
// sync deletes, plus the one it creates. A get without a namespace finds
// nothing (no namespaced object has an empty namespace). answers, by call
// index, override what it would answer.
type cluster struct {
	cronJob *vcjob.CronJob
	jobs    map[objectKey]*vcjob.Job
	answers map[int]Answer
	calls   []Call
}

func newCluster(cj *vcjob.CronJob, listed []*vcjob.Job, answers map[int]Answer) *cluster {
	c := &cluster{cronJob: cj, jobs: make(map[objectKey]*vcjob.Job, len(listed)), answers: answers}
	for _, j := range listed {
		if j != nil {
			c.jobs[objectKey{j.Namespace, j.Name}] = j
		}
	}
	return c
}

// answer records the call and returns its given answer, if there is one.
func (c *cluster) answer(call Call) (Answer, bool) {
	i := len(c.calls)
	c.calls = append(c.calls, call)
	a, ok := c.answers[i]
	return a, ok
}

func (c *cluster) getJob(namespace, name string) (*vcjob.Job, error) {
	if a, ok := c.answer(Call{Verb: VerbGet, Resource: ResourceJobs, Namespace: namespace, Name: name}); ok {
		if a.Err == nil && a.Job == nil {
			return nil, fmt.Errorf("%w: call %d (get job %s/%s) succeeded without the job", errAnswer, len(c.calls)-1, namespace, name)
		}
		return a.Job, a.Err
	}
	if j, ok := c.jobs[objectKey{namespace, name}]; ok && namespace != "" {
		return j, nil
	}
	return nil, apierrors.NewNotFound(jobsResource, name)
}

func (c *cluster) getCronJob(namespace, name string) (*vcjob.CronJob, error) {
	if a, ok := c.answer(Call{Verb: VerbGet, Resource: ResourceCronJobs, Namespace: namespace, Name: name}); ok {
		if a.Err == nil && a.CronJob == nil {
			return nil, fmt.Errorf("%w: call %d (get cronjob %s/%s) succeeded without the cronjob", errAnswer, len(c.calls)-1, namespace, name)
		}
		return a.CronJob, a.Err
	}
	return c.cronJob.DeepCopy(), nil
}

func (c *cluster) deleteJob(namespace, name string) error {
	key := objectKey{namespace, name}
	if a, ok := c.answer(Call{Verb: VerbDelete, Resource: ResourceJobs, Namespace: namespace, Name: name, DeleteOptions: &metav1.DeleteOptions{}}); ok {
		if a.Err == nil {
			delete(c.jobs, key)
		}
		return a.Err
	}
	if _, ok := c.jobs[key]; !ok {
		return apierrors.NewNotFound(jobsResource, name)
	}
	delete(c.jobs, key)
	return nil
}

// createJob creates job in namespace. A created job comes back with its
// namespace set; the UID, resourceVersion and creation time an API server
// would give it are unknown unless an answer says them.
func (c *cluster) createJob(namespace string, job *vcjob.Job) (*vcjob.Job, error) {
	key := objectKey{namespace, job.Name}
	a, ok := c.answer(Call{Verb: VerbCreate, Resource: ResourceJobs, Namespace: namespace, Name: job.Name, Job: job.DeepCopy()})
	if !ok {
		if _, exists := c.jobs[key]; exists {
			return nil, apierrors.NewAlreadyExists(jobsResource, job.Name)
		}
	} else if a.Err != nil {
		return nil, a.Err
	}
	created := a.Job
	if created == nil {
		created = job.DeepCopy()
		created.Namespace = namespace
	}
	c.jobs[key] = created
	return created, nil
}

func (c *cluster) updateStatus(cj *vcjob.CronJob) error {
	a, _ := c.answer(Call{Verb: VerbUpdate, Resource: ResourceCronJobsStatus, Namespace: cj.Namespace, Name: cj.Name})
	return a.Err
}
