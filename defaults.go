package vcjob

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// The values Volcano's mutating webhook fills in on create.
const (
	DefaultQueue         = "default"
	DefaultSchedulerName = "volcano"
	DefaultMaxRetry      = int32(3)
	// DefaultTaskNamePrefix + the task's index names a task without a name.
	DefaultTaskNamePrefix = "default"
)

// SetDefaults fills in what Volcano's mutating webhook writes when a job is
// created: queue, scheduler name, retries, task names, the DNS policy of
// host-network tasks, task and job minAvailable, and the svc/ssh plugins the
// distributed-framework plugins rely on; and what the CRD's schema defaults:
// a networkTopology (the job's, or a partition policy's) without a mode is
// hard. Fields already set are kept, so
// calling it twice changes nothing the second time. A nil job is ignored.
func SetDefaults(job *Job) {
	if job == nil {
		return
	}
	spec := &job.Spec
	if spec.Queue == "" {
		spec.Queue = DefaultQueue
	}
	if spec.SchedulerName == "" {
		spec.SchedulerName = DefaultSchedulerName
	}
	if spec.MaxRetry == 0 {
		spec.MaxRetry = DefaultMaxRetry
	}
	setNetworkTopologyDefaults(spec.NetworkTopology)

	for i := range spec.Tasks {
		setTaskDefaults(&spec.Tasks[i], i)
	}

	// Runs after the task defaults, so every task minAvailable is set.
	if spec.MinAvailable == 0 {
		var sum int32
		for _, task := range spec.Tasks {
			sum += *task.MinAvailable
		}
		spec.MinAvailable = sum
	}

	setPluginDefaults(spec)
}

func setTaskDefaults(task *TaskSpec, index int) {
	if task.Name == "" {
		task.Name = DefaultTaskNamePrefix + strconv.Itoa(index)
	}
	podSpec := &task.Template.Spec
	if podSpec.HostNetwork && podSpec.DNSPolicy == "" {
		// Host-network pods would otherwise resolve with the node's DNS and
		// lose cluster service names.
		podSpec.DNSPolicy = corev1.DNSClusterFirstWithHostNet
	}
	if task.MinAvailable == nil {
		minAvailable := task.Replicas
		if pp := task.PartitionPolicy; pp != nil && pp.MinPartitions > 0 {
			// Gang-schedule whole partitions: the minimum is the pods of
			// the minimum number of partitions.
			minAvailable = pp.MinPartitions * pp.PartitionSize
		}
		task.MinAvailable = &minAvailable
	}
	if task.MaxRetry == 0 {
		task.MaxRetry = DefaultMaxRetry
	}
	if task.PartitionPolicy != nil {
		setNetworkTopologyDefaults(task.PartitionPolicy.NetworkTopology)
	}
}

// setNetworkTopologyDefaults writes the CRD schema's default mode (the API
// server applies it before any webhook sees the job).
func setNetworkTopologyDefaults(nt *NetworkTopologySpec) {
	if nt != nil && nt.Mode == "" {
		nt.Mode = HardNetworkTopologyMode
	}
}

// setPluginDefaults adds the plugins others depend on: the distributed
// frameworks find their peers through svc's hosts files, and mpi logs into
// workers over ssh. Added plugins get no arguments.
func setPluginDefaults(spec *JobSpec) {
	if len(spec.Plugins) == 0 {
		return
	}
	needsSvc := false
	for _, name := range []string{PluginTensorflow, PluginMPI, PluginPytorch, PluginRay} {
		if _, ok := spec.Plugins[name]; ok {
			needsSvc = true
		}
	}
	if _, ok := spec.Plugins[PluginSvc]; needsSvc && !ok {
		spec.Plugins[PluginSvc] = []string{}
	}
	if _, ok := spec.Plugins[PluginMPI]; ok {
		if _, ok := spec.Plugins[PluginSSH]; !ok {
			spec.Plugins[PluginSSH] = []string{}
		}
	}
}
