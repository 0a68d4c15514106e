package vcjob

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/vcjob/vcjob/internal/testfiles"
)

func TestSetDefaults(t *testing.T) {
	cases := []struct {
		name   string
		job    func() *Job // before SetDefaults
		expect func(t *testing.T, job *Job)
	}{
		{
			name: "queue empty becomes default",
			job:  func() *Job { return &Job{} },
			expect: func(t *testing.T, job *Job) {
				assert.Equal(t, "default", job.Spec.Queue)
			},
		},
		{
			name: "queue set is kept",
			job:  func() *Job { return &Job{Spec: JobSpec{Queue: "research"}} },
			expect: func(t *testing.T, job *Job) {
				assert.Equal(t, "research", job.Spec.Queue)
			},
		},
		{
			name: "schedulerName empty becomes volcano",
			job:  func() *Job { return &Job{} },
			expect: func(t *testing.T, job *Job) {
				assert.Equal(t, "volcano", job.Spec.SchedulerName)
			},
		},
		{
			name: "schedulerName set is kept",
			job:  func() *Job { return &Job{Spec: JobSpec{SchedulerName: "kube-batch"}} },
			expect: func(t *testing.T, job *Job) {
				assert.Equal(t, "kube-batch", job.Spec.SchedulerName)
			},
		},
		{
			name: "job maxRetry 0 becomes 3",
			job:  func() *Job { return &Job{} },
			expect: func(t *testing.T, job *Job) {
				assert.Equal(t, int32(3), job.Spec.MaxRetry)
			},
		},
		{
			name: "job maxRetry set is kept, negative too (validation refuses it)",
			job:  func() *Job { return &Job{Spec: JobSpec{MaxRetry: -1}} },
			expect: func(t *testing.T, job *Job) {
				assert.Equal(t, int32(-1), job.Spec.MaxRetry)
			},
		},
		{
			name: "networkTopology without a mode is hard, as the CRD defaults it",
			job: func() *Job {
				return &Job{Spec: JobSpec{NetworkTopology: &NetworkTopologySpec{}, Tasks: []TaskSpec{
					{Replicas: 4, PartitionPolicy: &PartitionPolicySpec{TotalPartitions: 2, PartitionSize: 2, NetworkTopology: &NetworkTopologySpec{}}},
				}}}
			},
			expect: func(t *testing.T, job *Job) {
				assert.Equal(t, HardNetworkTopologyMode, job.Spec.NetworkTopology.Mode)
				assert.Equal(t, HardNetworkTopologyMode, job.Spec.Tasks[0].PartitionPolicy.NetworkTopology.Mode)
			},
		},
		{
			name: "networkTopology mode soft is kept, and no networkTopology is added",
			job: func() *Job {
				return &Job{Spec: JobSpec{NetworkTopology: &NetworkTopologySpec{Mode: SoftNetworkTopologyMode}, Tasks: []TaskSpec{
					{Replicas: 2, PartitionPolicy: &PartitionPolicySpec{TotalPartitions: 1, PartitionSize: 2}},
				}}}
			},
			expect: func(t *testing.T, job *Job) {
				assert.Equal(t, SoftNetworkTopologyMode, job.Spec.NetworkTopology.Mode)
				assert.Nil(t, job.Spec.Tasks[0].PartitionPolicy.NetworkTopology)
			},
		},
		{
			name: "task without a name is named default<index>",
			job: func() *Job {
				return &Job{Spec: JobSpec{Tasks: []TaskSpec{{Name: "ps"}, {}, {Name: "worker"}, {}}}}
			},
			expect: func(t *testing.T, job *Job) {
				var names []string
				for _, task := range job.Spec.Tasks {
					names = append(names, task.Name)
				}
				assert.Equal(t, []string{"ps", "default1", "worker", "default3"}, names)
			},
		},
		{
			name: "hostNetwork task without dnsPolicy gets ClusterFirstWithHostNet",
			job: func() *Job {
				return &Job{Spec: JobSpec{Tasks: []TaskSpec{
					{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{HostNetwork: true}}},
					{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{HostNetwork: true, DNSPolicy: corev1.DNSDefault}}},
					{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{}}},
				}}}
			},
			expect: func(t *testing.T, job *Job) {
				assert.Equal(t, corev1.DNSClusterFirstWithHostNet, job.Spec.Tasks[0].Template.Spec.DNSPolicy)
				assert.Equal(t, corev1.DNSDefault, job.Spec.Tasks[1].Template.Spec.DNSPolicy, "an explicit policy is kept")
				assert.Empty(t, job.Spec.Tasks[2].Template.Spec.DNSPolicy, "only host-network pods are touched")
			},
		},
		{
			name: "task minAvailable nil becomes replicas, a set one (0 too) is kept",
			job: func() *Job {
				return &Job{Spec: JobSpec{Tasks: []TaskSpec{
					{Name: "a", Replicas: 4},
					{Name: "b", Replicas: 4, MinAvailable: new(int32(2))},
					{Name: "c", Replicas: 4, MinAvailable: new(int32(0))},
				}}}
			},
			expect: func(t *testing.T, job *Job) {
				assert.Equal(t, new(int32(4)), job.Spec.Tasks[0].MinAvailable)
				assert.Equal(t, new(int32(2)), job.Spec.Tasks[1].MinAvailable)
				assert.Equal(t, new(int32(0)), job.Spec.Tasks[2].MinAvailable)
			},
		},
		{
			name: "partitioned task minAvailable nil becomes minPartitions*partitionSize",
			job: func() *Job {
				return &Job{Spec: JobSpec{Tasks: []TaskSpec{
					{Name: "a", Replicas: 9, PartitionPolicy: &PartitionPolicySpec{TotalPartitions: 3, PartitionSize: 3, MinPartitions: 2}},
					{Name: "b", Replicas: 9, PartitionPolicy: &PartitionPolicySpec{TotalPartitions: 3, PartitionSize: 3}},
				}}}
			},
			expect: func(t *testing.T, job *Job) {
				assert.Equal(t, new(int32(6)), job.Spec.Tasks[0].MinAvailable)
				assert.Equal(t, new(int32(9)), job.Spec.Tasks[1].MinAvailable, "minPartitions 0: replicas")
			},
		},
		{
			name: "task maxRetry 0 becomes 3, a set one is kept",
			job: func() *Job {
				return &Job{Spec: JobSpec{Tasks: []TaskSpec{{Name: "a"}, {Name: "b", MaxRetry: 7}}}}
			},
			expect: func(t *testing.T, job *Job) {
				assert.Equal(t, int32(3), job.Spec.Tasks[0].MaxRetry)
				assert.Equal(t, int32(7), job.Spec.Tasks[1].MaxRetry)
			},
		},
		{
			name: "job minAvailable 0 becomes the sum of the defaulted task minAvailable",
			job: func() *Job {
				return &Job{Spec: JobSpec{Tasks: []TaskSpec{
					{Name: "a", Replicas: 2},
					{Name: "b", Replicas: 5, MinAvailable: new(int32(1))},
					{Name: "c", Replicas: 8, PartitionPolicy: &PartitionPolicySpec{TotalPartitions: 4, PartitionSize: 2, MinPartitions: 3}},
				}}}
			},
			expect: func(t *testing.T, job *Job) {
				assert.Equal(t, int32(2+1+6), job.Spec.MinAvailable)
			},
		},
		{
			name: "job minAvailable set is kept",
			job: func() *Job {
				return &Job{Spec: JobSpec{MinAvailable: 1, Tasks: []TaskSpec{{Name: "a", Replicas: 2}}}}
			},
			expect: func(t *testing.T, job *Job) {
				assert.Equal(t, int32(1), job.Spec.MinAvailable)
			},
		},
		{
			name: "tensorflow adds svc",
			job:  func() *Job { return &Job{Spec: JobSpec{Plugins: map[string][]string{"tensorflow": {"--port=2222"}}}} },
			expect: func(t *testing.T, job *Job) {
				assert.Equal(t, map[string][]string{"tensorflow": {"--port=2222"}, "svc": {}}, job.Spec.Plugins)
			},
		},
		{
			name: "pytorch adds svc",
			job:  func() *Job { return &Job{Spec: JobSpec{Plugins: map[string][]string{"pytorch": nil}}} },
			expect: func(t *testing.T, job *Job) {
				assert.Equal(t, map[string][]string{"pytorch": nil, "svc": {}}, job.Spec.Plugins)
			},
		},
		{
			name: "ray adds svc",
			job:  func() *Job { return &Job{Spec: JobSpec{Plugins: map[string][]string{"ray": {}}}} },
			expect: func(t *testing.T, job *Job) {
				assert.Equal(t, map[string][]string{"ray": {}, "svc": {}}, job.Spec.Plugins)
			},
		},
		{
			name: "mpi adds svc and ssh",
			job:  func() *Job { return &Job{Spec: JobSpec{Plugins: map[string][]string{"mpi": {"--master=m"}}}} },
			expect: func(t *testing.T, job *Job) {
				assert.Equal(t, map[string][]string{"mpi": {"--master=m"}, "svc": {}, "ssh": {}}, job.Spec.Plugins)
			},
		},
		{
			name: "plugins already there keep their arguments",
			job: func() *Job {
				return &Job{Spec: JobSpec{Plugins: map[string][]string{
					"mpi": {}, "svc": {"--disable-network-policy=true"}, "ssh": {"--ssh-key-file-path=/k"},
				}}}
			},
			expect: func(t *testing.T, job *Job) {
				assert.Equal(t, map[string][]string{
					"mpi": {}, "svc": {"--disable-network-policy=true"}, "ssh": {"--ssh-key-file-path=/k"},
				}, job.Spec.Plugins)
			},
		},
		{
			name: "other plugins add nothing",
			job:  func() *Job { return &Job{Spec: JobSpec{Plugins: map[string][]string{"env": {}, "hcclrank": {}}}} },
			expect: func(t *testing.T, job *Job) {
				assert.Equal(t, map[string][]string{"env": {}, "hcclrank": {}}, job.Spec.Plugins)
			},
		},
		{
			name: "no plugins stay no plugins",
			job:  func() *Job { return &Job{} },
			expect: func(t *testing.T, job *Job) {
				assert.Nil(t, job.Spec.Plugins)
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			job := tc.job()
			SetDefaults(job)
			tc.expect(t, job)

			// A second run finds nothing left to fill in.
			again := job.DeepCopy()
			SetDefaults(again)
			assert.Equal(t, job, again, "SetDefaults is not idempotent")
		})
	}
}

func TestSetDefaultsLeavesOtherFieldsAlone(t *testing.T) {
	job := &Job{}
	require.NoError(t, yaml.UnmarshalStrict([]byte(testfiles.MustRead("testdata/job-minimal.yaml")), job))
	before := job.DeepCopy()
	SetDefaults(job)

	// Undo exactly the documented defaults; what remains must be untouched.
	job.Spec.Queue, job.Spec.SchedulerName, job.Spec.MaxRetry = "", "", 0
	job.Spec.Tasks[0].MinAvailable, job.Spec.Tasks[0].MaxRetry = nil, 0
	assert.Equal(t, before, job)
}

func TestSetDefaultsNilSafe(t *testing.T) {
	assert.NotPanics(t, func() { SetDefaults(nil) })
	assert.NotPanics(t, func() {
		SetDefaults(&Job{Spec: JobSpec{Tasks: []TaskSpec{{PartitionPolicy: &PartitionPolicySpec{MinPartitions: -1}}}}})
	})
}
