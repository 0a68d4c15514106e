package cache

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/jobinfo"
	"github.com/vcjob/vcjob/request"
)

// Errors the cache returns; they are wrapped with the job or pod they are
// about, so test them with errors.Is.
var (
	ErrNotFound      = errors.New("not found")
	ErrExists        = errors.New("already exists")
	ErrStale         = errors.New("older resourceVersion than cached")
	ErrNotJobPod     = errors.New("not a pod of a vcjob")
	ErrBadVersion    = errors.New("resourceVersion is not an integer")
	ErrNoJobInObject = errors.New("nil object")
	// ErrOtherJob: under behavior.CacheByJobUID, the pod's
	// controller is another job of the same namespace and name (an earlier
	// one, deleted): the cache does not file it under the cached job.
	ErrOtherJob = errors.New("pod of another job of that name")
)

// ref names a job; the cache's map is keyed by it rather than by the
// namespace/name string, which would cost an allocation per event.
type ref struct{ namespace, name string }

// refOf parses a namespace/name key.
func refOf(key string) ref {
	ns, name, _ := strings.Cut(key, "/")
	return ref{ns, name}
}

func (r ref) String() string { return request.JobKey(r.namespace, r.name) }

type entry struct {
	info    *jobinfo.Info
	deleted bool
}

// Cache holds jobs and their pods by namespace/name. It is safe for
// concurrent use.
//
// Jobs and pods going in are kept as they are, as an informer's store
// keeps them: the caller hands them over and must not change them
// afterwards (informer objects are never changed in place). A pod update
// costs O(log pods), or O(1) without allocating while no lease of the job
// is out, and keeps the job's counts (jobinfo.TaskPods) up to date.
//
// Get returns a snapshot in O(1): a JobInfo built from persistent maps,
// which stays as it was while the cache moves on, and which its caller may
// change (AddPod, DeletePod, SetJob) without touching the cache. The job
// and pods it holds are shared and read-only. Lease is Get for a snapshot
// given back once read; while none is out, a pod update costs no
// allocation at all.
type Cache struct {
	// Behavior is the embedder's behaviour (the corrections it asks for),
	// with each job's behavior.Annotation on top: the requests a PodGroup's
	// phase change raises carry the job's version under
	// PodGroupRequestsCurrentVersion, and pods are filed by their job's
	// UID under CacheByJobUID (see also the event handlers). Set it before
	// the cache is used; the zero value derives requests as Volcano does.
	Behavior behavior.Set

	mu   sync.RWMutex
	jobs map[ref]*entry
}

// New returns an empty cache.
func New() *Cache { return &Cache{jobs: map[ref]*entry{}} }

// Add caches a new job. A placeholder holding pods that arrived first is
// filled in; a job that is already cached is an error.
func (c *Cache) Add(job *vcjob.Job) error {
	return c.withJob(job, func(key ref, e *entry) error {
		if e != nil && e.info.Job != nil && !e.deleted {
			return fmt.Errorf("cache: add job %s: %w", key, ErrExists)
		}
		if e == nil {
			e = &entry{info: &jobinfo.Info{Namespace: job.Namespace, Name: job.Name}}
			c.jobs[key] = e
		}
		e.info.SetJob(job)
		e.deleted = false
		c.dropOtherJobs(e.info)
		return nil
	})
}

// Update replaces a cached job, refusing one whose resourceVersion is older
// than the cached one's (an informer may deliver a stale object after a
// newer one was cached from a write).
func (c *Cache) Update(job *vcjob.Job) error {
	return c.withJob(job, func(key ref, e *entry) error {
		if e == nil || e.info.Job == nil {
			return fmt.Errorf("cache: update job %s: %w", key, ErrNotFound)
		}
		if older, err := olderVersion(job.ResourceVersion, e.info.Job.ResourceVersion); err != nil {
			return fmt.Errorf("cache: update job %s: %w", key, err)
		} else if older {
			return fmt.Errorf("cache: update job %s: resourceVersion %s, cached %s: %w", key, job.ResourceVersion, e.info.Job.ResourceVersion, ErrStale)
		}
		replaced := e.info.Job.UID != job.UID
		e.info.SetJob(job)
		if replaced {
			// A relist can show a job created again under the name as an
			// update of the one it replaced.
			c.dropOtherJobs(e.info)
		}
		return nil
	})
}

// withJob runs fn under the write lock with job's key and entry (nil when
// the cache has none); a nil job is ErrNoJobInObject.
func (c *Cache) withJob(job *vcjob.Job, fn func(key ref, e *entry) error) error {
	if job == nil {
		return ErrNoJobInObject
	}
	key := ref{job.Namespace, job.Name}
	c.mu.Lock()
	defer c.mu.Unlock()
	return fn(key, c.jobs[key])
}

// jobHas reports whether the job cached under key, not deleted, is
// decided with id on (c.Behavior with the job's annotation).
func (c *Cache) jobHas(key ref, id behavior.ID) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e := c.jobs[key]
	return e != nil && e.info.Job != nil && !e.deleted && c.Behavior.For(e.info.Job).Has(id)
}

// olderVersion compares resourceVersions as integers, as Volcano does.
func olderVersion(next, cached string) (bool, error) {
	n, err := strconv.ParseUint(next, 10, 64)
	if err != nil {
		return false, fmt.Errorf("%q: %w", next, ErrBadVersion)
	}
	o, err := strconv.ParseUint(cached, 10, 64)
	if err != nil {
		return false, fmt.Errorf("cached %q: %w", cached, ErrBadVersion)
	}
	return n < o, nil
}

// Delete marks a job deleted. Its info stays while it has pods, so that the
// events of pods going away still find it; Droppable reports when it may go.
func (c *Cache) Delete(job *vcjob.Job) error {
	return c.withJob(job, func(key ref, e *entry) error {
		if e == nil {
			return fmt.Errorf("cache: delete job %s: %w", key, ErrNotFound)
		}
		e.deleted = true
		if e.info.PodCount() == 0 {
			delete(c.jobs, key)
		}
		return nil
	})
}

// Get returns a snapshot of the job info under key (namespace/name), in
// O(1): the caller may keep it, and change it (not the objects it shares)
// without touching the cache. A job only its pods are known of, or one
// that was deleted, is ErrNotFound.
func (c *Cache) Get(key string) (*jobinfo.Info, error) {
	return c.snapshot(refOf(key), (*jobinfo.Info).Clone)
}

// Lease is Get for a snapshot that is given back with its Release once
// read: while no lease of a job is out, the cache updates the job's pods
// in place, without allocating. The processing step leases
// (worker.Leaser). A lease never released only costs the job those
// in-place updates.
func (c *Cache) Lease(namespace, name string) (*jobinfo.Info, error) {
	return c.snapshot(ref{namespace, name}, (*jobinfo.Info).Lease)
}

func (c *Cache) snapshot(key ref, take func(*jobinfo.Info) *jobinfo.Info) (*jobinfo.Info, error) {
	// Taking a snapshot starts a generation of the job's info: a write.
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.jobs[key]
	if e == nil || e.info.Job == nil || e.deleted {
		return nil, fmt.Errorf("cache: job %s: %w", key, ErrNotFound)
	}
	return take(e.info), nil
}

// Has reports whether a job (not a placeholder, not deleted) is cached
// under key.
func (c *Cache) Has(key string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e := c.jobs[refOf(key)]
	return e != nil && e.info.Job != nil && !e.deleted
}

// Keys lists the cached jobs (not placeholders, not deleted ones).
func (c *Cache) Keys() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []string
	for k, e := range c.jobs {
		if e.info.Job != nil && !e.deleted {
			out = append(out, k.String())
		}
	}
	return out
}

// podKey finds the job a pod belongs to from its annotations.
func podKey(pod *corev1.Pod) (ref, error) {
	if pod == nil {
		return ref{}, ErrNoJobInObject
	}
	job, ok := pod.Annotations[vcjob.JobNameKey]
	if !ok {
		return ref{}, fmt.Errorf("cache: pod %s/%s has no %s annotation: %w", pod.Namespace, pod.Name, vcjob.JobNameKey, ErrNotJobPod)
	}
	if _, ok := pod.Annotations[vcjob.TaskSpecKey]; !ok {
		return ref{}, fmt.Errorf("cache: pod %s/%s has no %s annotation: %w", pod.Namespace, pod.Name, vcjob.TaskSpecKey, ErrNotJobPod)
	}
	return ref{pod.Namespace, job}, nil
}

// AddPod caches a pod under its job, creating a placeholder when the job
// has not arrived yet.
func (c *Cache) AddPod(pod *corev1.Pod) error {
	key, err := podKey(pod)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err = c.addPod(key, pod)
	return err
}

// addPod files pod under the job key names and returns the job's info;
// c.mu must be held.
func (c *Cache) addPod(key ref, pod *corev1.Pod) (*jobinfo.Info, error) {
	e := c.jobs[key]
	if e == nil {
		e = &entry{info: &jobinfo.Info{Namespace: key.namespace, Name: key.name}}
		c.jobs[key] = e
	}
	if c.byJobUID(e) && otherJob(e.info.Job, pod) {
		return e.info, fmt.Errorf("cache: pod %s/%s: controller %s, cached job %s: %w",
			pod.Namespace, pod.Name, metav1.GetControllerOfNoCopy(pod).UID, e.info.Job.UID, ErrOtherJob)
	}
	return e.info, e.info.AddPod(pod)
}

// UpdatePod replaces a cached pod (adding it if it was unknown).
func (c *Cache) UpdatePod(pod *corev1.Pod) error { return c.AddPod(pod) }

// DeletePod forgets a pod. The last pod of a deleted job takes the job's
// info with it.
func (c *Cache) DeletePod(pod *corev1.Pod) error {
	_, err := c.deletePod(pod)
	return err
}

// deletePod forgets a pod and reports whether the cache held it, in one
// locked step.
func (c *Cache) deletePod(pod *corev1.Pod) (held bool, err error) {
	key, err := podKey(pod)
	if err != nil {
		return false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.jobs[key]
	if e == nil {
		return false, fmt.Errorf("cache: delete pod %s/%s: job %s: %w", pod.Namespace, pod.Name, key, ErrNotFound)
	}
	if c.byJobUID(e) && otherJob(e.info.Job, pod) {
		// Another job's pod was never filed under this one.
		return false, nil
	}
	held = e.info.Pod(pod.Annotations[vcjob.TaskSpecKey], pod.Name) != nil
	e.info.DeletePod(pod)
	if e.deleted && e.info.PodCount() == 0 {
		delete(c.jobs, key)
	}
	return held, nil
}

// HasPod reports whether the cache holds the pod (by its job, task and
// name).
func (c *Cache) HasPod(pod *corev1.Pod) bool {
	key, err := podKey(pod)
	if err != nil {
		return false
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	e := c.jobs[key]
	return e != nil && e.info.Pod(pod.Annotations[vcjob.TaskSpecKey], pod.Name) != nil
}

// Droppable lists the jobs whose info is no longer needed: deleted jobs
// with no pod left, and placeholders whose pods are all gone.
func (c *Cache) Droppable() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []string
	for k, e := range c.jobs {
		if (e.deleted || e.info.Job == nil) && e.info.PodCount() == 0 {
			out = append(out, k.String())
		}
	}
	return out
}

// Drop removes a job's info if it is still droppable, and reports whether
// it did.
func (c *Cache) Drop(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := refOf(key)
	e := c.jobs[k]
	if e == nil || !((e.deleted || e.info.Job == nil) && e.info.PodCount() == 0) {
		return false
	}
	delete(c.jobs, k)
	return true
}

// TaskCompleted applies the task-completed predicate to the cached job.
func (c *Cache) TaskCompleted(key, task string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e := c.jobs[refOf(key)]
	return e != nil && TaskCompleted(e.info, task)
}

// TaskFailed applies the task-failed predicate to the cached job.
func (c *Cache) TaskFailed(key, task string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e := c.jobs[refOf(key)]
	return e != nil && TaskFailed(e.info, task)
}

// Partition returns the pods of a partition of a task of the cached job,
// sorted by name: those whose volcano.sh/partition-id label is id. The
// pods are shared: do not change them.
func (c *Cache) Partition(key, task, id string) ([]*corev1.Pod, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e := c.jobs[refOf(key)]
	if e == nil || e.info.Job == nil || e.deleted {
		return nil, fmt.Errorf("cache: job %s: %w", key, ErrNotFound)
	}
	return e.info.Task(task).Partition(id), nil
}
