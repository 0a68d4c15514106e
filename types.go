package vcjob

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Job is a batch.volcano.sh/v1alpha1 Job: several tasks of pods that are
// scheduled as a gang and share lifecycle policies.
type Job struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   JobSpec   `json:"spec,omitempty"`
	Status JobStatus `json:"status,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// JobList is a list of Jobs.
type JobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Job `json:"items"`
}

// JobSpec is what the user asks for.
type JobSpec struct {
	SchedulerName           string               `json:"schedulerName,omitempty"`
	MinAvailable            int32                `json:"minAvailable,omitempty"`
	Volumes                 []VolumeSpec         `json:"volumes,omitempty"`
	Tasks                   []TaskSpec           `json:"tasks,omitempty"`
	Policies                []LifecyclePolicy    `json:"policies,omitempty"`
	Plugins                 map[string][]string  `json:"plugins,omitempty"`
	RunningEstimate         *metav1.Duration     `json:"runningEstimate,omitempty"`
	Queue                   string               `json:"queue,omitempty"`
	MaxRetry                int32                `json:"maxRetry,omitempty"`
	TTLSecondsAfterFinished *int32               `json:"ttlSecondsAfterFinished,omitempty"`
	PriorityClassName       string               `json:"priorityClassName,omitempty"`
	MinSuccess              *int32               `json:"minSuccess,omitempty"`
	NetworkTopology         *NetworkTopologySpec `json:"networkTopology,omitempty"`
}

// VolumeSpec is a volume every pod of the job mounts: an existing claim
// (VolumeClaimName) or one the controller creates (VolumeClaim).
type VolumeSpec struct {
	MountPath       string                            `json:"mountPath"`
	VolumeClaimName string                            `json:"volumeClaimName,omitempty"`
	VolumeClaim     *corev1.PersistentVolumeClaimSpec `json:"volumeClaim,omitempty"`
}

// TaskSpec is one group of identical pods.
type TaskSpec struct {
	Name            string                 `json:"name,omitempty"`
	Replicas        int32                  `json:"replicas,omitempty"`
	MinAvailable    *int32                 `json:"minAvailable,omitempty"`
	Template        corev1.PodTemplateSpec `json:"template,omitempty"`
	Policies        []LifecyclePolicy      `json:"policies,omitempty"`
	TopologyPolicy  NumaPolicy             `json:"topologyPolicy,omitempty"`
	MaxRetry        int32                  `json:"maxRetry,omitempty"`
	DependsOn       *DependsOn             `json:"dependsOn,omitempty"`
	PartitionPolicy *PartitionPolicySpec   `json:"partitionPolicy,omitempty"`
}

// NumaPolicy is a task's NUMA topology policy.
type NumaPolicy string

// The NUMA policies the API accepts.
const (
	NumaPolicyNone           NumaPolicy = "none"
	NumaPolicyBestEffort     NumaPolicy = "best-effort"
	NumaPolicyRestricted     NumaPolicy = "restricted"
	NumaPolicySingleNumaNode NumaPolicy = "single-numa-node"
)

// PartitionPolicySpec splits a task's pods into equal partitions that are
// scheduled and restarted together.
type PartitionPolicySpec struct {
	TotalPartitions int32                `json:"totalPartitions"`
	PartitionSize   int32                `json:"partitionSize"`
	NetworkTopology *NetworkTopologySpec `json:"networkTopology,omitempty"`
	MinPartitions   int32                `json:"minPartitions,omitempty"`
}

// NetworkTopologyMode is hard or soft.
type NetworkTopologyMode string

// The network topology modes.
const (
	HardNetworkTopologyMode NetworkTopologyMode = "hard"
	SoftNetworkTopologyMode NetworkTopologyMode = "soft"
)

// NetworkTopologySpec bounds how far apart in the network the pods may land.
type NetworkTopologySpec struct {
	Mode               NetworkTopologyMode `json:"mode,omitempty"`
	HighestTierAllowed *int                `json:"highestTierAllowed,omitempty"`
	HighestTierName    string              `json:"highestTierName,omitempty"`
}

// Iteration says whether any or all named tasks must be ready.
type Iteration string

// The dependsOn iterations.
const (
	IterationAny Iteration = "any"
	IterationAll Iteration = "all"
)

// DependsOn names the tasks that must be ready before a task's pods are
// created.
type DependsOn struct {
	Name      []string  `json:"name,omitempty"`
	Iteration Iteration `json:"iteration,omitempty"`
}

// LifecyclePolicy maps an event (or a container exit code) to an action,
// optionally after a timeout.
type LifecyclePolicy struct {
	Action   Action           `json:"action,omitempty"`
	Event    Event            `json:"event,omitempty"`
	Events   []Event          `json:"events,omitempty"`
	ExitCode *int32           `json:"exitCode,omitempty"`
	Timeout  *metav1.Duration `json:"timeout,omitempty"`
}

// JobPhase is one of the ten phases of a job.
type JobPhase string

// The ten job phases.
const (
	Pending     JobPhase = "Pending"
	Aborting    JobPhase = "Aborting"
	Aborted     JobPhase = "Aborted"
	Running     JobPhase = "Running"
	Restarting  JobPhase = "Restarting"
	Completing  JobPhase = "Completing"
	Completed   JobPhase = "Completed"
	Terminating JobPhase = "Terminating"
	Terminated  JobPhase = "Terminated"
	Failed      JobPhase = "Failed"
)

// Phases lists the ten phases in a fixed order.
func Phases() []JobPhase {
	return []JobPhase{Pending, Aborting, Aborted, Running, Restarting, Completing, Completed, Terminating, Terminated, Failed}
}

// IsKnown reports whether p is one of the ten phases.
func (p JobPhase) IsKnown() bool {
	for _, q := range Phases() {
		if p == q {
			return true
		}
	}
	return false
}

// IsFinished reports whether p is Completed, Terminated or Failed.
func (p JobPhase) IsFinished() bool {
	return p == Completed || p == Terminated || p == Failed
}

// JobState is the job's phase and why it is there.
type JobState struct {
	Phase              JobPhase    `json:"phase,omitempty"`
	Reason             string      `json:"reason,omitempty"`
	Message            string      `json:"message,omitempty"`
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`
}

// TaskState counts a task's pods by pod phase.
type TaskState struct {
	Phase map[corev1.PodPhase]int32 `json:"phase,omitempty"`
}

// JobCondition records one entry into a phase.
type JobCondition struct {
	Status             JobPhase     `json:"status"`
	LastTransitionTime *metav1.Time `json:"lastTransitionTime,omitempty"`
}

// JobStatus is what the controller observed and decided.
type JobStatus struct {
	State               JobState             `json:"state,omitempty"`
	MinAvailable        int32                `json:"minAvailable,omitempty"`
	TaskStatusCount     map[string]TaskState `json:"taskStatusCount,omitempty"`
	Pending             int32                `json:"pending,omitempty"`
	Running             int32                `json:"running,omitempty"`
	Succeeded           int32                `json:"succeeded,omitempty"`
	Failed              int32                `json:"failed,omitempty"`
	Terminating         int32                `json:"terminating,omitempty"`
	Unknown             int32                `json:"unknown,omitempty"`
	Version             int32                `json:"version,omitempty"`
	RetryCount          int32                `json:"retryCount,omitempty"`
	RunningDuration     *metav1.Duration     `json:"runningDuration,omitempty"`
	ControlledResources map[string]string    `json:"controlledResources,omitempty"`
	Conditions          []JobCondition       `json:"conditions,omitempty"`
}
