package podgroup

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

// updateFixture is a job with a plain task and a partitioned one, and the
// PodGroup Desired gives for it.
func updateFixture() (*vcjob.Job, PodGroup) {
	worker := task("worker", 4, ptr[int32](2), "", "cpu=1")
	worker.PartitionPolicy = &vcjob.PartitionPolicySpec{TotalPartitions: 2, PartitionSize: 2, MinPartitions: 1}
	j := job(3, task("ps", 1, ptr[int32](1), "", "cpu=500m,memory=1Gi"), worker)
	j.Spec.PriorityClassName = "normal"
	return j, desiredReq(j)
}

func TestUpdate(t *testing.T) {
	quantities := func(s string) *corev1.ResourceList { l := rl(s); return &l }
	sgp := func(name string, size, minGroups int32) SubGroupPolicySpec {
		return SubGroupPolicySpec{
			Name: name, SubGroupSize: &size, MinSubGroups: &minGroups,
			LabelSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{vcjob.TaskSpecKey: name}},
			MatchLabelKeys: []string{vcjob.PartitionIDKey},
		}
	}

	tests := []struct {
		name string
		// existing is derived from the fixture's desired PodGroup.
		existing func(pg *PodGroup)
		// desired is derived from the fixture's desired PodGroup.
		desired     func(pg *PodGroup)
		wantChanged bool
		// want edits existing into the expected result; nil: unchanged.
		want func(pg *PodGroup)
	}{
		{name: "the same PodGroup: no write"},

		{
			name:        "priorityClassName differs",
			existing:    func(pg *PodGroup) { pg.Spec.PriorityClassName = "old" },
			wantChanged: true,
			want:        func(pg *PodGroup) { pg.Spec.PriorityClassName = "normal" },
		},
		{
			name:        "minMember differs: minMember and minResources are set",
			existing:    func(pg *PodGroup) { pg.Spec.MinMember = 1; pg.Spec.MinResources = quantities("cpu=9") },
			wantChanged: true,
			want:        func(pg *PodGroup) { pg.Spec.MinMember = 3; pg.Spec.MinResources = quantities("cpu=2500m,memory=1Gi") },
		},
		{
			name:        "minResources differs",
			existing:    func(pg *PodGroup) { pg.Spec.MinResources = quantities("cpu=2,memory=1Gi") },
			wantChanged: true,
			want:        func(pg *PodGroup) { pg.Spec.MinResources = quantities("cpu=2500m,memory=1Gi") },
		},
		{
			name:        "minResources gains a resource name",
			existing:    func(pg *PodGroup) { pg.Spec.MinResources = quantities("cpu=2500m") },
			wantChanged: true,
			want:        func(pg *PodGroup) { pg.Spec.MinResources = quantities("cpu=2500m,memory=1Gi") },
		},
		{
			name:     "minResources equal by value: 2500m memory=1024Mi vs 2.5 memory=1Gi",
			existing: func(pg *PodGroup) { pg.Spec.MinResources = quantities("cpu=2.5,memory=1024Mi") },
		},
		{
			name:     "minResources 1000m equals 1",
			existing: func(pg *PodGroup) { pg.Spec.MinResources = quantities("cpu=1000m") },
			desired:  func(pg *PodGroup) { pg.Spec.MinResources = quantities("cpu=1") },
		},
		{
			name:        "missing minResources differs from an empty one",
			existing:    func(pg *PodGroup) { pg.Spec.MinResources = nil },
			desired:     func(pg *PodGroup) { pg.Spec.MinResources = quantities("") },
			wantChanged: true,
			want:        func(pg *PodGroup) { pg.Spec.MinResources = quantities("") },
		},
		{
			name:        "minTaskMember entry differs",
			existing:    func(pg *PodGroup) { pg.Spec.MinTaskMember["worker"] = 4 },
			wantChanged: true,
			want:        func(pg *PodGroup) { pg.Spec.MinTaskMember["worker"] = 2 },
		},
		{
			name:        "minTaskMember entry missing",
			existing:    func(pg *PodGroup) { delete(pg.Spec.MinTaskMember, "ps") },
			wantChanged: true,
			want:        func(pg *PodGroup) { pg.Spec.MinTaskMember["ps"] = 1 },
		},
		{
			name:        "minTaskMember nil",
			existing:    func(pg *PodGroup) { pg.Spec.MinTaskMember = nil },
			wantChanged: true,
			want:        func(pg *PodGroup) { pg.Spec.MinTaskMember = map[string]int32{"ps": 1, "worker": 2} },
		},
		{
			name:        "minTaskMember nil is a change even with nothing to add",
			existing:    func(pg *PodGroup) { pg.Spec.MinTaskMember = nil },
			desired:     func(pg *PodGroup) { pg.Spec.MinTaskMember = map[string]int32{} },
			wantChanged: true,
			want:        func(pg *PodGroup) { pg.Spec.MinTaskMember = map[string]int32{} },
		},
		{
			name:     "minTaskMember entry of another task is kept and is no change",
			existing: func(pg *PodGroup) { pg.Spec.MinTaskMember["gone"] = 7 },
		},
		{
			name:        "subGroupPolicy entry differs",
			existing:    func(pg *PodGroup) { pg.Spec.SubGroupPolicy = []SubGroupPolicySpec{sgp("worker", 2, 2)} },
			wantChanged: true,
			want:        func(pg *PodGroup) { pg.Spec.SubGroupPolicy = []SubGroupPolicySpec{sgp("worker", 2, 1)} },
		},
		{
			name: "subGroupPolicy entry differs in networkTopology",
			existing: func(pg *PodGroup) {
				pg.Spec.SubGroupPolicy[0].NetworkTopology = &vcjob.NetworkTopologySpec{Mode: vcjob.HardNetworkTopologyMode}
			},
			wantChanged: true,
			want:        func(pg *PodGroup) { pg.Spec.SubGroupPolicy[0].NetworkTopology = nil },
		},
		{
			name:        "subGroupPolicy entry missing",
			existing:    func(pg *PodGroup) { pg.Spec.SubGroupPolicy = nil },
			wantChanged: true,
			want:        func(pg *PodGroup) { pg.Spec.SubGroupPolicy = []SubGroupPolicySpec{sgp("worker", 2, 1)} },
		},
		{
			name: "subGroupPolicy entry left for a task no longer partitioned",
			existing: func(pg *PodGroup) {
				pg.Spec.SubGroupPolicy = append(pg.Spec.SubGroupPolicy, sgp("ps", 1, 1))
			},
			wantChanged: true,
			want:        func(pg *PodGroup) { pg.Spec.SubGroupPolicy = []SubGroupPolicySpec{sgp("worker", 2, 1)} },
		},
		{
			name: "subGroupPolicy entry naming no task is kept and is no change",
			existing: func(pg *PodGroup) {
				pg.Spec.SubGroupPolicy = append([]SubGroupPolicySpec{sgp("gone", 5, 5)}, pg.Spec.SubGroupPolicy...)
			},
		},
		{
			name: "subGroupPolicy repeated name: the last entry is compared",
			existing: func(pg *PodGroup) {
				pg.Spec.SubGroupPolicy = []SubGroupPolicySpec{sgp("worker", 9, 9), sgp("worker", 2, 1)}
			},
		},
		{
			name: "subGroupPolicy order is no change",
			existing: func(pg *PodGroup) {
				pg.Spec.SubGroupPolicy = []SubGroupPolicySpec{sgp("b", 2, 1), sgp("a", 3, 1)}
			},
			desired: func(pg *PodGroup) {
				pg.Spec.SubGroupPolicy = []SubGroupPolicySpec{sgp("a", 3, 1), sgp("b", 2, 1)}
			},
		},
		{
			name: "subGroupPolicy empty label map equals a missing one",
			existing: func(pg *PodGroup) {
				pg.Spec.SubGroupPolicy[0].LabelSelector.MatchExpressions = []metav1.LabelSelectorRequirement{}
			},
		},
		{
			name:     "queue differs: kept, no write",
			existing: func(pg *PodGroup) { pg.Spec.Queue = "other" },
		},
		{
			name:     "networkTopology differs: kept, no write",
			existing: func(pg *PodGroup) { pg.Spec.NetworkTopology = &vcjob.NetworkTopologySpec{HighestTierName: "rack"} },
		},
		{
			name: "metadata and status differ: kept, no write",
			existing: func(pg *PodGroup) {
				pg.Name = "train" // a legacy-named PodGroup
				pg.ResourceVersion = "42"
				pg.Labels = map[string]string{"x": "y"}
				pg.Annotations = nil
				pg.OwnerReferences = nil
				pg.TypeMeta = metav1.TypeMeta{}
				pg.Status.Phase = PhaseRunning
			},
		},
		{
			name: "a write keeps everything else of existing",
			existing: func(pg *PodGroup) {
				pg.ResourceVersion = "42"
				pg.Spec.Queue = "other"
				pg.Status.Phase = PhaseInqueue
				pg.Spec.PriorityClassName = ""
			},
			wantChanged: true,
			want:        func(pg *PodGroup) { pg.Spec.PriorityClassName = "normal" },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, base := updateFixture()
			existing, desired := *base.DeepCopy(), *base.DeepCopy()
			if tt.existing != nil {
				tt.existing(&existing)
			}
			if tt.desired != nil {
				tt.desired(&desired)
			}
			existingBefore, desiredBefore := existing.DeepCopy(), desired.DeepCopy()

			got, changed := Update(existing, desired)
			_, wouldChange := update(existing, desired)
			assert.Equal(t, wouldChange, NeedsUpdate(&existing, &desired), "NeedsUpdate agrees with the rules it shortcuts")

			assert.Equal(t, tt.wantChanged, changed, "changed")
			want := existingBefore.DeepCopy()
			if tt.want != nil {
				tt.want(want)
			}
			if !equality.Semantic.DeepEqual(*want, got) {
				t.Fatalf("result\nwant %+v\n got %+v", want.Spec, got.Spec)
			}
			require.True(t, equality.Semantic.DeepEqual(existingBefore, &existing), "Update modified existing")
			require.True(t, equality.Semantic.DeepEqual(desiredBefore, &desired), "Update modified desired")
		})
	}
}

// Updating is idempotent: the result of a write needs no further write.
func TestUpdateThenNoChange(t *testing.T) {
	j, desired := updateFixture()
	existing := *desired.DeepCopy()
	existing.Spec.PriorityClassName = "old"
	existing.Spec.MinTaskMember = nil
	existing.Spec.SubGroupPolicy = nil
	existing.Spec.MinResources = nil
	got, changed := Update(existing, desiredReq(j))
	require.True(t, changed)
	_, again := Update(got, desiredReq(j))
	assert.False(t, again)
}

// The result shares nothing with its arguments.
func TestUpdateDoesNotAlias(t *testing.T) {
	_, desired := updateFixture()
	existing := *desired.DeepCopy()
	existing.Spec.MinMember = 0
	existing.Spec.SubGroupPolicy = nil
	existing.Spec.MinTaskMember = map[string]int32{}
	got, changed := Update(existing, desired)
	require.True(t, changed)

	(*got.Spec.MinResources)[corev1.ResourceCPU] = rl("cpu=99")[corev1.ResourceCPU]
	*got.Spec.SubGroupPolicy[0].SubGroupSize = 99
	got.Spec.MinTaskMember["ps"] = 99
	sameResources(t, rl("cpu=2500m,memory=1Gi"), *desired.Spec.MinResources)
	assert.Equal(t, int32(2), *desired.Spec.SubGroupPolicy[0].SubGroupSize)
	assert.Empty(t, existing.Spec.MinTaskMember)
}
