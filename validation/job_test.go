package validation

import (
	"strings"
	"testing"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/manifest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validJob is a defaulted job that passes validation: master (1 replica)
// and worker (2 replicas), minAvailable 3.
func validJob() *vcjob.Job {
	job := &vcjob.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind},
		ObjectMeta: metav1.ObjectMeta{Name: "job", Namespace: "ns"},
		Spec: vcjob.JobSpec{
			Tasks: []vcjob.TaskSpec{
				{Name: "master", Replicas: 1, Template: podTemplate(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}, nil)},
				{Name: "worker", Replicas: 2, Template: podTemplate(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}, nil)},
			},
		},
	}
	vcjob.SetDefaults(job)
	return job
}

func podTemplate(requests, limits corev1.ResourceList) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Name:      "main",
		Image:     "busybox",
		Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits},
	}}}}
}

func resources(cpu, memory string) corev1.ResourceList {
	list := corev1.ResourceList{}
	if cpu != "" {
		list[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		list[corev1.ResourceMemory] = resource.MustParse(memory)
	}
	return list
}

// wantErr is what a test pins of a validation error: its type and path.
type wantErr struct {
	Type  field.ErrorType
	Field string
}

func keysOf(errs field.ErrorList) []wantErr {
	keys := []wantErr{}
	for _, e := range errs {
		keys = append(keys, wantErr{e.Type, e.Field})
	}
	return keys
}

type validationCase struct {
	name   string
	mutate func(job *vcjob.Job)
	want   []wantErr
	// detail, when set, must appear in the first error's detail.
	detail string
}

func runValidationCases(t *testing.T, cases []validationCase, validate func(*vcjob.Job) field.ErrorList) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			job := validJob()
			tc.mutate(job)
			errs := validate(job)
			assert.ElementsMatch(t, tc.want, keysOf(errs), "errors: %v", errs)
			if tc.detail != "" && assert.NotEmpty(t, errs) {
				assert.Contains(t, errs[0].Detail, tc.detail)
			}
		})
	}
}

func TestValidJobHasNoErrors(t *testing.T) {
	assert.Empty(t, ValidateJob(validJob()))
}

func TestValidateJobNil(t *testing.T) {
	assert.Equal(t, []wantErr{{field.ErrorTypeRequired, "job"}}, keysOf(ValidateJob(nil)))
	assert.Equal(t, []wantErr{{field.ErrorTypeRequired, "job"}}, keysOf(ValidateJobUpdate(nil, validJob())))
	assert.Equal(t, []wantErr{{field.ErrorTypeRequired, "job"}}, keysOf(ValidateJobUpdate(validJob(), nil)))
}

func TestValidateJobWebhookRules(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	runValidationCases(t, []validationCase{
		{
			name:   "no tasks",
			mutate: func(j *vcjob.Job) { j.Spec.Tasks, j.Spec.MinAvailable = nil, 0 },
			want:   []wantErr{{field.ErrorTypeRequired, "spec.tasks"}},
		},
		{
			name:   "duplicate task name",
			mutate: func(j *vcjob.Job) { j.Spec.Tasks[1].Name = "master" },
			want:   []wantErr{{field.ErrorTypeDuplicate, "spec.tasks[1].name"}},
		},
		{
			name:   "task minAvailable above replicas",
			mutate: func(j *vcjob.Job) { j.Spec.Tasks[0].MinAvailable = new(int32(2)) },
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.tasks[0].minAvailable"}},
		},
		{
			name:   "job minAvailable above total replicas",
			mutate: func(j *vcjob.Job) { j.Spec.MinAvailable = 4 },
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.minAvailable"}},
			detail: "total replicas of all tasks (3)",
		},
		{
			name:   "job name missing",
			mutate: func(j *vcjob.Job) { j.Name = "" },
			want:   []wantErr{{field.ErrorTypeRequired, "metadata.name"}},
		},
		{
			// Every pod name starts with the job name, so they fail too.
			name:   "job name not a qualified name",
			mutate: func(j *vcjob.Job) { j.Name = "-job" },
			want: []wantErr{
				{field.ErrorTypeInvalid, "metadata.name"},
				{field.ErrorTypeInvalid, "spec.tasks[0].name"},
				{field.ErrorTypeInvalid, "spec.tasks[1].name"},
			},
		},
		{
			// Volcano's webhook allows it (a qualified name), the API server
			// does not: a custom resource's name is a DNS subdomain.
			name:   "job name in upper case",
			mutate: func(j *vcjob.Job) { j.Name = "Job" },
			want:   []wantErr{{field.ErrorTypeInvalid, "metadata.name"}},
			detail: "lowercase RFC 1123 subdomain",
		},
		{
			name:   "generateName stands for the name",
			mutate: func(j *vcjob.Job) { j.Name, j.GenerateName = "", "job-" },
			want:   []wantErr{},
		},
		{
			name: "generateName too long once the API server adds 5 characters",
			mutate: func(j *vcjob.Job) {
				j.Name, j.GenerateName, j.Spec.Tasks, j.Spec.MinAvailable = "", long(59), j.Spec.Tasks[:1], 1
			},
			want: []wantErr{
				{field.ErrorTypeInvalid, "metadata.generateName"},
				{field.ErrorTypeInvalid, "spec.tasks[0].name"},
			},
			detail: "with the 5 characters the API server appends",
		},
		{
			// 54 + "-worker-" + "10" is 64 characters, but Volcano's webhook
			// checks the name with the task's position (1): accepted, and
			// lint.Lint warns.
			name:   "the highest pod index makes the pod name too long: accepted",
			mutate: func(j *vcjob.Job) { j.Name, j.Spec.Tasks[1].Replicas = long(54), 11 },
			want:   []wantErr{},
		},
		{
			// 55 + "-master-0" is 64 characters, and so is 55 + "-worker-1".
			name:   "the pod name with the task's position is too long",
			mutate: func(j *vcjob.Job) { j.Name = long(55) },
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.tasks[0].name"}, {field.ErrorTypeInvalid, "spec.tasks[1].name"}},
			detail: `pod name "` + long(55) + `-master-0"`,
		},
		{
			name:   "task name not a DNS label",
			mutate: func(j *vcjob.Job) { j.Spec.Tasks[1].Name = "Worker" },
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.tasks[1].name"}},
		},
		{
			name:   "task name missing",
			mutate: func(j *vcjob.Job) { j.Spec.Tasks[1].Name = "" },
			want:   []wantErr{{field.ErrorTypeRequired, "spec.tasks[1].name"}},
		},
		{
			name:   "unknown plugin",
			mutate: func(j *vcjob.Job) { j.Spec.Plugins = map[string][]string{"svc": {}, "horovod": {}} },
			want:   []wantErr{{field.ErrorTypeNotSupported, "spec.plugins[horovod]"}},
		},
		{
			name:   "every builtin plugin is known",
			mutate: func(j *vcjob.Job) { j.Spec.Plugins = pluginsNamed(vcjob.BuiltinPluginNames()...) },
			want:   []wantErr{},
		},
	}, ValidateJob)
}

func pluginsNamed(names ...string) map[string][]string {
	plugins := map[string][]string{}
	for _, name := range names {
		plugins[name] = nil
	}
	return plugins
}

func TestValidateJobWithExtraPlugins(t *testing.T) {
	job := validJob()
	job.Spec.Plugins = pluginsNamed("horovod", "env")
	assert.Equal(t, []wantErr{{field.ErrorTypeNotSupported, "spec.plugins[horovod]"}}, keysOf(ValidateJob(job)))
	assert.Empty(t, ValidateJobWith(job, Options{ExtraPlugins: []string{"horovod"}}))
}

func TestValidateJobPolicies(t *testing.T) {
	policy := func(action vcjob.Action, events ...vcjob.Event) vcjob.LifecyclePolicy {
		p := vcjob.LifecyclePolicy{Action: action}
		if len(events) > 0 {
			p.Event, p.Events = events[0], events[1:]
		}
		return p
	}
	exitCode := func(action vcjob.Action, code int32) vcjob.LifecyclePolicy {
		return vcjob.LifecyclePolicy{Action: action, ExitCode: &code}
	}
	runValidationCases(t, []validationCase{
		{
			name: "event and exitCode together",
			mutate: func(j *vcjob.Job) {
				p := policy(vcjob.RestartTaskAction, vcjob.PodFailedEvent)
				p.ExitCode = new(int32(137))
				j.Spec.Tasks[1].Policies = []vcjob.LifecyclePolicy{p}
			},
			want: []wantErr{{field.ErrorTypeForbidden, "spec.tasks[1].policies[0].exitCode"}},
		},
		{
			name:   "neither event nor exitCode",
			mutate: func(j *vcjob.Job) { j.Spec.Policies = []vcjob.LifecyclePolicy{policy(vcjob.RestartJobAction)} },
			want:   []wantErr{{field.ErrorTypeRequired, "spec.policies[0]"}},
		},
		{
			name: "event the controller keeps to itself",
			mutate: func(j *vcjob.Job) {
				j.Spec.Tasks[1].Policies = []vcjob.LifecyclePolicy{policy(vcjob.RestartPodAction, vcjob.PodRunningEvent)}
			},
			want: []wantErr{{field.ErrorTypeNotSupported, "spec.tasks[1].policies[0].event"}},
		},
		{
			name: "unknown event in events",
			mutate: func(j *vcjob.Job) {
				j.Spec.Policies = []vcjob.LifecyclePolicy{policy(vcjob.RestartJobAction, vcjob.PodFailedEvent, "PodExploded")}
			},
			want: []wantErr{{field.ErrorTypeNotSupported, "spec.policies[0].events[0]"}},
		},
		{
			name: "every policy event is allowed",
			mutate: func(j *vcjob.Job) {
				j.Spec.Policies = []vcjob.LifecyclePolicy{policy(vcjob.RestartJobAction, vcjob.PolicyEvents()[1:]...)}
			},
			want: []wantErr{},
		},
		{
			name:   "action missing",
			mutate: func(j *vcjob.Job) { j.Spec.Policies = []vcjob.LifecyclePolicy{policy("", vcjob.PodEvictedEvent)} },
			want:   []wantErr{{field.ErrorTypeRequired, "spec.policies[0].action"}},
		},
		{
			name:   "action the controller keeps to itself",
			mutate: func(j *vcjob.Job) { j.Spec.Policies = []vcjob.LifecyclePolicy{exitCode(vcjob.SyncJobAction, 1)} },
			want:   []wantErr{{field.ErrorTypeNotSupported, "spec.policies[0].action"}},
		},
		{
			name: "every policy action is allowed",
			mutate: func(j *vcjob.Job) {
				for i, action := range vcjob.PolicyActions() {
					j.Spec.Tasks[1].Policies = append(j.Spec.Tasks[1].Policies, exitCode(action, int32(i+1)))
				}
			},
			want: []wantErr{},
		},
		{
			name: "event in two policies",
			mutate: func(j *vcjob.Job) {
				j.Spec.Policies = []vcjob.LifecyclePolicy{policy(vcjob.RestartJobAction, vcjob.PodFailedEvent), policy(vcjob.AbortJobAction, vcjob.PodFailedEvent)}
			},
			want: []wantErr{{field.ErrorTypeDuplicate, "spec.policies[1].event"}},
		},
		{
			name: "event in the events of one policy and the event of another",
			mutate: func(j *vcjob.Job) {
				j.Spec.Policies = []vcjob.LifecyclePolicy{
					policy(vcjob.RestartJobAction, vcjob.PodEvictedEvent, vcjob.PodFailedEvent),
					policy(vcjob.AbortJobAction, vcjob.TaskFailedEvent, vcjob.PodFailedEvent),
				}
			},
			want: []wantErr{{field.ErrorTypeDuplicate, "spec.policies[1].events[0]"}},
		},
		{
			name: "event repeated inside one policy is harmless",
			mutate: func(j *vcjob.Job) {
				j.Spec.Policies = []vcjob.LifecyclePolicy{policy(vcjob.RestartJobAction, vcjob.PodFailedEvent, vcjob.PodFailedEvent)}
			},
			want: []wantErr{},
		},
		{
			name: "job and task lists are checked separately",
			mutate: func(j *vcjob.Job) {
				j.Spec.Policies = []vcjob.LifecyclePolicy{policy(vcjob.RestartJobAction, vcjob.PodFailedEvent)}
				j.Spec.Tasks[0].Policies = []vcjob.LifecyclePolicy{policy(vcjob.RestartTaskAction, vcjob.PodFailedEvent)}
				j.Spec.Tasks[1].Policies = []vcjob.LifecyclePolicy{policy(vcjob.RestartPodAction, vcjob.PodFailedEvent)}
			},
			want: []wantErr{},
		},
		{
			name: "* with another event",
			mutate: func(j *vcjob.Job) {
				j.Spec.Policies = []vcjob.LifecyclePolicy{policy(vcjob.RestartJobAction, vcjob.AnyEvent), policy(vcjob.AbortJobAction, vcjob.PodEvictedEvent)}
			},
			want: []wantErr{{field.ErrorTypeInvalid, "spec.policies[0].event"}},
		},
		{
			name: "* with exit codes",
			mutate: func(j *vcjob.Job) {
				j.Spec.Policies = []vcjob.LifecyclePolicy{policy(vcjob.RestartJobAction, vcjob.AnyEvent), exitCode(vcjob.AbortJobAction, 137)}
			},
			want: []wantErr{},
		},
		{
			name:   "exitCode 0",
			mutate: func(j *vcjob.Job) { j.Spec.Policies = []vcjob.LifecyclePolicy{exitCode(vcjob.RestartJobAction, 0)} },
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.policies[0].exitCode"}},
		},
		{
			name: "exitCode twice",
			mutate: func(j *vcjob.Job) {
				j.Spec.Tasks[0].Policies = []vcjob.LifecyclePolicy{exitCode(vcjob.RestartJobAction, 137), exitCode(vcjob.AbortJobAction, 137)}
			},
			want: []wantErr{{field.ErrorTypeDuplicate, "spec.tasks[0].policies[1].exitCode"}},
		},
	}, ValidateJob)
}

func TestValidateJobPartitionPolicy(t *testing.T) {
	partitioned := func(replicas int32, pp vcjob.PartitionPolicySpec) func(*vcjob.Job) {
		return func(j *vcjob.Job) {
			j.Spec.Tasks[1].Replicas = replicas
			j.Spec.Tasks[1].MinAvailable = nil
			j.Spec.Tasks[1].PartitionPolicy = &pp
			j.Spec.MinAvailable = 1
			vcjob.SetDefaults(j)
		}
	}
	runValidationCases(t, []validationCase{
		{
			name:   "valid partition policy",
			mutate: partitioned(8, vcjob.PartitionPolicySpec{TotalPartitions: 4, PartitionSize: 2, MinPartitions: 3}),
			want:   []wantErr{},
		},
		{
			name:   "totalPartitions 0",
			mutate: partitioned(2, vcjob.PartitionPolicySpec{TotalPartitions: 0, PartitionSize: 2}),
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.tasks[1].partitionPolicy.totalPartitions"}},
		},
		{
			name:   "partitionSize 0",
			mutate: partitioned(2, vcjob.PartitionPolicySpec{TotalPartitions: 2, PartitionSize: 0}),
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.tasks[1].partitionPolicy.partitionSize"}},
		},
		{
			name:   "minPartitions negative",
			mutate: partitioned(4, vcjob.PartitionPolicySpec{TotalPartitions: 2, PartitionSize: 2, MinPartitions: -1}),
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.tasks[1].partitionPolicy.minPartitions"}},
		},
		{
			name:   "replicas not totalPartitions*partitionSize",
			mutate: partitioned(8, vcjob.PartitionPolicySpec{TotalPartitions: 2, PartitionSize: 3}),
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.tasks[1].replicas"}},
			detail: "(2 * 3 = 6)",
		},
		{
			name: "minAvailable not minPartitions*partitionSize",
			mutate: func(j *vcjob.Job) {
				partitioned(8, vcjob.PartitionPolicySpec{TotalPartitions: 4, PartitionSize: 2, MinPartitions: 1})(j)
				j.Spec.Tasks[1].MinAvailable = new(int32(4))
			},
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.tasks[1].minAvailable"}},
			detail: "(1 * 2 = 2)",
		},
		{
			name: "minAvailable free when minPartitions is 0",
			mutate: func(j *vcjob.Job) {
				partitioned(8, vcjob.PartitionPolicySpec{TotalPartitions: 4, PartitionSize: 2})(j)
				j.Spec.Tasks[1].MinAvailable = new(int32(5))
			},
			want: []wantErr{},
		},
		{
			name: "partition networkTopology with both tier bounds",
			mutate: partitioned(4, vcjob.PartitionPolicySpec{TotalPartitions: 2, PartitionSize: 2,
				NetworkTopology: &vcjob.NetworkTopologySpec{HighestTierAllowed: new(1), HighestTierName: "rack"}}),
			want: []wantErr{{field.ErrorTypeForbidden, "spec.tasks[1].partitionPolicy.networkTopology.highestTierName"}},
		},
	}, ValidateJob)
}

func TestValidateJobNetworkTopologyAndVolumes(t *testing.T) {
	claim := &corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}}
	runValidationCases(t, []validationCase{
		{
			name: "network topology valid",
			mutate: func(j *vcjob.Job) {
				j.Spec.NetworkTopology = &vcjob.NetworkTopologySpec{Mode: vcjob.SoftNetworkTopologyMode, HighestTierAllowed: new(2)}
			},
			want: []wantErr{},
		},
		{
			name: "highestTierAllowed and highestTierName together",
			mutate: func(j *vcjob.Job) {
				j.Spec.NetworkTopology = &vcjob.NetworkTopologySpec{HighestTierAllowed: new(1), HighestTierName: "volcano.sh/hypernode"}
			},
			want: []wantErr{{field.ErrorTypeForbidden, "spec.networkTopology.highestTierName"}},
		},
		{
			name:   "unknown mode",
			mutate: func(j *vcjob.Job) { j.Spec.NetworkTopology = &vcjob.NetworkTopologySpec{Mode: "strict"} },
			want:   []wantErr{{field.ErrorTypeNotSupported, "spec.networkTopology.mode"}},
		},
		{
			name:   "negative highestTierAllowed",
			mutate: func(j *vcjob.Job) { j.Spec.NetworkTopology = &vcjob.NetworkTopologySpec{HighestTierAllowed: new(-1)} },
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.networkTopology.highestTierAllowed"}},
		},
		{
			name: "highestTierName too long",
			mutate: func(j *vcjob.Job) {
				j.Spec.NetworkTopology = &vcjob.NetworkTopologySpec{HighestTierName: strings.Repeat("t", 254)}
			},
			want: []wantErr{{field.ErrorTypeTooLong, "spec.networkTopology.highestTierName"}},
		},
		{
			name: "volumes valid",
			mutate: func(j *vcjob.Job) {
				j.Spec.Volumes = []vcjob.VolumeSpec{{MountPath: "/in", VolumeClaimName: "data"}, {MountPath: "/out", VolumeClaim: claim}}
			},
			want: []wantErr{},
		},
		{
			name:   "mountPath missing",
			mutate: func(j *vcjob.Job) { j.Spec.Volumes = []vcjob.VolumeSpec{{VolumeClaimName: "data"}} },
			want:   []wantErr{{field.ErrorTypeRequired, "spec.volumes[0].mountPath"}},
		},
		{
			name:   "mountPath with a colon",
			mutate: func(j *vcjob.Job) { j.Spec.Volumes = []vcjob.VolumeSpec{{MountPath: "/a:b", VolumeClaimName: "data"}} },
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.volumes[0].mountPath"}},
		},
		{
			name: "mountPath twice",
			mutate: func(j *vcjob.Job) {
				j.Spec.Volumes = []vcjob.VolumeSpec{{MountPath: "/data", VolumeClaimName: "a"}, {MountPath: "/data", VolumeClaim: claim}}
			},
			want: []wantErr{{field.ErrorTypeDuplicate, "spec.volumes[1].mountPath"}},
		},
		{
			name:   "neither volumeClaim nor volumeClaimName",
			mutate: func(j *vcjob.Job) { j.Spec.Volumes = []vcjob.VolumeSpec{{MountPath: "/data"}} },
			want:   []wantErr{{field.ErrorTypeRequired, "spec.volumes[0].volumeClaimName"}},
		},
		{
			name: "both volumeClaim and volumeClaimName",
			mutate: func(j *vcjob.Job) {
				j.Spec.Volumes = []vcjob.VolumeSpec{{MountPath: "/data", VolumeClaimName: "a", VolumeClaim: claim}}
			},
			want: []wantErr{{field.ErrorTypeForbidden, "spec.volumes[0].volumeClaimName"}},
		},
		{
			name: "volumeClaimName too long",
			mutate: func(j *vcjob.Job) {
				j.Spec.Volumes = []vcjob.VolumeSpec{{MountPath: "/data", VolumeClaimName: strings.Repeat("v", 254)}}
			},
			want: []wantErr{{field.ErrorTypeTooLong, "spec.volumes[0].volumeClaimName"}},
		},
		{
			name: "volumeClaimName not a claim name",
			mutate: func(j *vcjob.Job) {
				j.Spec.Volumes = []vcjob.VolumeSpec{{MountPath: "/data", VolumeClaimName: "My_Claim"}}
			},
			want: []wantErr{{field.ErrorTypeInvalid, "spec.volumes[0].volumeClaimName"}},
		},
	}, ValidateJob)
}

func TestValidateJobDependsOn(t *testing.T) {
	dependsOn := func(names ...string) *vcjob.DependsOn { return &vcjob.DependsOn{Name: names} }
	withTasks := func(deps ...*vcjob.DependsOn) func(*vcjob.Job) {
		return func(j *vcjob.Job) {
			names := []string{"a", "b", "c", "d"}
			j.Spec.Tasks = nil
			for i, dep := range deps {
				j.Spec.Tasks = append(j.Spec.Tasks, vcjob.TaskSpec{Name: names[i], Replicas: 1, MinAvailable: new(int32(1)), DependsOn: dep, Template: podTemplate(nil, nil)})
			}
			j.Spec.MinAvailable = int32(len(deps))
		}
	}
	runValidationCases(t, []validationCase{
		{
			name:   "diamond is a DAG",
			mutate: withTasks(nil, dependsOn("a"), dependsOn("a"), dependsOn("b", "c")),
			want:   []wantErr{},
		},
		{
			name:   "unknown task",
			mutate: withTasks(nil, dependsOn("z")),
			want:   []wantErr{{field.ErrorTypeNotFound, "spec.tasks[1].dependsOn.name[0]"}},
		},
		{
			name:   "task named twice",
			mutate: withTasks(nil, dependsOn("a", "a")),
			want:   []wantErr{{field.ErrorTypeDuplicate, "spec.tasks[1].dependsOn.name[1]"}},
		},
		{
			name:   "task depends on itself",
			mutate: withTasks(dependsOn("a")),
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.tasks[0].dependsOn.name[0]"}},
			detail: "dependency cycle a -> a",
		},
		{
			name:   "two tasks depend on each other",
			mutate: withTasks(dependsOn("b"), dependsOn("a")),
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.tasks[1].dependsOn.name[0]"}},
			detail: "dependency cycle a -> b -> a",
		},
		{
			name:   "cycle behind a tail",
			mutate: withTasks(dependsOn("b"), dependsOn("c"), dependsOn("d"), dependsOn("b")),
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.tasks[3].dependsOn.name[0]"}},
			detail: "dependency cycle b -> c -> d -> b",
		},
	}, ValidateJob)
}

func TestValidateJobTopologyPolicy(t *testing.T) {
	withWorker := func(policy vcjob.NumaPolicy, requests, limits corev1.ResourceList) func(*vcjob.Job) {
		return func(j *vcjob.Job) {
			j.Spec.Tasks[1].TopologyPolicy = policy
			j.Spec.Tasks[1].Template = podTemplate(requests, limits)
		}
	}
	runValidationCases(t, []validationCase{
		{
			name:   "none needs nothing",
			mutate: withWorker(vcjob.NumaPolicyNone, resources("500m", ""), nil),
			want:   []wantErr{},
		},
		{
			name:   "guaranteed with whole CPUs",
			mutate: withWorker(vcjob.NumaPolicySingleNumaNode, resources("2", "1Gi"), resources("2", "1Gi")),
			want:   []wantErr{},
		},
		{
			name:   "limits stand for missing requests",
			mutate: withWorker(vcjob.NumaPolicyRestricted, nil, resources("2", "1Gi")),
			want:   []wantErr{},
		},
		{
			name:   "unknown policy",
			mutate: withWorker("numa", resources("2", "1Gi"), resources("2", "1Gi")),
			want:   []wantErr{{field.ErrorTypeNotSupported, "spec.tasks[1].topologyPolicy"}},
		},
		{
			// Volcano does not require Guaranteed QoS (lint.Lint warns).
			name:   "requests without limits are Burstable: accepted",
			mutate: withWorker(vcjob.NumaPolicyBestEffort, resources("2", "1Gi"), nil),
			want:   []wantErr{},
		},
		{
			name:   "requests below limits are Burstable: accepted",
			mutate: withWorker(vcjob.NumaPolicySingleNumaNode, resources("1", "1Gi"), resources("2", "1Gi")),
			want:   []wantErr{},
		},
		{
			name:   "no resources at all: no whole CPU",
			mutate: withWorker(vcjob.NumaPolicyBestEffort, nil, nil),
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.tasks[1].template.spec.containers[0].resources.requests[cpu]"}},
		},
		{
			name:   "memory not limited: accepted",
			mutate: withWorker(vcjob.NumaPolicyRestricted, resources("2", ""), resources("2", "")),
			want:   []wantErr{},
		},
		{
			name:   "fractional CPU",
			mutate: withWorker(vcjob.NumaPolicyRestricted, resources("1500m", "1Gi"), resources("1500m", "1Gi")),
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.tasks[1].template.spec.containers[0].resources.requests[cpu]"}},
		},
		{
			name: "fractional CPU in an init container",
			mutate: func(j *vcjob.Job) {
				withWorker(vcjob.NumaPolicyRestricted, resources("1", "1Gi"), resources("1", "1Gi"))(j)
				j.Spec.Tasks[1].Template.Spec.InitContainers = []corev1.Container{{
					Name: "init", Image: "busybox",
					Resources: corev1.ResourceRequirements{Limits: resources("100m", "64Mi")},
				}}
			},
			want: []wantErr{{field.ErrorTypeInvalid, "spec.tasks[1].template.spec.initContainers[0].resources.requests[cpu]"}},
		},
	}, ValidateJob)
}

func TestValidateJobSchemaRules(t *testing.T) {
	runValidationCases(t, []validationCase{
		{
			name:   "schedulerName too long",
			mutate: func(j *vcjob.Job) { j.Spec.SchedulerName = strings.Repeat("s", 64) },
			want:   []wantErr{{field.ErrorTypeTooLong, "spec.schedulerName"}},
		},
		{
			name:   "minAvailable negative",
			mutate: func(j *vcjob.Job) { j.Spec.MinAvailable = -1 },
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.minAvailable"}},
		},
		{
			name:   "queue not a DNS subdomain",
			mutate: func(j *vcjob.Job) { j.Spec.Queue = "Team_Queue" },
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.queue"}},
		},
		{
			name:   "queue too long",
			mutate: func(j *vcjob.Job) { j.Spec.Queue = strings.Repeat("q", 254) },
			want:   []wantErr{{field.ErrorTypeTooLong, "spec.queue"}},
		},
		{
			name:   "queue may have dots",
			mutate: func(j *vcjob.Job) { j.Spec.Queue = "root.eng-prod" },
			want:   []wantErr{},
		},
		{
			name:   "priorityClassName not a DNS subdomain",
			mutate: func(j *vcjob.Job) { j.Spec.PriorityClassName = "High" },
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.priorityClassName"}},
		},
		{
			name:   "priorityClassName too long",
			mutate: func(j *vcjob.Job) { j.Spec.PriorityClassName = strings.Repeat("p", 254) },
			want:   []wantErr{{field.ErrorTypeTooLong, "spec.priorityClassName"}},
		},
		{
			name:   "maxRetry negative",
			mutate: func(j *vcjob.Job) { j.Spec.MaxRetry = -1 },
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.maxRetry"}},
		},
		{
			name:   "ttlSecondsAfterFinished negative",
			mutate: func(j *vcjob.Job) { j.Spec.TTLSecondsAfterFinished = new(int32(-1)) },
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.ttlSecondsAfterFinished"}},
		},
		{
			name:   "ttlSecondsAfterFinished 0 deletes at once",
			mutate: func(j *vcjob.Job) { j.Spec.TTLSecondsAfterFinished = new(int32(0)) },
			want:   []wantErr{},
		},
		{
			name:   "minSuccess 0",
			mutate: func(j *vcjob.Job) { j.Spec.MinSuccess = new(int32(0)) },
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.minSuccess"}},
		},
		{
			name:   "task name too long",
			mutate: func(j *vcjob.Job) { j.Name, j.Spec.Tasks[1].Name = "j", strings.Repeat("t", 64) },
			want: []wantErr{
				{field.ErrorTypeInvalid, "spec.tasks[1].name"}, // not a DNS label
				{field.ErrorTypeInvalid, "spec.tasks[1].name"}, // so the pod name is too long
			},
		},
		{
			name:   "task replicas negative",
			mutate: func(j *vcjob.Job) { j.Spec.Tasks[1].Replicas, j.Spec.MinAvailable = -1, 0 },
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.tasks[1].replicas"}},
		},
		{
			name:   "task minAvailable negative",
			mutate: func(j *vcjob.Job) { j.Spec.Tasks[1].MinAvailable = new(int32(-1)) },
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.tasks[1].minAvailable"}},
		},
		{
			name:   "task maxRetry negative",
			mutate: func(j *vcjob.Job) { j.Spec.Tasks[1].MaxRetry = -1 },
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.tasks[1].maxRetry"}},
		},
		{
			name:   "status phase unknown",
			mutate: func(j *vcjob.Job) { j.Status.State.Phase = "Sleeping" },
			want:   []wantErr{{field.ErrorTypeNotSupported, "status.state.phase"}},
		},
		{
			name:   "status phase known",
			mutate: func(j *vcjob.Job) { j.Status.State.Phase = vcjob.Restarting },
			want:   []wantErr{},
		},
	}, ValidateJob)
}

func TestValidateJobCollectsEveryError(t *testing.T) {
	job := validJob()
	job.Spec.MaxRetry = -1
	job.Spec.Queue = "Bad"
	job.Spec.Tasks[0].Replicas = -2
	job.Spec.Tasks[1].Policies = []vcjob.LifecyclePolicy{{Action: vcjob.RestartJobAction, ExitCode: new(int32(0))}}
	job.Spec.Plugins = pluginsNamed("nope")
	assert.ElementsMatch(t, []wantErr{
		{field.ErrorTypeInvalid, "spec.maxRetry"},
		{field.ErrorTypeInvalid, "spec.queue"},
		{field.ErrorTypeInvalid, "spec.tasks[0].replicas"},
		{field.ErrorTypeInvalid, "spec.minAvailable"}, // 3 > -2 + 2
		{field.ErrorTypeInvalid, "spec.tasks[1].policies[0].exitCode"},
		{field.ErrorTypeNotSupported, "spec.plugins[nope]"},
	}, keysOf(ValidateJob(job)))
}

func TestValidateJobUpdate(t *testing.T) {
	runValidationCases(t, []validationCase{
		{
			name:   "no change",
			mutate: func(*vcjob.Job) {},
			want:   []wantErr{},
		},
		{
			name: "the four mutable fields change",
			mutate: func(j *vcjob.Job) {
				j.Spec.MinAvailable = 5
				j.Spec.PriorityClassName = "high"
				j.Spec.Tasks[1].Replicas = 5
				j.Spec.Tasks[1].MinAvailable = new(int32(4))
			},
			want: []wantErr{},
		},
		{
			name: "metadata and status are not the update webhook's concern",
			mutate: func(j *vcjob.Job) {
				j.Labels = map[string]string{"a": "b"}
				j.Status.State.Phase = vcjob.Running
			},
			want: []wantErr{},
		},
		{
			name:   "queue changes",
			mutate: func(j *vcjob.Job) { j.Spec.Queue = "other" },
			want:   []wantErr{{field.ErrorTypeForbidden, "spec.queue"}},
		},
		{
			name:   "maxRetry changes",
			mutate: func(j *vcjob.Job) { j.Spec.MaxRetry = 10 },
			want:   []wantErr{{field.ErrorTypeForbidden, "spec.maxRetry"}},
		},
		{
			name: "policies change",
			mutate: func(j *vcjob.Job) {
				j.Spec.Policies = []vcjob.LifecyclePolicy{{Event: vcjob.PodEvictedEvent, Action: vcjob.RestartJobAction}}
			},
			want: []wantErr{{field.ErrorTypeForbidden, "spec.policies"}},
		},
		{
			name:   "task template changes",
			mutate: func(j *vcjob.Job) { j.Spec.Tasks[0].Template.Spec.Containers[0].Image = "nginx" },
			want:   []wantErr{{field.ErrorTypeForbidden, "spec.tasks[0].template"}},
		},
		{
			name:   "task name changes",
			mutate: func(j *vcjob.Job) { j.Spec.Tasks[1].Name = "trainer" },
			want:   []wantErr{{field.ErrorTypeForbidden, "spec.tasks[1].name"}},
		},
		{
			name:   "task maxRetry changes",
			mutate: func(j *vcjob.Job) { j.Spec.Tasks[1].MaxRetry = 9 },
			want:   []wantErr{{field.ErrorTypeForbidden, "spec.tasks[1].maxRetry"}},
		},
		{
			name:   "task added",
			mutate: func(j *vcjob.Job) { j.Spec.Tasks = append(j.Spec.Tasks, vcjob.TaskSpec{Name: "extra", Replicas: 1}) },
			want:   []wantErr{{field.ErrorTypeForbidden, "spec.tasks"}},
		},
		{
			name:   "task removed",
			mutate: func(j *vcjob.Job) { j.Spec.Tasks, j.Spec.MinAvailable = j.Spec.Tasks[:1], 1 },
			want:   []wantErr{{field.ErrorTypeForbidden, "spec.tasks"}},
		},
		{
			name: "replicas negative",
			mutate: func(j *vcjob.Job) {
				j.Spec.Tasks[0].Replicas, j.Spec.Tasks[0].MinAvailable, j.Spec.MinAvailable = -1, nil, 1
			},
			want: []wantErr{{field.ErrorTypeInvalid, "spec.tasks[0].replicas"}},
		},
		{
			name:   "task minAvailable above replicas",
			mutate: func(j *vcjob.Job) { j.Spec.Tasks[1].MinAvailable = new(int32(3)) },
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.tasks[1].minAvailable"}},
		},
		{
			name:   "task minAvailable negative",
			mutate: func(j *vcjob.Job) { j.Spec.Tasks[1].MinAvailable = new(int32(-1)) },
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.tasks[1].minAvailable"}},
		},
		{
			name:   "job minAvailable above total replicas",
			mutate: func(j *vcjob.Job) { j.Spec.MinAvailable = 4 },
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.minAvailable"}},
		},
		{
			name:   "job minAvailable negative",
			mutate: func(j *vcjob.Job) { j.Spec.MinAvailable = -1 },
			want:   []wantErr{{field.ErrorTypeInvalid, "spec.minAvailable"}},
		},
	}, func(newJob *vcjob.Job) field.ErrorList { return ValidateJobUpdate(newJob, validJob()) })
}

func TestValidateJobUpdateIgnoresControllerClaimNames(t *testing.T) {
	old := validJob()
	old.Spec.Volumes = []vcjob.VolumeSpec{{MountPath: "/out", VolumeClaim: &corev1.PersistentVolumeClaimSpec{}}}
	updated := old.DeepCopy()
	updated.Spec.Volumes[0].VolumeClaimName = "job-volume-x7k2p" // what the controller writes
	assert.Empty(t, ValidateJobUpdate(updated, old))

	updated.Spec.Volumes[0].MountPath = "/elsewhere"
	assert.Equal(t, []wantErr{{field.ErrorTypeForbidden, "spec.volumes"}}, keysOf(ValidateJobUpdate(updated, old)))
	assert.Empty(t, old.Spec.Volumes[0].VolumeClaimName, "the caller's jobs are not modified")
}

func TestValidateJobUpdateTreatsNilAsEmpty(t *testing.T) {
	old := validJob()
	old.Spec.Plugins = map[string][]string{}
	updated := old.DeepCopy()
	updated.Spec.Plugins = nil
	assert.Empty(t, ValidateJobUpdate(updated, old))
}

func TestValidationNeverPanics(t *testing.T) {
	jobs := []*vcjob.Job{
		{},
		{Spec: vcjob.JobSpec{Tasks: []vcjob.TaskSpec{{}}}},
		{Spec: vcjob.JobSpec{Tasks: []vcjob.TaskSpec{{
			Replicas:        -5,
			MinAvailable:    new(int32(-7)),
			TopologyPolicy:  vcjob.NumaPolicyRestricted,
			DependsOn:       &vcjob.DependsOn{},
			PartitionPolicy: &vcjob.PartitionPolicySpec{TotalPartitions: -1, PartitionSize: -1, MinPartitions: -1},
		}}}},
		{Spec: vcjob.JobSpec{
			MinAvailable:    2147483647,
			Tasks:           []vcjob.TaskSpec{{Name: "a", Replicas: 2147483647}, {Name: "b", Replicas: 2147483647}},
			Policies:        []vcjob.LifecyclePolicy{{}, {Events: []vcjob.Event{""}}},
			Volumes:         []vcjob.VolumeSpec{{}},
			NetworkTopology: &vcjob.NetworkTopologySpec{},
		}},
	}
	for _, job := range jobs {
		require.NotPanics(t, func() {
			ValidateJob(job)
			ValidateJobUpdate(job, &vcjob.Job{})
			ValidateJobUpdate(&vcjob.Job{}, job)
			vcjob.SetDefaults(job)
			ValidateJob(job)
			ValidateJobUpdate(job, job)
		})
	}
}

// A task whose template is given as null is a task without a template:
// package manifest decodes the null as the template left out, as an API
// server with the Job CRD prunes it before admission. Volcano's webhook
// then runs the pod template checks on the empty template and refuses
// the job for its missing containers, and nothing else.
func TestValidateJobNullTaskTemplate(t *testing.T) {
	doc := func(template string) []byte {
		return []byte(`apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: demo, namespace: ml}
spec:
  tasks:
  - name: main
    replicas: 1
    template: {spec: {containers: [{name: main, image: busybox}]}}
  - name: worker
    replicas: 1
` + template)
	}
	for name, template := range map[string]string{
		"null":              "    template:\n",
		"null, written out": "    template: null\n",
		"left out":          "",
	} {
		t.Run(name, func(t *testing.T) {
			job, err := manifest.DecodeJob(doc(template))
			require.NoError(t, err)
			vcjob.SetDefaults(job)
			errs := ValidateJob(job)
			assert.Equal(t, []wantErr{{field.ErrorTypeRequired, "spec.tasks[1].template.spec.containers"}}, keysOf(errs), "errors: %v", errs)
			assert.EqualError(t, errs.ToAggregate(), "spec.tasks[1].template.spec.containers: Required value")
		})
	}
}
