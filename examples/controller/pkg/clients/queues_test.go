package clients

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/validation"
)

func queue(name, parent, state string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
		"metadata": map[string]any{"name": name},
		"status":   map[string]any{"state": state},
	}}
	if parent != "" {
		_ = unstructured.SetNestedField(u.Object, parent, "spec", "parent")
	}
	return u
}

// The queue informer answers Volcano's queue rules, and a job is refused
// or admitted by them as Volcano's webhook would.
func TestQueuesAnswerVolcanosRules(t *testing.T) {
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{QueuesResource: "QueueList"},
		queue("root", "", "Open"), queue("default", "", "Open"), queue("team", "", "Open"),
		queue("team-a", "team", "Open"), queue("closed", "", "Closed"))
	q, err := NewQueues(dyn, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go q.Informer().Run(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), q.Informer().HasSynced) {
		t.Fatal("queues did not sync")
	}
	if state, ok, err := q.Queue("closed"); err != nil || !ok || state != "Closed" {
		t.Errorf("closed: %q %v %v", state, ok, err)
	}
	if _, ok, _ := q.Queue("missing"); ok {
		t.Error("a missing queue exists")
	}
	if n, _ := q.Children("team"); n != 1 {
		t.Errorf("team has %d children, want 1", n)
	}
	if n, _ := q.Children("root"); n != 3 {
		t.Errorf("root has %d children, want 3 (a queue without a parent hangs under root)", n)
	}
	for queueName, admitted := range map[string]bool{"default": true, "team-a": true, "team": false, "closed": false, "missing": false, "root": false} {
		job := &vcjob.Job{}
		job.Name, job.Namespace = "j", "ns"
		job.Spec.Queue = queueName
		job.Spec.MinAvailable = 1
		job.Spec.Tasks = []vcjob.TaskSpec{{Name: "t", Replicas: 1}}
		job.Spec.Tasks[0].Template.Spec.Containers = []corev1.Container{{Name: "c", Image: "img"}}
		vcjob.SetDefaults(job)
		errs := validation.ValidateJobWith(job, validation.Options{Queues: q})
		if got := len(errs) == 0; got != admitted {
			t.Errorf("queue %s: admitted %v, want %v (%v)", queueName, got, admitted, errs)
		}
	}
}
