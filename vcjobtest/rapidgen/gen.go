package rapidgen

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
)

var (
	taskNames = []string{"master", "worker", "ps", "chief", "eval"}
	// policyEvents are the events a generated policy names besides "*",
	// which stands alone in its list.
	policyEvents = []vcjob.Event{
		vcjob.PodFailedEvent, vcjob.PodEvictedEvent, vcjob.PodPendingEvent,
		vcjob.JobUnknownEvent, vcjob.TaskCompletedEvent, vcjob.TaskFailedEvent,
	}
	// exitCodes are the exit codes generated policies name and generated
	// pods fail with (requests also carry 0: no exit code).
	exitCodes = []int32{1, 2, 137, 143}
	// requestEvents are the events a generated pod request carries.
	requestEvents = []vcjob.Event{
		vcjob.PodFailedEvent, vcjob.PodEvictedEvent, vcjob.PodPendingEvent, vcjob.PodRunningEvent,
		vcjob.TaskCompletedEvent, vcjob.TaskFailedEvent, vcjob.OutOfSyncEvent,
	}
)

// ExitCodes lists the exit codes generated policies name and generated
// pods fail with.
func ExitCodes() []int32 { return append([]int32(nil), exitCodes...) }

// Job generates a valid job: 1–3 tasks of 0–4 replicas, task minAvailable
// unset or at most the replicas, job minAvailable at most the total,
// maxRetry 1–4 (3 on every task), an optional minSuccess, optional
// partition policies (totalPartitions*partitionSize == replicas), optional
// dependsOn on earlier tasks, and 0–3 lifecycle policies on each task and
// on the job (events or exit codes, some with timeouts). Its status is
// empty: it has never been synced.
func Job() *rapid.Generator[*vcjob.Job] {
	return rapid.Custom(func(t *rapid.T) *vcjob.Job {
		job := &vcjob.Job{
			TypeMeta: metav1.TypeMeta{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind},
			ObjectMeta: metav1.ObjectMeta{
				Namespace: rapid.SampledFrom([]string{"default", "team-a"}).Draw(t, "namespace"),
				Name:      rapid.StringMatching(`[a-z][a-z0-9]{0,5}`).Draw(t, "name"),
				UID:       types.UID(rapid.StringMatching(`[0-9a-f]{8}`).Draw(t, "uid")),
			},
		}
		spec := &job.Spec
		spec.Queue = vcjob.DefaultQueue
		spec.SchedulerName = vcjob.DefaultSchedulerName
		n := rapid.IntRange(1, 3).Draw(t, "tasks")
		names := rapid.SliceOfNDistinct(rapid.SampledFrom(taskNames), n, n, rapid.ID[string]).Draw(t, "taskNames")
		for i, name := range names {
			spec.Tasks = append(spec.Tasks, task(t, name, names[:i]))
		}
		total := job.TotalReplicas()
		spec.MinAvailable = rapid.Int32Range(0, total).Draw(t, "minAvailable")
		spec.MaxRetry = rapid.Int32Range(1, 4).Draw(t, "maxRetry")
		if rapid.Bool().Draw(t, "hasMinSuccess") {
			ms := rapid.Int32Range(1, max(total, 1)).Draw(t, "minSuccess")
			spec.MinSuccess = &ms
		}
		spec.Policies = policies(t, "job")
		return job
	})
}

func task(t *rapid.T, name string, earlier []string) vcjob.TaskSpec {
	task := vcjob.TaskSpec{
		Name:     name,
		Replicas: rapid.Int32Range(0, 4).Draw(t, name+".replicas"),
		MaxRetry: 3,
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
			Spec: corev1.PodSpec{
				Containers:    []corev1.Container{{Name: "main", Image: "busybox"}},
				RestartPolicy: rapid.SampledFrom([]corev1.RestartPolicy{corev1.RestartPolicyNever, corev1.RestartPolicyOnFailure}).Draw(t, name+".restartPolicy"),
			},
		},
	}
	var minPartitions, size int32
	if task.Replicas > 0 && rapid.Bool().Draw(t, name+".partitioned") {
		var divisors []int32
		for d := int32(1); d <= task.Replicas; d++ {
			if task.Replicas%d == 0 {
				divisors = append(divisors, d)
			}
		}
		size = rapid.SampledFrom(divisors).Draw(t, name+".partitionSize")
		totalPartitions := task.Replicas / size
		minPartitions = rapid.Int32Range(0, totalPartitions).Draw(t, name+".minPartitions")
		task.PartitionPolicy = &vcjob.PartitionPolicySpec{TotalPartitions: totalPartitions, PartitionSize: size, MinPartitions: minPartitions}
	}
	if rapid.Bool().Draw(t, name+".hasMinAvailable") {
		// With minPartitions set, validation wants minAvailable to be
		// minPartitions*partitionSize.
		ma := minPartitions * size
		if minPartitions == 0 {
			ma = rapid.Int32Range(0, task.Replicas).Draw(t, name+".minAvailable")
		}
		task.MinAvailable = &ma
	}
	if len(earlier) > 0 && rapid.Bool().Draw(t, name+".hasDependsOn") {
		deps := rapid.SliceOfNDistinct(rapid.SampledFrom(earlier), 1, len(earlier), rapid.ID[string]).Draw(t, name+".dependsOn")
		iteration := rapid.SampledFrom([]vcjob.Iteration{vcjob.IterationAny, vcjob.IterationAll}).Draw(t, name+".iteration")
		task.DependsOn = &vcjob.DependsOn{Name: deps, Iteration: iteration}
	}
	task.Policies = policies(t, name)
	return task
}

// policies generates 0–3 lifecycle policies that pass validation: each
// matches events or an exit code, no event or exit code appears twice in
// the list, and "*" stands alone.
func policies(t *rapid.T, owner string) []vcjob.LifecyclePolicy {
	n := rapid.IntRange(0, 3).Draw(t, owner+".policies")
	star := rapid.IntRange(0, 4).Draw(t, owner+".star") == 0
	usedEvents := map[vcjob.Event]bool{}
	usedCodes := map[int32]bool{}
	var out []vcjob.LifecyclePolicy
	for i := 0; i < n; i++ {
		label := fmt.Sprintf("%s.policy[%d]", owner, i)
		p := vcjob.LifecyclePolicy{Action: rapid.SampledFrom(vcjob.PolicyActions()).Draw(t, label+".action")}
		if rapid.IntRange(0, 3).Draw(t, label+".hasTimeout") == 0 {
			p.Timeout = &metav1.Duration{Duration: time.Duration(rapid.IntRange(1, 60).Draw(t, label+".timeout")) * time.Second}
		}
		byEvent := rapid.Bool().Draw(t, label+".byEvent")
		var events []vcjob.Event
		switch {
		case byEvent && star:
			if !usedEvents[vcjob.AnyEvent] {
				events = []vcjob.Event{vcjob.AnyEvent}
			}
		case byEvent:
			var free []vcjob.Event
			for _, e := range policyEvents {
				if !usedEvents[e] {
					free = append(free, e)
				}
			}
			if len(free) > 0 {
				events = rapid.SliceOfNDistinct(rapid.SampledFrom(free), 1, min(2, len(free)), rapid.ID[vcjob.Event]).Draw(t, label+".events")
			}
		}
		if len(events) > 0 {
			for _, e := range events {
				usedEvents[e] = true
			}
			// Event, Events, or both: Resolve reads them as one set.
			switch rapid.IntRange(0, 2).Draw(t, label+".eventField") {
			case 0:
				p.Event, p.Events = events[0], events[1:]
			case 1:
				p.Events = events
			default:
				p.Event, p.Events = events[0], events
			}
			if len(p.Events) == 0 {
				p.Events = nil
			}
		} else {
			var free []int32
			for _, c := range exitCodes {
				if !usedCodes[c] {
					free = append(free, c)
				}
			}
			if len(free) == 0 {
				continue
			}
			code := rapid.SampledFrom(free).Draw(t, label+".exitCode")
			usedCodes[code] = true
			p.ExitCode = &code
		}
		out = append(out, p)
	}
	return out
}

// Pods generates a population of pods for job, sorted by name: for each
// task index below its replicas, none or the pod the controller renders
// (statemachine.RenderPod) in a random phase (Pending, Running, Succeeded,
// Failed with an exit code, Unknown), maybe bound to a node, with ready
// containers, terminating (a deletionTimestamp), marked out of sync, or
// from an older job version (stale); and now and then a leftover at an
// index beyond the replicas (a scale-down). Every pod has a UID.
func Pods(job *vcjob.Job) *rapid.Generator[[]*corev1.Pod] {
	return rapid.Custom(func(t *rapid.T) []*corev1.Pod {
		var out []*corev1.Pod
		for ti := range job.Spec.Tasks {
			task := &job.Spec.Tasks[ti]
			n := int(task.Replicas)
			if rapid.IntRange(0, 4).Draw(t, task.Name+".leftovers") == 0 {
				n += rapid.IntRange(1, 2).Draw(t, task.Name+".extra")
			}
			for i := 0; i < n; i++ {
				label := fmt.Sprintf("%s[%d]", task.Name, i)
				if rapid.IntRange(0, 3).Draw(t, label+".missing") == 0 {
					continue
				}
				out = append(out, pod(t, job, task, i, label))
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
		return out
	})
}

func pod(t *rapid.T, job *vcjob.Job, task *vcjob.TaskSpec, index int, label string) *corev1.Pod {
	// Render at a version at most the job's: older ones are stale.
	rendered := job.DeepCopy()
	if v := job.Status.Version; v > 0 && rapid.IntRange(0, 3).Draw(t, label+".stale") == 0 {
		rendered.Status.Version = rapid.Int32Range(0, v-1).Draw(t, label+".version")
	}
	p := statemachine.RenderPod(rendered, task, index)
	p.UID = types.UID(fmt.Sprintf("uid-%s-%d", p.Name, rapid.IntRange(0, 3).Draw(t, label+".generation")))
	p.Status.Phase = rapid.SampledFrom([]corev1.PodPhase{
		corev1.PodPending, corev1.PodRunning, corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed, corev1.PodUnknown,
	}).Draw(t, label+".phase")
	if p.Status.Phase != corev1.PodPending || rapid.Bool().Draw(t, label+".bound") {
		p.Spec.NodeName = "node-" + strconv.Itoa(rapid.IntRange(0, 2).Draw(t, label+".node"))
	}
	cs := corev1.ContainerStatus{Name: "main"}
	switch p.Status.Phase {
	case corev1.PodRunning:
		cs.Ready = rapid.Bool().Draw(t, label+".ready")
		cs.State.Running = &corev1.ContainerStateRunning{}
		cs.RestartCount = int32(rapid.IntRange(0, 3).Draw(t, label+".restarts"))
	case corev1.PodSucceeded:
		cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}
	case corev1.PodFailed:
		cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: rapid.SampledFrom(exitCodes).Draw(t, label+".exitCode"), Reason: "Error"}
	}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{cs}
	if rapid.IntRange(0, 5).Draw(t, label+".terminating") == 0 {
		now := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		p.DeletionTimestamp = &now
	}
	if rapid.IntRange(0, 7).Draw(t, label+".outOfSync") == 0 {
		p.Annotations[vcjob.PodOutOfSyncKey] = "true"
	}
	return p
}

// Request generates one request for job as Volcano's controller raises it:
// mostly pod events (PodPending, PodRunning, PodFailed with an exit code,
// PodEvicted, TaskCompleted, TaskFailed, OutOfSync) naming a task, one of
// its pods (an index at most one past the replicas, so sometimes a pod
// that does not exist) and, for partitioned tasks, its partition, at the
// job's version or an older one, with the job's UID, none or another's;
// else a PodGroup change (no task, job version 0, Unknown or no event) or
// a command (its action, no task).
func Request(job *vcjob.Job) *rapid.Generator[request.Request] {
	return rapid.Custom(func(t *rapid.T) request.Request {
		req := request.Request{Namespace: job.Namespace, JobName: job.Name}
		switch w := rapid.IntRange(0, 9).Draw(t, "kind"); {
		case w < 7 && len(job.Spec.Tasks) > 0:
			task := &job.Spec.Tasks[rapid.IntRange(0, len(job.Spec.Tasks)-1).Draw(t, "task")]
			index := rapid.IntRange(0, int(task.Replicas)).Draw(t, "index")
			req.TaskName = task.Name
			req.PodName = vcjob.PodName(job.Name, task.Name, index)
			req.PodUID = types.UID(fmt.Sprintf("uid-%s-%d", req.PodName, rapid.IntRange(0, 3).Draw(t, "generation")))
			if pp := task.PartitionPolicy; pp != nil {
				req.PartitionID = strconv.Itoa(index / int(max(pp.PartitionSize, 1)))
			}
			req.Event = rapid.SampledFrom(requestEvents).Draw(t, "event")
			if req.Event == vcjob.PodFailedEvent {
				req.ExitCode = rapid.SampledFrom(append([]int32{0}, exitCodes...)).Draw(t, "exitCode")
			}
			req.JobVersion = job.Status.Version
			if req.JobVersion > 0 && rapid.IntRange(0, 3).Draw(t, "stale") == 0 {
				req.JobVersion = rapid.Int32Range(0, req.JobVersion-1).Draw(t, "version")
			}
			switch rapid.IntRange(0, 9).Draw(t, "uid") {
			case 0:
			case 1:
				req.JobUID = job.UID + "-old"
			default:
				req.JobUID = job.UID
			}
		case w < 8:
			if rapid.Bool().Draw(t, "unknown") {
				req.Event = vcjob.JobUnknownEvent
			}
		default:
			req.Event = vcjob.CommandIssuedEvent
			req.Action = rapid.SampledFrom(vcjob.PolicyActions()).Draw(t, "action")
		}
		return req
	})
}

// Requests generates a stream of 0–20 requests for job.
func Requests(job *vcjob.Job) *rapid.Generator[[]request.Request] {
	return rapid.SliceOfN(Request(job), 0, 20)
}
