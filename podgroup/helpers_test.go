package podgroup

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

// rl parses "cpu=1,memory=2Gi" into a ResourceList; "" is an empty list.
func rl(s string) corev1.ResourceList {
	out := corev1.ResourceList{}
	if s == "" {
		return out
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			panic("bad resource list " + s)
		}
		out[corev1.ResourceName(k)] = resource.MustParse(v)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// container is a container requesting req.
func container(req string) corev1.Container {
	return corev1.Container{Name: "c", Image: "busybox", Resources: corev1.ResourceRequirements{Requests: rl(req)}}
}

// task builds a task of replicas pods each with one container requesting
// req, with template priority class pc.
func task(name string, replicas int32, minAvailable *int32, pc, req string) vcjob.TaskSpec {
	return vcjob.TaskSpec{
		Name:         name,
		Replicas:     replicas,
		MinAvailable: minAvailable,
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			PriorityClassName: pc,
			Containers:        []corev1.Container{container(req)},
		}},
	}
}

func job(minAvailable int32, tasks ...vcjob.TaskSpec) *vcjob.Job {
	return &vcjob.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind},
		ObjectMeta: metav1.ObjectMeta{Name: "train", Namespace: "ns1", UID: "uid-1"},
		Spec: vcjob.JobSpec{
			MinAvailable: minAvailable,
			Queue:        "default",
			Tasks:        tasks,
		},
	}
}

// classes is a PriorityLookup over a fixed table.
func classes(table map[string]int32) PriorityLookup {
	return func(name string) (int32, bool) {
		v, ok := table[name]
		return v, ok
	}
}

// sameResources fails unless got has exactly want's resource names with
// equal quantities (compared by value).
func sameResources(t testing.TB, want, got corev1.ResourceList) {
	t.Helper()
	if d := diffResources(want, got); d != "" {
		t.Fatalf("resources differ: %s\nwant %s\n got %s", d, fmtResources(want), fmtResources(got))
	}
}

func diffResources(want, got corev1.ResourceList) string {
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			return fmt.Sprintf("%s missing", name)
		}
		if w.Cmp(g) != 0 {
			return fmt.Sprintf("%s: want %s, got %s", name, w.String(), g.String())
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			return fmt.Sprintf("%s unexpected", name)
		}
	}
	return ""
}

func fmtResources(l corev1.ResourceList) string {
	var parts []string
	for name, q := range l {
		parts = append(parts, string(name)+"="+q.String())
	}
	slices.Sort(parts)
	return "{" + strings.Join(parts, ",") + "}"
}

// minReq and desiredReq size pods by their requests only: the selection
// rules are tested on the figures a scheduler reads; quota_test.go tests
// the charge Volcano uses by default.
func minReq(j *vcjob.Job, prios PriorityLookup) corev1.ResourceList {
	return MinResourcesWith(j, Options{Priorities: prios, Sizing: SizeByRequests})
}

func desiredReq(j *vcjob.Job) PodGroup {
	return DesiredWith(j, Options{Sizing: SizeByRequests})
}
