package podgroup

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

// A PodGroup as Volcano's controller writes it and the API server returns
// it (its status counts are dropped by this mirror).
const volcanoPodGroup = `{
  "apiVersion": "scheduling.volcano.sh/v1beta1",
  "kind": "PodGroup",
  "metadata": {
    "name": "train-uid-1",
    "namespace": "ns1",
    "ownerReferences": [{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": "train", "uid": "uid-1", "controller": true, "blockOwnerDeletion": true}]
  },
  "spec": {
    "minMember": 3,
    "minTaskMember": {"ps": 1, "worker": 2},
    "queue": "default",
    "priorityClassName": "high",
    "minResources": {"cpu": "2500m", "memory": "1Gi"},
    "networkTopology": {"mode": "hard", "highestTierAllowed": 2},
    "subGroupPolicy": [{
      "name": "worker",
      "networkTopology": {"mode": "soft", "highestTierName": "rack"},
      "subGroupSize": 2,
      "minSubGroups": 1,
      "labelSelector": {"matchLabels": {"volcano.sh/task-spec": "worker"}},
      "matchLabelKeys": ["volcano.sh/partition-id"]
    }]
  },
  "status": {"phase": "Inqueue", "running": 1, "conditions": [{"type": "Scheduled", "status": "True"}]}
}`

func TestPodGroupJSON(t *testing.T) {
	var pg PodGroup
	require.NoError(t, json.Unmarshal([]byte(volcanoPodGroup), &pg))

	want := PodGroup{
		TypeMeta: metav1.TypeMeta{APIVersion: APIVersion, Kind: Kind},
		ObjectMeta: metav1.ObjectMeta{
			Name: "train-uid-1", Namespace: "ns1",
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "batch.volcano.sh/v1alpha1", Kind: "Job", Name: "train", UID: "uid-1",
				Controller: ptr(true), BlockOwnerDeletion: ptr(true),
			}},
		},
		Spec: Spec{
			MinMember:         3,
			MinTaskMember:     map[string]int32{"ps": 1, "worker": 2},
			Queue:             "default",
			PriorityClassName: "high",
			MinResources:      ptr(rl("cpu=2500m,memory=1Gi")),
			NetworkTopology:   &vcjob.NetworkTopologySpec{Mode: vcjob.HardNetworkTopologyMode, HighestTierAllowed: ptr(2)},
			SubGroupPolicy: []SubGroupPolicySpec{{
				Name:            "worker",
				NetworkTopology: &vcjob.NetworkTopologySpec{Mode: vcjob.SoftNetworkTopologyMode, HighestTierName: "rack"},
				SubGroupSize:    ptr[int32](2),
				MinSubGroups:    ptr[int32](1),
				LabelSelector:   &metav1.LabelSelector{MatchLabels: map[string]string{"volcano.sh/task-spec": "worker"}},
				MatchLabelKeys:  []string{"volcano.sh/partition-id"},
			}},
		},
		Status: Status{Phase: PhaseInqueue, Conditions: []Condition{{Type: ConditionScheduled, Status: corev1.ConditionTrue}}},
	}
	require.True(t, equality.Semantic.DeepEqual(want, pg), "decoded %+v", pg)

	// Encoding gives back the same fields, less what the mirror drops.
	out, err := json.Marshal(pg)
	require.NoError(t, err)
	var gotMap, wantMap map[string]any
	require.NoError(t, json.Unmarshal(out, &gotMap))
	require.NoError(t, json.Unmarshal([]byte(volcanoPodGroup), &wantMap))
	// The counts are dropped; a condition's time is encoded as Volcano's
	// is (a zero time as null).
	wantMap["status"] = map[string]any{"phase": "Inqueue", "conditions": []any{map[string]any{"type": "Scheduled", "status": "True", "lastTransitionTime": nil}}}
	delete(gotMap["metadata"].(map[string]any), "creationTimestamp")
	assert.Equal(t, wantMap, gotMap)
}

func TestGroupVersionKind(t *testing.T) {
	gvk := GroupVersionKind()
	assert.Equal(t, "scheduling.volcano.sh/v1beta1, Kind=PodGroup", gvk.String())
	assert.Equal(t, APIVersion, gvk.GroupVersion().String())
}

func TestDeepCopy(t *testing.T) {
	decode := func() *PodGroup {
		var pg PodGroup
		require.NoError(t, json.Unmarshal([]byte(volcanoPodGroup), &pg))
		pg.Labels = map[string]string{"a": "b"}
		return &pg
	}
	orig, snapshot := *decode(), decode() // snapshot shares nothing with orig

	c := orig.DeepCopy()
	require.True(t, equality.Semantic.DeepEqual(&orig, c))
	// Change everything a shallow copy would share.
	c.Labels["a"] = "x"
	c.OwnerReferences[0].Name = "x"
	c.Spec.MinTaskMember["ps"] = 9
	(*c.Spec.MinResources)["cpu"] = rl("cpu=9")["cpu"]
	*c.Spec.NetworkTopology.HighestTierAllowed = 9
	sg := &c.Spec.SubGroupPolicy[0]
	sg.Name = "x"
	*sg.SubGroupSize = 9
	*sg.MinSubGroups = 9
	sg.NetworkTopology.HighestTierName = "x"
	sg.LabelSelector.MatchLabels["volcano.sh/task-spec"] = "x"
	sg.MatchLabelKeys[0] = "x"
	c.Status.Conditions[0].Message = "x"
	assert.True(t, equality.Semantic.DeepEqual(snapshot, &orig), "the original changed through its copy")

	obj := orig.DeepCopyObject()
	assert.True(t, equality.Semantic.DeepEqual(&orig, obj))
	assert.Nil(t, (*PodGroup)(nil).DeepCopy())
}
