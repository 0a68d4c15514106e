package podgroup

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

func TestMinTaskMember(t *testing.T) {
	part := func(total, size, minParts int32) *vcjob.PartitionPolicySpec {
		return &vcjob.PartitionPolicySpec{TotalPartitions: total, PartitionSize: size, MinPartitions: minParts}
	}
	tests := []struct {
		name         string
		replicas     int32
		minAvailable *int32
		partition    *vcjob.PartitionPolicySpec
		want         int32
	}{
		{"minAvailable set", 4, ptr[int32](3), nil, 3},
		{"minAvailable 0 is set", 4, ptr[int32](0), nil, 0},
		{"minAvailable nil, no partitions: replicas", 4, nil, nil, 4},
		{"minAvailable wins over minPartitions", 8, ptr[int32](5), part(4, 2, 3), 5},
		{"minAvailable nil, minPartitions set: minPartitions*partitionSize", 8, nil, part(4, 2, 3), 6},
		{"minAvailable nil, minPartitions unset: replicas", 8, nil, part(4, 2, 0), 8},
		{"minAvailable nil, partitionSize 0: replicas", 8, nil, part(4, 0, 3), 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk := task("w", tt.replicas, tt.minAvailable, "", "cpu=1")
			tk.PartitionPolicy = tt.partition
			assert.Equal(t, tt.want, MinTaskMember(&tk))
		})
	}
}

func TestJobNetworkTopology(t *testing.T) {
	tests := []struct {
		name string
		in   *vcjob.NetworkTopologySpec
		want *vcjob.NetworkTopologySpec
	}{
		{"nil stays nil", nil, nil},
		{"mode only", &vcjob.NetworkTopologySpec{Mode: vcjob.SoftNetworkTopologyMode},
			&vcjob.NetworkTopologySpec{Mode: vcjob.SoftNetworkTopologyMode}},
		{"highestTierAllowed", &vcjob.NetworkTopologySpec{Mode: vcjob.HardNetworkTopologyMode, HighestTierAllowed: ptr(2)},
			&vcjob.NetworkTopologySpec{Mode: vcjob.HardNetworkTopologyMode, HighestTierAllowed: ptr(2)}},
		{"highestTierAllowed 0 is set", &vcjob.NetworkTopologySpec{HighestTierAllowed: ptr(0)},
			&vcjob.NetworkTopologySpec{HighestTierAllowed: ptr(0)}},
		{"highestTierName", &vcjob.NetworkTopologySpec{Mode: vcjob.HardNetworkTopologyMode, HighestTierName: "rack"},
			&vcjob.NetworkTopologySpec{Mode: vcjob.HardNetworkTopologyMode, HighestTierName: "rack"}},
		{"both: highestTierAllowed wins", &vcjob.NetworkTopologySpec{Mode: vcjob.SoftNetworkTopologyMode, HighestTierAllowed: ptr(1), HighestTierName: "rack"},
			&vcjob.NetworkTopologySpec{Mode: vcjob.SoftNetworkTopologyMode, HighestTierAllowed: ptr(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := JobNetworkTopology(tt.in)
			require.Equal(t, tt.want, got)
			if tt.in != nil && tt.in.HighestTierAllowed != nil {
				*got.HighestTierAllowed = 99
				assert.NotEqual(t, 99, *tt.in.HighestTierAllowed, "result aliases the job's highestTierAllowed")
			}
		})
	}
}

func TestSubGroupPolicies(t *testing.T) {
	nt := &vcjob.NetworkTopologySpec{Mode: vcjob.HardNetworkTopologyMode, HighestTierAllowed: ptr(1), HighestTierName: "rack"}
	plain := task("ps", 2, ptr[int32](2), "", "cpu=1")
	withMin := task("worker", 8, nil, "", "cpu=1")
	withMin.PartitionPolicy = &vcjob.PartitionPolicySpec{TotalPartitions: 4, PartitionSize: 2, MinPartitions: 3, NetworkTopology: nt}
	noMin := task("eval", 6, nil, "", "cpu=1")
	noMin.PartitionPolicy = &vcjob.PartitionPolicySpec{TotalPartitions: 2, PartitionSize: 3}

	tests := []struct {
		name  string
		tasks []vcjob.TaskSpec
		want  []SubGroupPolicySpec
	}{
		{"no partitioned task: none", []vcjob.TaskSpec{plain}, nil},
		{"one per partitioned task, in task order", []vcjob.TaskSpec{withMin, plain, noMin}, []SubGroupPolicySpec{
			{
				Name:            "worker",
				SubGroupSize:    ptr[int32](2),
				MinSubGroups:    ptr[int32](3),
				LabelSelector:   &metav1.LabelSelector{MatchLabels: map[string]string{"volcano.sh/task-spec": "worker"}},
				MatchLabelKeys:  []string{"volcano.sh/partition-id"},
				NetworkTopology: &vcjob.NetworkTopologySpec{Mode: vcjob.HardNetworkTopologyMode, HighestTierAllowed: ptr(1), HighestTierName: "rack"},
			},
			{
				Name:           "eval",
				SubGroupSize:   ptr[int32](3),
				MinSubGroups:   ptr[int32](0),
				LabelSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{"volcano.sh/task-spec": "eval"}},
				MatchLabelKeys: []string{"volcano.sh/partition-id"},
			},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SubGroupPolicies(tt.tasks)
			require.Equal(t, tt.want, got)
			for i := range got {
				*got[i].SubGroupSize = 77
				if got[i].NetworkTopology != nil {
					got[i].NetworkTopology.HighestTierName = "changed"
				}
			}
			assert.Equal(t, int32(2), withMin.PartitionPolicy.PartitionSize, "result aliases the partition size")
			assert.Equal(t, "rack", nt.HighestTierName, "result aliases the partition's networkTopology")
		})
	}
}

func TestDesired(t *testing.T) {
	worker := task("worker", 4, nil, "high", "cpu=1")
	worker.PartitionPolicy = &vcjob.PartitionPolicySpec{TotalPartitions: 2, PartitionSize: 2, MinPartitions: 1}
	j := job(3, task("ps", 1, ptr[int32](1), "", "cpu=10"), worker)
	j.Annotations = map[string]string{"a": "1"}
	j.Labels = map[string]string{"l": "2"}
	j.Spec.PriorityClassName = "urgent"
	j.Spec.Queue = "q1"
	j.Spec.NetworkTopology = &vcjob.NetworkTopologySpec{Mode: vcjob.HardNetworkTopologyMode, HighestTierAllowed: ptr(2), HighestTierName: "spine"}
	prios := classes(map[string]int32{"high": 100})

	got := DesiredWith(j, Options{Priorities: prios, Sizing: SizeByRequests})

	assert.Equal(t, metav1.TypeMeta{APIVersion: "scheduling.volcano.sh/v1beta1", Kind: "PodGroup"}, got.TypeMeta)
	assert.Equal(t, "train-uid-1", got.Name)
	assert.Equal(t, "ns1", got.Namespace)
	assert.Equal(t, []metav1.OwnerReference{{
		APIVersion: "batch.volcano.sh/v1alpha1", Kind: "Job", Name: "train", UID: "uid-1",
		Controller: ptr(true), BlockOwnerDeletion: ptr(true),
	}}, got.OwnerReferences)
	assert.Equal(t, j.Annotations, got.Annotations)
	assert.Equal(t, j.Labels, got.Labels)
	got.Annotations["a"], got.Labels["l"] = "x", "x"
	assert.Equal(t, "1", j.Annotations["a"], "annotations alias the job's")
	assert.Equal(t, "2", j.Labels["l"], "labels alias the job's")

	assert.Equal(t, int32(3), got.Spec.MinMember)
	assert.Equal(t, map[string]int32{"ps": 1, "worker": 2}, got.Spec.MinTaskMember)
	assert.Equal(t, "q1", got.Spec.Queue)
	assert.Equal(t, "urgent", got.Spec.PriorityClassName)
	assert.Equal(t, &vcjob.NetworkTopologySpec{Mode: vcjob.HardNetworkTopologyMode, HighestTierAllowed: ptr(2)}, got.Spec.NetworkTopology)
	require.Len(t, got.Spec.SubGroupPolicy, 1)
	assert.Equal(t, SubGroupPolicy(&j.Spec.Tasks[1]), got.Spec.SubGroupPolicy[0])
	require.NotNil(t, got.Spec.MinResources)
	// Job minAvailable 3 is below the task sum 1+4 (a nil minAvailable
	// counts its replicas there, not the partition rule): the first 3 pods
	// in priority order, all of worker (priority 100).
	sameResources(t, rl("cpu=3"), *got.Spec.MinResources)
	sameResources(t, minReq(j, prios), *got.Spec.MinResources)
	assert.Empty(t, got.Status.Phase)
}

// A job without annotations or labels gives a PodGroup without them, and
// an always-present (possibly empty) minResources.
func TestDesiredBare(t *testing.T) {
	got := Desired(job(0, task("a", 0, ptr[int32](0), "", "cpu=1")), nil)
	assert.Nil(t, got.Annotations)
	assert.Nil(t, got.Labels)
	assert.Nil(t, got.Spec.NetworkTopology)
	assert.Nil(t, got.Spec.SubGroupPolicy)
	require.NotNil(t, got.Spec.MinResources)
	assert.Empty(t, *got.Spec.MinResources)
	assert.Equal(t, map[string]int32{"a": 0}, got.Spec.MinTaskMember)
}
