package podgroup

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// Update brings an existing PodGroup in line with desired (what Desired
// gives for the job now) the way Volcano's controller does, and reports
// whether the result must be written. Only these fields are compared and
// changed; everything else of existing (metadata, queue, networkTopology,
// status) is kept:
//
//   - priorityClassName, when it differs;
//   - minMember and minResources, both set when either differs
//     (quantities compare by value: 1000m equals 1; a missing minResources
//     differs from an empty one);
//   - minTaskMember: a nil map is a change; every task of desired whose
//     entry is missing or differs is set; entries of tasks desired does not
//     name are kept;
//   - subGroupPolicy: the existing entries are matched by name (the last of
//     a repeated name wins); a change when a partitioned task's entry is
//     missing or not semantically equal, or when a task of desired without
//     partition policy still has an entry; then the whole list becomes
//     desired's. Entries naming no task of desired, or a different order,
//     are not a change on their own.
//
// existing is not modified; the result shares no memory with either
// argument.
func Update(existing, desired PodGroup) (PodGroup, bool) {
	if !NeedsUpdate(&existing, &desired) {
		return *existing.DeepCopy(), false
	}
	return update(existing, desired)
}

// update is Update without the NeedsUpdate shortcut: it makes each change
// the rules call for and reports whether it made any. The tests hold
// NeedsUpdate to it.
func update(existing, desired PodGroup) (PodGroup, bool) {
	out := *existing.DeepCopy()
	changed := false

	if out.Spec.PriorityClassName != desired.Spec.PriorityClassName {
		out.Spec.PriorityClassName = desired.Spec.PriorityClassName
		changed = true
	}

	if out.Spec.MinMember != desired.Spec.MinMember ||
		!equality.Semantic.DeepEqual(out.Spec.MinResources, desired.Spec.MinResources) {
		out.Spec.MinMember = desired.Spec.MinMember
		out.Spec.MinResources = nil
		if desired.Spec.MinResources != nil {
			rl := desired.Spec.MinResources.DeepCopy()
			out.Spec.MinResources = &rl
		}
		changed = true
	}

	if out.Spec.MinTaskMember == nil {
		out.Spec.MinTaskMember = map[string]int32{}
		changed = true
	}
	for task, n := range desired.Spec.MinTaskMember {
		if have, ok := out.Spec.MinTaskMember[task]; !ok || have != n {
			out.Spec.MinTaskMember[task] = n
			changed = true
		}
	}

	if subGroupPolicyChanged(out.Spec.SubGroupPolicy, desired) {
		out.Spec.SubGroupPolicy = nil
		if desired.Spec.SubGroupPolicy != nil {
			out.Spec.SubGroupPolicy = make([]SubGroupPolicySpec, len(desired.Spec.SubGroupPolicy))
			for i := range desired.Spec.SubGroupPolicy {
				desired.Spec.SubGroupPolicy[i].DeepCopyInto(&out.Spec.SubGroupPolicy[i])
			}
		}
		changed = true
	}

	return out, changed
}

// NeedsUpdate reports whether Update would change existing, without
// copying anything: a controller calls it on every sync, and almost every
// time the answer is no.
func NeedsUpdate(existing, desired *PodGroup) bool {
	e, d := &existing.Spec, &desired.Spec
	if e.PriorityClassName != d.PriorityClassName || e.MinMember != d.MinMember ||
		!minResourcesEqual(e.MinResources, d.MinResources) || e.MinTaskMember == nil {
		return true
	}
	for task, n := range d.MinTaskMember {
		if have, ok := e.MinTaskMember[task]; !ok || have != n {
			return true
		}
	}
	return subGroupPolicyChanged(e.SubGroupPolicy, *desired)
}

// minResourcesEqual is equality.Semantic.DeepEqual for minResources:
// quantities by value, an empty list equal to a nil one, but a missing
// list different from an empty one.
func minResourcesEqual(a, b *corev1.ResourceList) bool {
	if a == nil || b == nil {
		return a == b
	}
	if len(*a) != len(*b) {
		return false
	}
	for name, qa := range *a {
		qb, ok := (*b)[name]
		if !ok || qa.Cmp(qb) != 0 {
			return false
		}
	}
	return true
}

// subGroupPolicyChanged applies Volcano's test. desired names the job's
// tasks in minTaskMember (every task) and subGroupPolicy (the partitioned
// ones), which is all the test needs.
func subGroupPolicyChanged(have []SubGroupPolicySpec, desired PodGroup) bool {
	if len(have) == 0 {
		// Nothing to match: only a partitioned task makes a change.
		return len(desired.Spec.SubGroupPolicy) > 0
	}
	old := make(map[string]SubGroupPolicySpec, len(have))
	for _, p := range have {
		old[p.Name] = p
	}
	partitioned := make(map[string]bool, len(desired.Spec.SubGroupPolicy))
	for _, p := range desired.Spec.SubGroupPolicy {
		partitioned[p.Name] = true
		if !equality.Semantic.DeepEqual(p, old[p.Name]) {
			return true
		}
	}
	for task := range desired.Spec.MinTaskMember {
		if _, ok := old[task]; ok && !partitioned[task] {
			return true
		}
	}
	return false
}
