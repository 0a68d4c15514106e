package fold_test

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/request"

	"github.com/vcjob/vcjob/examples/controller/internal/fold"
)

// plainJob is a job of one task with no lifecycle policy: nothing it
// decides reads a request's pod.
func plainJob(t *testing.T, phase vcjob.JobPhase) *vcjob.Job {
	t.Helper()
	job := &vcjob.Job{Spec: vcjob.JobSpec{Tasks: []vcjob.TaskSpec{{Name: "worker", Replicas: 2}}}}
	job.Namespace, job.Name, job.UID = "ns", "demo", "job-uid"
	job.Status.State.Phase = phase
	return job
}

func demoRequest(event vcjob.Event) request.Request {
	return request.Request{Namespace: "ns", JobName: "demo", JobUID: "job-uid", Event: event}
}

func TestPodFold(t *testing.T) {
	pod := request.Request{Namespace: "ns", JobName: "demo", JobUID: "job-uid", TaskName: "worker",
		PodName: "demo-worker-0", PodUID: "pod-uid-0", PartitionID: "1", Event: vcjob.PodFailedEvent,
		ExitCode: 3, JobVersion: 2, Disrupted: true}
	volcano := request.Request{Namespace: "ns", JobName: "demo", JobUID: "job-uid", TaskName: "worker",
		Event: vcjob.PodFailedEvent, ExitCode: 3, JobVersion: 2}
	timeout := &metav1.Duration{Duration: time.Minute}
	with := func(change func(*vcjob.Job)) *vcjob.Job {
		job := plainJob(t, vcjob.Running)
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
		id, ok := fold.Identity(tt.job, tt.req)
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
	running, _ := fold.Identity(plainJob(t, vcjob.Running), pod("a", vcjob.PodRunningEvent))
	failed, _ := fold.Identity(plainJob(t, vcjob.Running), pod("a", vcjob.PodFailedEvent))
	var f fold.Store
	for _, r := range []request.Request{pod("a", vcjob.PodRunningEvent), pod("b", vcjob.PodRunningEvent),
		pod("a", vcjob.PodRunningEvent), pod("c", vcjob.PodFailedEvent), pod("c", vcjob.PodRunningEvent)} {
		id, _ := fold.Identity(plainJob(t, vcjob.Running), r)
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
