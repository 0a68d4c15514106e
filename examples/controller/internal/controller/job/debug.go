package job

import (
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"time"

	"github.com/vcjob/vcjob"
	jobcache "github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/request"
)

// JobView is what the controller holds for one job, the answer to "why
// does it not move": the job's status as the cache has it (a held-back
// status write is usually in it, and is laid back over the informer's
// copy before the job's next step; StatusHeld says one waits), the pods
// the cache counts for it, its PodGroup's phase, its worker's queue, and
// what that worker holds back for the job.
type JobView struct {
	Job        string         `json:"job"`
	Phase      vcjob.JobPhase `json:"phase"`
	Version    int32          `json:"version"`
	RetryCount int32          `json:"retryCount"`
	// Status is the cached status; its counts are those of the last step
	// that wrote it, not recounted from Pods.
	Status vcjob.JobStatus `json:"status"`
	Pods   []PodView       `json:"pods"`
	// PodGroup is the phase of the job's PodGroup as the lister holds it
	// ("(no phase)" for a new one), or "none": a job waiting for its
	// PodGroup's admission moves only when a sync finds it Inqueue.
	PodGroup string `json:"podGroup"`
	// Worker is the job's worker; WorkerQueue the items its queue holds
	// (every job's, not only this one's).
	Worker      int `json:"worker"`
	WorkerQueue int `json:"workerQueue"`
	// What the worker holds back for the job: Retrying is its failed
	// request being retried (--ordered-retries), Parked the requests
	// waiting behind it, Waiting the requests waiting for pods the
	// controller created to be shown, StatusHeld a status write held back
	// (--coalesce-status). WorkerBusy: the worker was handling an item
	// for the whole second the view waited, and these are not filled in.
	Retrying   string `json:"retrying,omitempty"`
	Parked     int    `json:"parked,omitempty"`
	Waiting    int    `json:"waiting,omitempty"`
	StatusHeld bool   `json:"statusHeld,omitempty"`
	WorkerBusy bool   `json:"workerBusy,omitempty"`
}

// PodView is one cached pod of a job.
type PodView struct {
	Name  string `json:"name"`
	Task  string `json:"task"`
	Phase string `json:"phase"`
	// Deleting: the pod has a deletion timestamp, and counts as
	// terminating.
	Deleting bool `json:"deleting,omitempty"`
	// JobVersion is the job version the pod was created for.
	JobVersion string `json:"jobVersion"`
}

// ViewJob returns the controller's view of the job namespace/name.
func (c *Controller) ViewJob(namespace, name string) (JobView, error) {
	ji, err := c.jobs.Lease(namespace, name)
	if err != nil {
		return JobView{}, err
	}
	defer ji.Release()
	v := JobView{Job: request.JobKey(namespace, name), Phase: ji.Job.Status.State.Phase, Version: ji.Job.Status.Version,
		RetryCount: ji.Job.Status.RetryCount, Status: *ji.Job.Status.DeepCopy(), Pods: []PodView{}}
	for task, p := range ji.Pods() {
		v.Pods = append(v.Pods, PodView{Name: p.Name, Task: task, Phase: string(p.Status.Phase),
			Deleting: p.DeletionTimestamp != nil, JobVersion: p.Annotations[vcjob.JobVersionKey]})
	}
	sort.Slice(v.Pods, func(i, j int) bool { return v.Pods[i].Name < v.Pods[j].Name })
	c.viewPodGroup(ji.Job, &v)
	s := c.shardOf(namespace, name)
	v.Worker, v.WorkerQueue = s.id, s.queue.Len()
	c.viewWorker(s, &v, request.JobKey(namespace, name))
	return v, nil
}

// viewPodGroup fills in the phase of the job's PodGroup.
func (c *Controller) viewPodGroup(job *vcjob.Job, v *JobView) {
	v.PodGroup = "none"
	pg, found, err := c.applier.FindPodGroup(job)
	switch {
	case err != nil:
		v.PodGroup = "unreadable: " + err.Error()
	case found && pg.Status.Phase == "":
		v.PodGroup = "(no phase)"
	case found:
		v.PodGroup = string(pg.Status.Phase)
	}
}

// viewWorker fills in what the worker holds back for the job of key,
// between two of its items: the view tries the worker's lock for a second
// on the controller's clock, never blocking the worker.
func (c *Controller) viewWorker(s *shard, v *JobView, key string) {
	locked := s.mu.TryLock()
	for wait := c.now().Add(time.Second); !locked && c.now().Before(wait); locked = s.mu.TryLock() {
		c.cfg.Clock.Sleep(5 * time.Millisecond)
	}
	if !locked {
		v.WorkerBusy = true
		return
	}
	defer s.mu.Unlock()
	if h := s.held[key]; h != nil {
		v.Retrying, v.Parked = h.failed.Req.String(), len(h.parked)
	}
	v.Waiting = len(s.waiting[key])
	v.StatusHeld = s.statuses.Held(key)
}

// JobViewHandler serves ViewJob as JSON for ?job=namespace/name (404 for
// a job the cache does not hold). The process mounts it with the profiling
// endpoints, at /debug/vcjob/job.
func (c *Controller) JobViewHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		namespace, name := splitKey(r.URL.Query().Get("job"))
		if namespace == "" || name == "" {
			http.Error(w, "want ?job=namespace/name", http.StatusBadRequest)
			return
		}
		v, err := c.ViewJob(namespace, name)
		switch {
		case errors.Is(err, jobcache.ErrNotFound):
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		case err != nil:
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(struct {
			JobView
			At time.Time `json:"at"`
		}{v, c.now()})
	})
}
