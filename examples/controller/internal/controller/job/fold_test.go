package job

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/request"
)

// plainJob is the demo job with no lifecycle policy: nothing it decides
// reads a request's pod.
func plainJob(t *testing.T, phase vcjob.JobPhase) *vcjob.Job {
	t.Helper()
	job := newJob(t, phase)
	job.Spec.Policies = nil
	return job
}

// foldFixture is a fixture whose job the job informer holds (the
// handlers read its policies from there), with two Succeeded pods.
func foldFixture(t *testing.T, job *vcjob.Job) (*fixture, []*corev1.Pod) {
	t.Helper()
	f := newFixture(t, job)
	if err := f.c.jobStore.Add(job.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	return f, []*corev1.Pod{f.putPod(job, 0, corev1.PodSucceeded), f.putPod(job, 1, corev1.PodSucceeded)}
}

// podRequests queues, for each pod, the requests of its add, its binding
// and its finishing, as the pod handlers raise them.
func podRequests(f *fixture, pods []*corev1.Pod) {
	for _, p := range pods {
		for _, ev := range []vcjob.Event{vcjob.PodPendingEvent, vcjob.OutOfSyncEvent, vcjob.TaskCompletedEvent} {
			r := demoRequest(ev)
			r.PodName, r.PodUID, r.TaskName = p.Name, p.UID, "worker"
			f.c.enqueue(r)
		}
	}
}

// Every request of a Completed job is a kill, one status write each: the
// writes count the steps. Two pods' requests that Volcano's queue would
// hold as one (same task, event and version) are one step, unless the
// job reads the pod.
func TestPodRequestsFoldAsVolcanosQueueMergesThem(t *testing.T) {
	for _, tt := range []struct {
		name          string
		policies      []vcjob.LifecyclePolicy
		queued, steps int
	}{
		{"no policy reads the pod: one step per event", nil, 3, 3},
		{"a delayed policy: one step per pod and event", []vcjob.LifecyclePolicy{
			{Event: vcjob.PodFailedEvent, Action: vcjob.RestartJobAction, Timeout: &metav1.Duration{Duration: time.Minute}}}, 6, 6},
	} {
		t.Run(tt.name, func(t *testing.T) {
			job := plainJob(t, vcjob.Completed)
			job.Spec.Policies = tt.policies
			f, pods := foldFixture(t, job)
			podRequests(f, pods)
			s := f.c.shards[0]
			if n := s.queue.Len(); n != tt.queued {
				t.Errorf("%d items queued, want %d", n, tt.queued)
			}
			f.drain()
			if got := total(f.c.metrics.Requests); got != float64(tt.steps) {
				t.Errorf("%v steps, want %d", got, tt.steps)
			}
			if w := len(f.writes()); w != tt.steps {
				t.Errorf("%d status writes, want %d (a kill each)", w, tt.steps)
			}
			if v := f.storedJob().Status.Version; int(v) != tt.steps {
				t.Errorf("version %d, want %d", v, tt.steps)
			}
			if n := s.folds.Len(); n != 0 {
				t.Errorf("%d folded identities left after the drain", n)
			}
		})
	}
}

// A job that gains a pod-reading use while its folded requests wait has
// them run one by one, each with its pod, in the order they came.
func TestFoldedRequestsRunOneByOneWhenThePodMatters(t *testing.T) {
	for _, tt := range []struct {
		name   string
		change func(t *testing.T, f *fixture, job *vcjob.Job)
	}{
		{"the job gains a delayed policy", func(t *testing.T, f *fixture, job *vcjob.Job) {
			next := job.DeepCopy()
			next.Spec.Policies = []vcjob.LifecyclePolicy{{Event: vcjob.PodEvictedEvent, Action: vcjob.RestartJobAction, Timeout: &metav1.Duration{Duration: time.Minute}}}
			if err := f.c.jobStore.Update(next); err != nil {
				t.Fatal(err)
			}
		}},
		{"a delayed action of the job is pending", func(t *testing.T, f *fixture, job *vcjob.Job) {
			r := demoRequest(vcjob.PodEvictedEvent)
			r.PodName, r.PodUID = "demo-worker-0", "pod-uid-0"
			f.c.shards[0].step.Delays.Register(r, vcjob.RestartJobAction, request.Target{Level: vcjob.JobLevel}, time.Hour, f.clock.Now())
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			job := plainJob(t, vcjob.Completed)
			f, pods := foldFixture(t, job)
			var seen []string
			f.c.metrics.Requests.Reset()
			podRequests(f, pods)
			tt.change(t, f, job)
			s := f.c.shards[0]
			for s.queue.Len() > 0 {
				it, _ := s.queue.Get()
				if it.Kind == kindFolded {
					for _, r := range s.folds.Peek(it.Req) {
						seen = append(seen, string(r.Event)+" "+r.PodName)
					}
				}
				s.handle(t.Context(), it)
				s.queue.Done(it)
			}
			want := []string{
				"PodPending demo-worker-0", "PodPending demo-worker-1",
				"OutOfSync demo-worker-0", "OutOfSync demo-worker-1",
				"TaskCompleted demo-worker-0", "TaskCompleted demo-worker-1",
			}
			if len(seen) != len(want) {
				t.Fatalf("folded requests %q, want %q", seen, want)
			}
			for i := range want {
				if seen[i] != want[i] {
					t.Fatalf("folded requests %q, want %q", seen, want)
				}
			}
			if got := total(f.c.metrics.Requests); got != 6 {
				t.Errorf("%v steps, want 6 (one per pod request)", got)
			}
			if w := len(f.writes()); w != 6 {
				t.Errorf("%d status writes, want 6", w)
			}
		})
	}
}

// A deleted job's folded requests are dropped with its queued items.
func TestForgetDropsFoldedRequests(t *testing.T) {
	job := plainJob(t, vcjob.Completed)
	f, pods := foldFixture(t, job)
	podRequests(f, pods)
	s := f.c.shards[0]
	s.handle(t.Context(), item{Kind: kindForget, Req: request.Request{Namespace: "ns", JobName: "demo"}})
	if n := s.folds.Len(); n != 0 {
		t.Errorf("%d folded identities kept for a deleted job", n)
	}
}

// oneTaskJob is a job of one task with no lifecycle policy: nothing it
// decides reads a request's pod.
func oneTaskJob(t *testing.T, phase vcjob.JobPhase) *vcjob.Job {
	t.Helper()
	job := &vcjob.Job{Spec: vcjob.JobSpec{Tasks: []vcjob.TaskSpec{{Name: "worker", Replicas: 2}}}}
	job.Namespace, job.Name, job.UID = "ns", "demo", "job-uid"
	job.Status.State.Phase = phase
	return job
}

func TestPodFold(t *testing.T) {
	pod := request.Request{Namespace: "ns", JobName: "demo", JobUID: "job-uid", TaskName: "worker",
		PodName: "demo-worker-0", PodUID: "pod-uid-0", PartitionID: "1", Event: vcjob.PodFailedEvent,
		ExitCode: 3, JobVersion: 2, Disrupted: true}
	volcano := request.Request{Namespace: "ns", JobName: "demo", JobUID: "job-uid", TaskName: "worker",
		Event: vcjob.PodFailedEvent, ExitCode: 3, JobVersion: 2}
	timeout := &metav1.Duration{Duration: time.Minute}
	with := func(change func(*vcjob.Job)) *vcjob.Job {
		job := oneTaskJob(t, vcjob.Running)
		change(job)
		return job
	}
	command := pod
	command.Action = vcjob.RestartJobAction
	for _, tt := range []struct {
		name   string
		job    *vcjob.Job
		req    request.Request
		folded bool
	}{
		{"no policy: the pod is left out", with(func(*vcjob.Job) {}), pod, true},
		{"a policy without timeout on the job", with(func(j *vcjob.Job) {
			j.Spec.Policies = []vcjob.LifecyclePolicy{{Event: vcjob.PodFailedEvent, Action: vcjob.RestartJobAction}}
		}), pod, true},
		{"RestartTask reads the task only", with(func(j *vcjob.Job) {
			j.Spec.Tasks[0].Policies = []vcjob.LifecyclePolicy{{Event: vcjob.PodFailedEvent, Action: vcjob.RestartTaskAction}}
		}), pod, true},
		{"a job policy with a timeout keys its delay by pod", with(func(j *vcjob.Job) {
			j.Spec.Policies = []vcjob.LifecyclePolicy{{Event: vcjob.PodFailedEvent, Action: vcjob.RestartJobAction, Timeout: timeout}}
		}), pod, false},
		{"a task policy with a timeout", with(func(j *vcjob.Job) {
			j.Spec.Tasks[0].Policies = []vcjob.LifecyclePolicy{{Event: vcjob.PodPendingEvent, Action: vcjob.AbortJobAction, Timeout: timeout}}
		}), pod, false},
		{"RestartPod acts on the pod", with(func(j *vcjob.Job) {
			j.Spec.Tasks[0].Policies = []vcjob.LifecyclePolicy{{Event: vcjob.PodFailedEvent, Action: vcjob.RestartPodAction}}
		}), pod, false},
		{"RestartPartition acts on its partition", with(func(j *vcjob.Job) {
			j.Spec.Policies = []vcjob.LifecyclePolicy{{Event: vcjob.PodEvictedEvent, Action: vcjob.RestartPartitionAction}}
		}), pod, false},
		{"policy extensions read the disruption", with(func(j *vcjob.Job) {
			j.Annotations = map[string]string{policy.ExtensionsAnnotation: "{}"}
		}), pod, false},
		{"a job the informer does not hold", nil, pod, false},
		{"a request carrying an action", with(func(*vcjob.Job) {}), command, false},
		{"a request naming no pod is its own identity", with(func(*vcjob.Job) {}), volcano, false},
	} {
		id, ok := foldIdentity(tt.job, tt.req)
		if ok != tt.folded {
			t.Errorf("%s: folded = %v, want %v", tt.name, ok, tt.folded)
			continue
		}
		want := tt.req
		if tt.folded {
			want = volcano
		}
		if id != want {
			t.Errorf("%s: identity %+v, want %+v", tt.name, id, want)
		}
	}
}

// A group keeps its requests in order, an identical one once, and is
// handed over once.
func TestFoldsKeepOrderAndMergeTwins(t *testing.T) {
	pod := func(name string, ev vcjob.Event) request.Request {
		r := demoRequest(ev)
		r.PodName, r.TaskName = name, "worker"
		return r
	}
	running, _ := foldIdentity(oneTaskJob(t, vcjob.Running), pod("a", vcjob.PodRunningEvent))
	failed, _ := foldIdentity(oneTaskJob(t, vcjob.Running), pod("a", vcjob.PodFailedEvent))
	var f foldStore
	for _, r := range []request.Request{pod("a", vcjob.PodRunningEvent), pod("b", vcjob.PodRunningEvent),
		pod("a", vcjob.PodRunningEvent), pod("c", vcjob.PodFailedEvent), pod("c", vcjob.PodRunningEvent)} {
		id, _ := foldIdentity(oneTaskJob(t, vcjob.Running), r)
		f.Add(id, r)
	}
	for _, tt := range []struct {
		id   request.Request
		want []string
	}{
		{running, []string{"a", "b", "c"}},
		{running, nil},
		{failed, []string{"c"}},
	} {
		var got []string
		for _, r := range f.Take(tt.id) {
			got = append(got, r.PodName)
		}
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("take(%s) = %q, want %q", tt.id.Event, got, tt.want)
		}
	}
}
