package podgroup

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/vcjob/vcjob"
)

// API group, version and kind of the PodGroup.
const (
	GroupName  = "scheduling.volcano.sh"
	Version    = "v1beta1"
	APIVersion = GroupName + "/" + Version
	Kind       = "PodGroup"
)

// GroupVersionKind is scheduling.volcano.sh/v1beta1, Kind=PodGroup.
func GroupVersionKind() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: GroupName, Version: Version, Kind: Kind}
}

// PodGroup mirrors Volcano's scheduling.volcano.sh/v1beta1 PodGroup: the
// spec fields a job controller writes, with Volcano's JSON names, and the
// status phase and conditions it reads. It decodes a real PodGroup (fields
// it does not know, such as the status counts, are dropped) and encodes to
// JSON the API server accepts.
type PodGroup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   Spec   `json:"spec,omitempty"`
	Status Status `json:"status,omitempty"`
}

// PodGroupList is a list of PodGroups.
type PodGroupList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []PodGroup `json:"items"`
}

// Spec is the PodGroup's spec (Volcano's PodGroupSpec).
type Spec struct {
	// MinMember is how many pods must be schedulable before any is bound.
	MinMember int32 `json:"minMember,omitempty"`
	// MinTaskMember is that minimum per task, keyed by task name.
	MinTaskMember map[string]int32 `json:"minTaskMember,omitempty"`
	// Queue the group is scheduled from.
	Queue string `json:"queue,omitempty"`
	// PriorityClassName of the group.
	PriorityClassName string `json:"priorityClassName,omitempty"`
	// MinResources the scheduler must find before it admits the gang.
	MinResources *corev1.ResourceList `json:"minResources,omitempty"`
	// NetworkTopology bounds how far apart the pods may land. Its JSON
	// (mode, highestTierAllowed, highestTierName) is the same in the Job and
	// PodGroup APIs, so the Job's type is reused.
	NetworkTopology *vcjob.NetworkTopologySpec `json:"networkTopology,omitempty"`
	// SubGroupPolicy gangs subsets of the pods (a job's partitions).
	SubGroupPolicy []SubGroupPolicySpec `json:"subGroupPolicy,omitempty"`
}

// SubGroupPolicySpec is one sub-gang: the pods LabelSelector matches, split
// into groups by the values of MatchLabelKeys, each group SubGroupSize pods.
type SubGroupPolicySpec struct {
	Name            string                     `json:"name,omitempty"`
	NetworkTopology *vcjob.NetworkTopologySpec `json:"networkTopology,omitempty"`
	SubGroupSize    *int32                     `json:"subGroupSize,omitempty"`
	MinSubGroups    *int32                     `json:"minSubGroups,omitempty"`
	LabelSelector   *metav1.LabelSelector      `json:"labelSelector,omitempty"`
	MatchLabelKeys  []string                   `json:"matchLabelKeys,omitempty"`
}

// Status is the part of the PodGroup's status a job controller reads:
// the phase the scheduler gives the gang, and its conditions, whose latest
// true one Volcano's job controller reports on the job (a PodGroupPending
// Event) at every sync unless it is Scheduled.
type Status struct {
	Phase      Phase       `json:"phase,omitempty"`
	Conditions []Condition `json:"conditions,omitempty"`
}

// ConditionType is the type of a PodGroup condition.
type ConditionType string

// The condition types Volcano's scheduler sets.
const (
	// ConditionUnschedulable: the scheduler could not place the gang;
	// its message says why.
	ConditionUnschedulable ConditionType = "Unschedulable"
	// ConditionScheduled: the gang has been placed.
	ConditionScheduled ConditionType = "Scheduled"
)

// Condition is one of the PodGroup's status conditions (Volcano's
// PodGroupCondition), with Volcano's JSON names.
type Condition struct {
	Type               ConditionType          `json:"type,omitempty"`
	Status             corev1.ConditionStatus `json:"status,omitempty"`
	TransitionID       string                 `json:"transitionID,omitempty"`
	LastTransitionTime metav1.Time            `json:"lastTransitionTime,omitempty"`
	Reason             string                 `json:"reason,omitempty"`
	Message            string                 `json:"message,omitempty"`
}

// DeepCopyInto copies in into out; out shares no memory with in.
func (in *PodGroup) DeepCopyInto(out *PodGroup) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.DeepCopyInto(&out.Spec)
	out.Status.Conditions = CopyConditions(in.Status.Conditions)
}

// CopyConditions copies conditions into a slice of their own (nil stays
// nil).
func CopyConditions(in []Condition) []Condition {
	if in == nil {
		return nil
	}
	out := make([]Condition, len(in))
	for i := range in {
		out[i] = in[i]
		in[i].LastTransitionTime.DeepCopyInto(&out[i].LastTransitionTime)
	}
	return out
}

// DeepCopy returns a copy of in that shares no memory with it.
func (in *PodGroup) DeepCopy() *PodGroup {
	if in == nil {
		return nil
	}
	out := new(PodGroup)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject makes PodGroup a runtime.Object.
func (in *PodGroup) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares no memory with in.
func (in *PodGroupList) DeepCopyInto(out *PodGroupList) {
	*out = *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]PodGroup, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopy returns a copy of in that shares no memory with it.
func (in *PodGroupList) DeepCopy() *PodGroupList {
	if in == nil {
		return nil
	}
	out := new(PodGroupList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject makes PodGroupList a runtime.Object.
func (in *PodGroupList) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares no memory with in.
func (in *Spec) DeepCopyInto(out *Spec) {
	*out = *in
	out.MinTaskMember = maps.Clone(in.MinTaskMember)
	if in.MinResources != nil {
		rl := in.MinResources.DeepCopy()
		out.MinResources = &rl
	}
	out.NetworkTopology = in.NetworkTopology.DeepCopy()
	if in.SubGroupPolicy != nil {
		out.SubGroupPolicy = make([]SubGroupPolicySpec, len(in.SubGroupPolicy))
		for i := range in.SubGroupPolicy {
			in.SubGroupPolicy[i].DeepCopyInto(&out.SubGroupPolicy[i])
		}
	}
}

// DeepCopyInto copies in into out; out shares no memory with in.
func (in *SubGroupPolicySpec) DeepCopyInto(out *SubGroupPolicySpec) {
	*out = *in
	out.NetworkTopology = in.NetworkTopology.DeepCopy()
	out.SubGroupSize = copyInt32(in.SubGroupSize)
	out.MinSubGroups = copyInt32(in.MinSubGroups)
	out.LabelSelector = in.LabelSelector.DeepCopy()
	out.MatchLabelKeys = slices.Clone(in.MatchLabelKeys)
}

func copyInt32(p *int32) *int32 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
