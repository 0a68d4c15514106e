package partition_test

import (
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/partition"
)

func TestID(t *testing.T) {
	for _, tc := range []struct {
		index int
		size  int32
		want  string
	}{
		{0, 2, "0"}, {1, 2, "0"}, {2, 2, "1"}, {5, 2, "2"}, {7, 4, "1"},
		{3, 1, "3"},
		{3, 0, "0"}, {3, -1, "0"}, // no division by zero: everything in "0"
	} {
		if got := partition.ID(tc.index, tc.size); got != tc.want {
			t.Errorf("ID(%d, %d) = %q, want %q", tc.index, tc.size, got, tc.want)
		}
	}
}

func TestOf(t *testing.T) {
	task := &vcjob.TaskSpec{PartitionPolicy: &vcjob.PartitionPolicySpec{TotalPartitions: 2, PartitionSize: 3}}
	if id, ok := partition.Of(task, 4); !ok || id != "1" {
		t.Errorf("Of = %q, %v", id, ok)
	}
	if _, ok := partition.Of(&vcjob.TaskSpec{}, 4); ok {
		t.Error("a task without a partition policy has no partitions")
	}
	if _, ok := partition.Of(nil, 0); ok {
		t.Error("nil task")
	}
}

func labelled(name, id string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}}}
	if id != "" {
		p.Labels[vcjob.PartitionIDKey] = id
	}
	return p
}

func TestMembersAndGroup(t *testing.T) {
	pods := map[string]*corev1.Pod{
		"j-w-0": labelled("j-w-0", "0"), "j-w-1": labelled("j-w-1", "0"),
		"j-w-3": labelled("j-w-3", "1"), "j-w-2": labelled("j-w-2", "1"),
		"j-w-9": labelled("j-w-9", ""),
	}
	got := partition.Members(maps.All(pods), "1")
	if len(got) != 2 || got[0].Name != "j-w-2" || got[1].Name != "j-w-3" {
		t.Errorf("Members(1) = %v, want j-w-2, j-w-3 in name order", got)
	}
	if got := partition.Members(maps.All(pods), ""); got != nil {
		t.Errorf("an empty id has no members, got %v", got)
	}
	if got := partition.Members(maps.All(pods), "7"); len(got) != 0 {
		t.Errorf("unknown id: %v", got)
	}
	empty := labelled("j-w-8", "")
	empty.Labels[vcjob.PartitionIDKey] = ""
	pods["j-w-8"] = empty
	g := partition.Group(maps.All(pods))
	if len(g) != 2 || len(g["0"]) != 2 || len(g["1"]) != 2 {
		t.Errorf("Group = %v; a pod without the label is left out", g)
	}
}
