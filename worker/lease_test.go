package worker_test

import (
	"context"
	"runtime"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/delay"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
	"github.com/vcjob/vcjob/worker"
)

// TestStepReleasesItsLease: the step leases its snapshot from a cache and
// gives it back, on every path (a sync, a delay registered, a delay that
// fires), so that the cache's next pod update goes in place and
// allocates nothing; a lease kept would make it copy.
func TestStepReleasesItsLease(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	yes := true
	job := &vcjob.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "uid-j", ResourceVersion: "1"},
		Spec: vcjob.JobSpec{MinAvailable: 1, Tasks: []vcjob.TaskSpec{{Name: "w", Replicas: 1,
			Policies: []vcjob.LifecyclePolicy{{Event: vcjob.PodFailedEvent, Action: vcjob.RestartJobAction, Timeout: minutes(1)}}}}}}
	jobs := cache.New()
	if _, _, err := jobs.OnJobAdd(job); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "j-w-0", Namespace: "ns", ResourceVersion: "1",
		Annotations:     map[string]string{vcjob.JobNameKey: "j", vcjob.TaskSpecKey: "w", vcjob.JobVersionKey: "0"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind, Name: "j", UID: "uid-j", Controller: &yes}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	jobs.OnPodAdd(pod)
	cluster := memcluster.New(metav1.NewTime(t0))
	cluster.PutJob(job)
	step := &worker.Step{Jobs: jobs, Delays: delay.New(), Cluster: &statemachine.Applied{Applier: cluster}}

	// Pod versions made beforehand: making them is not the cache's cost.
	versions := make([]*corev1.Pod, 200)
	for i := range versions {
		next := *pod
		next.ResourceVersion = strconv.Itoa(i + 2)
		versions[i] = &next
	}
	update := func() {
		next := versions[0]
		versions = versions[1:]
		jobs.OnPodUpdate(pod, next)
		pod = next
	}
	// A first lease makes the cache's job info an owner of what it makes
	// from then on; what it made before stays frozen and is copied once.
	step.Process(context.Background(), request.Request{Namespace: "ns", JobName: "j", Event: vcjob.OutOfSyncEvent}, t0)
	update()

	failed := request.Request{Namespace: "ns", JobName: "j", TaskName: "w", PodName: "j-w-0", Event: vcjob.PodFailedEvent}
	for name, run := range map[string]func(){
		"a sync": func() {
			step.Process(context.Background(), request.Request{Namespace: "ns", JobName: "j", Event: vcjob.OutOfSyncEvent}, t0)
		},
		"a delayed action": func() { step.Process(context.Background(), failed, t0) },
		"a delay that fires": func() {
			step.Fire(context.Background(), delay.Entry{Request: failed, Action: vcjob.RestartJobAction}, t0)
		},
	} {
		update()
		update() // the cache owns the pod's path again
		run()
		// Released, the lease leaves that path the cache's own: the first
		// update after the step changes it in place. Kept, it would be
		// copied.
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		update()
		runtime.ReadMemStats(&after)
		if n := after.Mallocs - before.Mallocs; n != 0 {
			t.Errorf("after %s: the first pod update allocated %d times: the step kept its lease", name, n)
		}
	}
}
