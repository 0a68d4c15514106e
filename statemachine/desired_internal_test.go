package statemachine

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
)

// TestDesiredPodGroupRemembered: Applied computes a job's desired PodGroup
// once per job object, and keeps it for a later object of the same
// generation, name, labels and annotations (a status write); anything else
// computes it afresh.
func TestDesiredPodGroupRemembered(t *testing.T) {
	job := &vcjob.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "u", Generation: 1, Labels: map[string]string{"a": "b"}},
		Spec: vcjob.JobSpec{MinAvailable: 2, Tasks: []vcjob.TaskSpec{{Name: "w", Replicas: 2}}}}
	a := &Applied{}
	first := a.podGroupFor(job)
	if first == nil || first.Spec.MinMember != 2 {
		t.Fatalf("desired %+v", first)
	}
	if a.podGroupFor(job) != first {
		t.Error("the same job object computed its PodGroup again")
	}
	statusWrite := job.DeepCopy()
	statusWrite.Status.Running = 2
	if a.podGroupFor(statusWrite) != first {
		t.Error("a status write (same generation) computed the PodGroup again")
	}
	for name, change := range map[string]func(*vcjob.Job){
		"a new generation": func(j *vcjob.Job) { j.Generation, j.Spec.MinAvailable = 2, 1 },
		"new labels":       func(j *vcjob.Job) { j.Labels = map[string]string{"a": "c"} },
		"no generation":    func(j *vcjob.Job) { j.Generation = 0 },
	} {
		next := job.DeepCopy()
		change(next)
		got := a.podGroupFor(next)
		if got == first {
			t.Errorf("%s: the remembered PodGroup was handed out", name)
		}
		if want := podgroup.Desired(next, nil); got.Spec.MinMember != want.Spec.MinMember || got.Labels["a"] != want.Labels["a"] {
			t.Errorf("%s: desired %+v, want %+v", name, got, want)
		}
		a.podGroupFor(job) // back to the first for the next case
		first = a.podGroupFor(job)
	}
	a.Priorities = func(string) (int32, bool) { return 1, true }
	named := job.DeepCopy()
	named.Spec.Tasks[0].Template.Spec.PriorityClassName = "high"
	if a.podGroupFor(named) != nil {
		t.Error("a job naming a priority class had its PodGroup remembered; the class may change without the job")
	}
}
