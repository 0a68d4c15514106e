package memcluster_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
)

// TestChangeNotify: each kind of change reaches the cache handler of its
// kind of object. The cases run in order on one cache, as a watch would
// deliver them: the job first, then its pod, its PodGroup, the deletions.
func TestChangeNotify(t *testing.T) {
	job := &vcjob.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind},
		ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "uid-j", ResourceVersion: "1"},
		Spec:       vcjob.JobSpec{Tasks: []vcjob.TaskSpec{{Name: "w", Replicas: 1}}},
	}
	running := job.DeepCopy()
	running.ResourceVersion = "2"
	running.Status.State.Phase = vcjob.Running
	pending := statemachine.RenderPod(job, &job.Spec.Tasks[0], 0) // as the controller creates it
	pending.UID, pending.ResourceVersion = "uid-j-w-0", "1"
	pending.Status.Phase = corev1.PodPending
	started := pending.DeepCopy()
	started.ResourceVersion = "2"
	started.Status.Phase = corev1.PodRunning

	forJob := request.Request{Namespace: "ns", JobName: "j", JobUID: "uid-j", Event: vcjob.OutOfSyncEvent}
	forPod := func(ev vcjob.Event) request.Request {
		return request.Request{Namespace: "ns", JobName: "j", JobUID: "uid-j", TaskName: "w", PodName: "j-w-0", PodUID: "uid-j-w-0", Event: ev}
	}
	c := cache.New()
	for _, tc := range []struct {
		name   string
		change memcluster.Change
		want   request.Request
		raised bool
	}{
		{"job added: OnJobAdd", memcluster.Change{Type: memcluster.Added, NewJob: job}, forJob, true},
		{"job's phase modified: OnJobUpdate", memcluster.Change{Type: memcluster.Modified, OldJob: job, NewJob: running}, forJob, true},
		{"job resynced: OnJobUpdate raises none", memcluster.Change{Type: memcluster.Modified, OldJob: running, NewJob: running}, request.Request{}, false},
		{"pod added: OnPodAdd", memcluster.Change{Type: memcluster.Added, NewPod: pending}, forPod(vcjob.PodPendingEvent), true},
		{"pod modified: OnPodUpdate", memcluster.Change{Type: memcluster.Modified, OldPod: pending, NewPod: started}, forPod(vcjob.PodRunningEvent), true},
		{"pod deleted: OnPodDelete", memcluster.Change{Type: memcluster.Deleted, OldPod: started}, forPod(vcjob.PodEvictedEvent), true},
		{"PodGroup modified: OnPodGroupUpdate",
			memcluster.Change{Type: memcluster.Modified, PodGroupNamespace: "ns", PodGroupJob: "j", OldPhase: podgroup.PhaseRunning, NewPhase: podgroup.PhaseUnknown},
			request.Request{Namespace: "ns", JobName: "j", Event: vcjob.JobUnknownEvent}, true},
		{"PodGroup deleted: nothing", memcluster.Change{Type: memcluster.Deleted, PodGroupNamespace: "ns", PodGroupJob: "j", OldPhase: podgroup.PhaseUnknown}, request.Request{}, false},
		{"job deleted: nothing", memcluster.Change{Type: memcluster.Deleted, OldJob: running}, request.Request{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, ok := tc.change.Notify(c)
			if ok != tc.raised || req != tc.want {
				t.Errorf("Notify = %+v, %v; want %+v, %v", req, ok, tc.want, tc.raised)
			}
		})
	}
}
