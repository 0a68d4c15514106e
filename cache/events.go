package cache

import (
	"fmt"

	"reflect"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/jobinfo"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/request"
)

// PodRequest is the request skeleton for a pod event: ok is false for pods
// whose events do not count (no vcjob controller owner, or a missing
// job-name, task-spec or integer job-version annotation). Event is left
// empty for the caller to fill in.
func PodRequest(pod *corev1.Pod) (request.Request, bool) {
	if pod == nil {
		return request.Request{}, false
	}
	owner := metav1.GetControllerOfNoCopy(pod)
	if owner == nil || owner.APIVersion != vcjob.APIVersion || owner.Kind != vcjob.JobKind {
		return request.Request{}, false
	}
	job, ok1 := pod.Annotations[vcjob.JobNameKey]
	task, ok2 := pod.Annotations[vcjob.TaskSpecKey]
	version, ok3 := pod.Annotations[vcjob.JobVersionKey]
	if !ok1 || !ok2 || !ok3 {
		return request.Request{}, false
	}
	v, err := strconv.Atoi(version)
	if err != nil {
		return request.Request{}, false
	}
	return request.Request{
		Namespace: pod.Namespace, JobName: job, JobUID: owner.UID, TaskName: task,
		PodName: pod.Name, PodUID: pod.UID, PartitionID: pod.Labels[vcjob.PartitionIDKey],
		JobVersion: int32(v),
	}, true
}

// OutOfSync reports whether the controller marked the pod as one it is
// getting rid of: its events only resync the job.
func OutOfSync(pod *corev1.Pod) bool {
	return pod != nil && pod.Annotations[vcjob.PodOutOfSyncKey] == "true"
}

// PodAddEvent is the event of a pod appearing: PodPending, or OutOfSync
// for an out-of-sync pod.
func PodAddEvent(pod *corev1.Pod) vcjob.Event {
	if OutOfSync(pod) {
		return vcjob.OutOfSyncEvent
	}
	return vcjob.PodPendingEvent
}

// PodUpdateEvent is the event of a pod's change from old to new, judged on
// ji, the job info that already holds new. It returns the exit code of the
// first container for PodFailed, as Volcano does (ExitCode).
func PodUpdateEvent(ji *jobinfo.Info, old, new *corev1.Pod) (vcjob.Event, int32) {
	return podUpdateEvent(ji, old, new, behavior.Set{})
}

// podUpdateEvent is PodUpdateEvent under the semantics sem, which choose
// the exit code a PodFailed carries.
func podUpdateEvent(ji *jobinfo.Info, old, new *corev1.Pod, sem behavior.Set) (vcjob.Event, int32) {
	if old == nil || new == nil || OutOfSync(new) {
		return vcjob.OutOfSyncEvent, 0
	}
	task := new.Annotations[vcjob.TaskSpecKey]
	switch phase := new.Status.Phase; phase {
	case corev1.PodFailed:
		if old.Status.Phase != corev1.PodFailed {
			return vcjob.PodFailedEvent, ExitCode(new, sem)
		}
	case corev1.PodSucceeded:
		if old.Status.Phase != corev1.PodSucceeded && TaskCompleted(ji, task) {
			return vcjob.TaskCompletedEvent, 0
		}
	case corev1.PodRunning, corev1.PodPending:
		// A pod that just entered Running (or Pending) reports that, even
		// when its task has run out of retries.
		if old.Status.Phase != phase {
			if phase == corev1.PodRunning {
				return vcjob.PodRunningEvent, 0
			}
			return vcjob.PodPendingEvent, 0
		}
		if TaskFailed(ji, task) {
			return vcjob.TaskFailedEvent, 0
		}
	}
	return vcjob.OutOfSyncEvent, 0
}

// ExitCode is the exit code a failed pod's PodFailed request carries:
// Volcano reads the first container status only, so with a sidecar or a
// second container the exit-code policies see whatever the first one says
// (volcano#5452); 0 when it has not terminated. Under
// behavior.ExitCodeFirstFailedContainer it is firstFailedContainerExitCode.
func ExitCode(pod *corev1.Pod, set behavior.Set) int32 {
	if set.Has(behavior.ExitCodeFirstFailedContainer) {
		return firstFailedContainerExitCode(pod)
	}
	cs := pod.Status.ContainerStatuses
	if len(cs) > 0 && cs[0].State.Terminated != nil {
		return cs[0].State.Terminated.ExitCode
	}
	return 0
}

// OnPodAdd caches a new pod and returns its request. Under
// behavior.FinishedPodsOnAdd (c.Behavior, or the job's
// annotation) a pod that arrives finished raises the event its finishing
// would have (FinishedPodAddEvent).
func (c *Cache) OnPodAdd(pod *corev1.Pod) (request.Request, bool) {
	req, ok := PodRequest(pod)
	if !ok {
		return req, false
	}
	c.mu.Lock()
	// A pod the cache cannot hold still raises its request, as in Volcano.
	ji, err := c.addPod(ref{req.Namespace, req.JobName}, pod)
	req.Event = PodAddEvent(pod)
	if err == nil && ji.Job != nil && req.Event == vcjob.PodPendingEvent {
		if sem := c.Behavior.For(ji.Job); sem.Has(behavior.FinishedPodsOnAdd) {
			req.Event, req.ExitCode = finishedPodAddEvent(ji, pod, sem)
		}
	}
	c.mu.Unlock()
	if req.Event == vcjob.PodFailedEvent {
		req.Disrupted = policy.Disrupted(pod)
	}
	return req, true
}

// OnPodUpdate caches a changed pod and returns its request; an update that
// leaves the resourceVersion alone (a resync) raises none.
func (c *Cache) OnPodUpdate(old, new *corev1.Pod) (request.Request, bool) {
	req, ok := PodRequest(new)
	if !ok || old == nil || old.ResourceVersion == new.ResourceVersion {
		return request.Request{}, false
	}
	// One lock for the update and the event judged on it; PodRequest has
	// checked the annotations podKey would.
	c.mu.Lock()
	ji, _ := c.addPod(ref{req.Namespace, req.JobName}, new)
	req.Event, req.ExitCode = podUpdateEvent(ji, old, new, c.Behavior.For(ji.Job))
	c.mu.Unlock()
	if req.Event == vcjob.PodFailedEvent {
		req.Disrupted = policy.Disrupted(new)
	}
	return req, true
}

// OnPodDelete forgets a pod and returns its request: PodEvicted, or
// OutOfSync for a pod the controller was deleting itself or one the cache
// never held.
func (c *Cache) OnPodDelete(pod *corev1.Pod) (request.Request, bool) {
	req, ok := PodRequest(pod)
	if !ok {
		return req, false
	}
	// Whether the cache held it and forgetting it are one step: a pod
	// added again meanwhile cannot make the event lie.
	held, _ := c.deletePod(pod)
	req.Event = vcjob.PodEvictedEvent
	if OutOfSync(pod) || !held {
		req.Event = vcjob.OutOfSyncEvent
	} else {
		req.Disrupted = policy.Disrupted(pod)
	}
	return req, true
}

// OnJobAdd caches a new job and returns the request to sync it. A job the
// cache refuses (one it already holds) still raises its request, as in
// Volcano; the error says why the cache refused it.
func (c *Cache) OnJobAdd(job *vcjob.Job) (request.Request, bool, error) {
	if job == nil {
		return request.Request{}, false, ErrNoJobInObject
	}
	return jobRequest(job), true, c.Add(job)
}

// OnJobAddWithPods is OnJobAdd followed, under
// behavior.FinishedPodsOnAdd, by the requests of the finished pods
// that arrived before their job: their own add raised PodPending, with no
// job to judge them by (a controller starting up lists pods and jobs at
// the same time). Each gets the event FinishedPodAddEvent gives it; pods
// that are not finished raise nothing more. The job's request comes first.
func (c *Cache) OnJobAddWithPods(job *vcjob.Job) ([]request.Request, error) {
	if job == nil {
		return nil, ErrNoJobInObject
	}
	out := []request.Request{jobRequest(job)}
	err := c.withJob(job, func(key ref, e *entry) error {
		if e != nil && e.info.Job != nil && !e.deleted {
			return fmt.Errorf("cache: add job %s: %w", key, ErrExists)
		}
		early := e != nil && e.info.Job == nil
		if e == nil {
			e = &entry{info: &jobinfo.Info{Namespace: job.Namespace, Name: job.Name}}
			c.jobs[key] = e
		}
		e.info.SetJob(job)
		e.deleted = false
		c.dropOtherJobs(e.info)
		if set := c.Behavior.For(job); early && set.Has(behavior.FinishedPodsOnAdd) {
			out = append(out, earlyFinishedPodRequests(e.info, set)...)
		}
		return nil
	})
	return out, err
}

// OnJobUpdate caches a changed job and returns the request to sync it when
// its spec or its phase changed: status is the controller's own writing,
// and only the spec is reconciled. As in Volcano, the request is raised
// even when the cache refuses the job (a stale or malformed
// resourceVersion); the error says why it refused.
func (c *Cache) OnJobUpdate(old, new *vcjob.Job) (request.Request, bool, error) {
	if old == nil || new == nil || old.ResourceVersion == new.ResourceVersion {
		return request.Request{}, false, nil
	}
	err := c.Update(new)
	if old.Status.State.Phase == new.Status.State.Phase && sameSpec(old, new) {
		return request.Request{}, false, err
	}
	return jobRequest(new), true, err
}

// sameSpec reports whether two versions of a job have the same spec, as
// Volcano compares them (reflect.DeepEqual: an empty list differs from a
// missing one). The API server bumps metadata.generation on every change
// of a custom resource's spec, and the Job's status subresource keeps
// status writes from bumping it, so an unchanged, non-zero generation
// settles it without comparing the specs, which is most of the cost of a
// status write's event on a large job.
func sameSpec(old, new *vcjob.Job) bool {
	if old.Generation != 0 && old.Generation == new.Generation {
		return true
	}
	return reflect.DeepEqual(old.Spec, new.Spec)
}

// OnJobDelete marks a job deleted; it raises no request.
func (c *Cache) OnJobDelete(job *vcjob.Job) error { return c.Delete(job) }

func jobRequest(job *vcjob.Job) request.Request {
	return request.Request{Namespace: job.Namespace, JobName: job.Name, JobUID: job.UID, Event: vcjob.OutOfSyncEvent}
}

// OnPodGroupUpdate returns the request a PodGroup's phase change raises for
// the cached job it belongs to: no event, or Unknown when the new phase is
// Unknown. It carries no job version, so once the job has been killed once
// (status.version > 0) policy resolution takes it as stale and syncs.
// Under behavior.PodGroupRequestsCurrentVersion (c.Behavior, or
// the job's annotation) it carries the cached job's status.version.
func (c *Cache) OnPodGroupUpdate(namespace, job string, oldPhase, newPhase podgroup.Phase) (request.Request, bool) {
	if oldPhase == newPhase {
		return request.Request{}, false
	}
	version, ok := c.podGroupRequestVersion(ref{namespace, job})
	if !ok {
		return request.Request{}, false
	}
	req := request.Request{Namespace: namespace, JobName: job, JobVersion: version}
	if newPhase == podgroup.PhaseUnknown {
		req.Event = vcjob.JobUnknownEvent
	}
	return req, true
}

// OnPodGroupAdd returns the request a PodGroup's add raises: none, as in
// Volcano, which has no add handler for PodGroups. Under
// behavior.PodGroupPhaseOnAdd (c.Behavior, or the job's
// annotation) a PodGroup that arrives after the informer's first list
// already in a phase raises the request its missed change from no phase
// would have (OnPodGroupUpdate): a relist after a lost watch shows it as
// new. A new PodGroup has no phase (the API server drops the status of a
// create), so with a watch that loses nothing this is never raised; the
// first list raises nothing either, as the job's own add syncs it.
func (c *Cache) OnPodGroupAdd(namespace, job string, phase podgroup.Phase, inInitialList bool) (request.Request, bool) {
	if inInitialList || phase == "" || !c.jobHas(ref{namespace, job}, behavior.PodGroupPhaseOnAdd) {
		return request.Request{}, false
	}
	return c.podGroupPhaseOnAdd(namespace, job, phase)
}

// CommandRequest is the request a Command for a vcjob raises; ok is false
// for commands aimed at anything else. The controller deletes the command
// first and queues the request only when that delete succeeded (NotFound
// means another controller took it).
func CommandRequest(cmd *vcjob.Command) (request.Request, bool) {
	if cmd == nil || cmd.TargetObject == nil || cmd.TargetObject.APIVersion != vcjob.APIVersion || cmd.TargetObject.Kind != vcjob.JobKind {
		return request.Request{}, false
	}
	return request.Request{
		Namespace: cmd.Namespace, JobName: cmd.TargetObject.Name,
		Event: vcjob.CommandIssuedEvent, Action: vcjob.Action(cmd.Action),
	}, true
}

// ReasonCommandIssued is the reason of the Normal Event Volcano's command
// handler records on a job once it has deleted a Command for it.
const ReasonCommandIssued = "CommandIssued"

// CommandIssuedEvent is that Event: "Start to execute command <action>,
// and clean it up to make sure executed not more than once."
func CommandIssuedEvent(cmd *vcjob.Command) record.Event {
	return record.Normalf(ReasonCommandIssued, "Start to execute command %s, and clean it up to make sure executed not more than once.", cmd.Action)
}

// OnCommand is what Volcano's command handler does with a Command for a
// vcjob that it has deleted (call it only once the delete succeeded: on
// NotFound another controller took the command and nothing happens): the
// request to queue, and the CommandIssued Event to record on the job,
// before the request is processed. Volcano records the Event on the job
// its cache holds, so a command for a job not in the cache records none
// (its request is still queued, and its step finds no job). ok is false
// for a command aimed at anything else.
func (c *Cache) OnCommand(cmd *vcjob.Command) (req request.Request, events []record.Event, ok bool) {
	req, ok = CommandRequest(cmd)
	if !ok {
		return req, nil, false
	}
	if c.Has(request.JobKey(req.Namespace, req.JobName)) {
		events = []record.Event{CommandIssuedEvent(cmd)}
	}
	return req, events, true
}

// podGroupRequestVersion is the job version a PodGroup-driven request of
// the cached job carries: 0, as in Volcano, or the job's own under
// behavior.PodGroupRequestsCurrentVersion; ok is false when the job is not
// cached.
func (c *Cache) podGroupRequestVersion(key ref) (version int32, ok bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e := c.jobs[key]
	if e == nil || e.info.Job == nil || e.deleted {
		return 0, false
	}
	if c.Behavior.For(e.info.Job).Has(behavior.PodGroupRequestsCurrentVersion) {
		return podGroupRequestsCurrentVersion(e.info.Job), true
	}
	return 0, true
}
