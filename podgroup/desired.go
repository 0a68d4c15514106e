package podgroup

import (
	"maps"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

// Desired is the PodGroup a controller creates for job (when neither Name
// nor LegacyName finds one):
//
//   - named Name(job) in the job's namespace, controlled by the job, with
//     copies of the job's annotations and labels;
//   - minMember = spec.minAvailable; minTaskMember per task (MinTaskMember);
//     queue and priorityClassName from the job;
//   - networkTopology from the job's, with either highestTierAllowed or,
//     when that is unset, highestTierName (never both);
//   - one subGroupPolicy per task with a partition policy (SubGroupPolicy),
//     in task order;
//   - minResources = MinResources(job, priorities).
//
// The result shares no memory with job. A nil job has no PodGroup: the
// zero PodGroup.
func Desired(job *vcjob.Job, priorities PriorityLookup) PodGroup {
	return DesiredWith(job, Options{Priorities: priorities})
}

// DesiredWith is Desired with the given options.
func DesiredWith(job *vcjob.Job, opts Options) PodGroup {
	if job == nil {
		return PodGroup{}
	}
	minTask := make(map[string]int32, len(job.Spec.Tasks))
	for i := range job.Spec.Tasks {
		minTask[job.Spec.Tasks[i].Name] = MinTaskMember(&job.Spec.Tasks[i])
	}
	minRes := MinResourcesWith(job, opts)

	return PodGroup{
		TypeMeta: metav1.TypeMeta{APIVersion: APIVersion, Kind: Kind},
		ObjectMeta: metav1.ObjectMeta{
			Name:        Name(job),
			Namespace:   job.Namespace,
			Annotations: maps.Clone(job.Annotations),
			Labels:      maps.Clone(job.Labels),
			OwnerReferences: []metav1.OwnerReference{
				vcjob.ControllerRef(job),
			},
		},
		Spec: Spec{
			MinMember:         job.Spec.MinAvailable,
			MinTaskMember:     minTask,
			Queue:             job.Spec.Queue,
			PriorityClassName: job.Spec.PriorityClassName,
			MinResources:      &minRes,
			NetworkTopology:   JobNetworkTopology(job.Spec.NetworkTopology),
			SubGroupPolicy:    SubGroupPolicies(job.Spec.Tasks),
		},
	}
}

// MinTaskMember is a task's entry in the PodGroup's minTaskMember: its
// minAvailable when set; else minPartitions*partitionSize when its
// partition policy sets both (non-zero); else its replicas.
func MinTaskMember(task *vcjob.TaskSpec) int32 {
	if task.MinAvailable != nil {
		return *task.MinAvailable
	}
	if p := task.PartitionPolicy; p != nil && p.MinPartitions != 0 && p.PartitionSize != 0 {
		return p.MinPartitions * p.PartitionSize
	}
	return task.Replicas
}

// JobNetworkTopology is the PodGroup's networkTopology for a job's: the
// mode, and highestTierAllowed when set, else highestTierName. nil stays
// nil.
func JobNetworkTopology(nt *vcjob.NetworkTopologySpec) *vcjob.NetworkTopologySpec {
	if nt == nil {
		return nil
	}
	out := &vcjob.NetworkTopologySpec{Mode: nt.Mode}
	if nt.HighestTierAllowed != nil {
		v := *nt.HighestTierAllowed
		out.HighestTierAllowed = &v
	} else {
		out.HighestTierName = nt.HighestTierName
	}
	return out
}

// SubGroupPolicies are the PodGroup's subGroupPolicy entries for tasks: one
// per task with a partition policy, in task order (SubGroupPolicy); nil
// when no task has one.
func SubGroupPolicies(tasks []vcjob.TaskSpec) []SubGroupPolicySpec {
	var out []SubGroupPolicySpec
	for i := range tasks {
		if tasks[i].PartitionPolicy != nil {
			out = append(out, SubGroupPolicy(&tasks[i]))
		}
	}
	return out
}

// SubGroupPolicy is the sub-gang of a partitioned task: named after the
// task, subGroupSize = partitionSize, minSubGroups = minPartitions (set even
// when 0), selecting the task's pods by their volcano.sh/task-spec label and
// grouping them by volcano.sh/partition-id, with a copy of the partition
// policy's networkTopology. Unlike the job-level one it is copied whole:
// Volcano does not drop highestTierName here. task must have a partition
// policy.
func SubGroupPolicy(task *vcjob.TaskSpec) SubGroupPolicySpec {
	p := task.PartitionPolicy
	size, minGroups := p.PartitionSize, p.MinPartitions
	return SubGroupPolicySpec{
		Name:         task.Name,
		SubGroupSize: &size,
		MinSubGroups: &minGroups,
		LabelSelector: &metav1.LabelSelector{
			MatchLabels: map[string]string{vcjob.TaskSpecKey: task.Name},
		},
		MatchLabelKeys:  []string{vcjob.PartitionIDKey},
		NetworkTopology: p.NetworkTopology.DeepCopy(),
	}
}
