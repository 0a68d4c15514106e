package validation

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

// The cases of Volcano's own webhook tests (jobs/validate and
// cronjobs/validate), carried over as facts: the input each builds and the
// verdict Volcano's webhook gives it. Volcano's tests run the webhook on
// the job as written (no defaults) with a queue "default" that is Open;
// so do these, through a queue lookup holding the same queues.

// fakeQueues is a queue hierarchy: name -> (state, parent).
type fakeQueues map[string][2]string

func (q fakeQueues) Queue(name string) (string, bool, error) {
	v, ok := q[name]
	return v[0], ok, nil
}

func (q fakeQueues) Children(name string) (int, error) {
	n := 0
	for _, v := range q {
		if v[1] == name {
			n++
		}
	}
	return n, nil
}

// volcanoJob is the job Volcano's webhook tests start from.
func volcanoJob(name string) *vcjob.Job {
	return &vcjob.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "test"},
		Spec: vcjob.JobSpec{
			MinAvailable: 1,
			Queue:        "default",
			Tasks: []vcjob.TaskSpec{{
				Name:     "task-1",
				Replicas: 1,
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"name": "test"}},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "fake-name", Image: "busybox:1.24"}}},
				},
			}},
		},
	}
}

func cpuMemHuge(cpu, mem, huge1Mi string) corev1.ResourceList {
	l := corev1.ResourceList{}
	for name, v := range map[corev1.ResourceName]string{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem, "hugepages-1Mi": huge1Mi} {
		if v != "" {
			l[name] = resource.MustParse(v)
		}
	}
	return l
}

type volcanoCase struct {
	name   string
	mutate func(j *vcjob.Job)
	admit  bool
	// reason is a word of Volcano's message the errors' text must share,
	// when it names the same thing.
	reason string
}

func volcanoCreateCases() []volcanoCase {
	exitCode := func(c int32) *int32 { return &c }
	tierAllowed := 1
	partition := func(total, size, min int32) *vcjob.PartitionPolicySpec {
		return &vcjob.PartitionPolicySpec{TotalPartitions: total, PartitionSize: size, MinPartitions: min}
	}
	mpiTask := func(name string, replicas int32) vcjob.TaskSpec {
		return vcjob.TaskSpec{Name: name, Replicas: replicas, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: name, Image: "mpi:latest"}}}}}
	}
	podLevel := func(pod corev1.ResourceRequirements, init []corev1.Container, ctrs ...corev1.ResourceRequirements) func(*vcjob.Job) {
		return func(j *vcjob.Job) {
			spec := &j.Spec.Tasks[0].Template.Spec
			spec.Resources = &pod
			spec.InitContainers = init
			spec.Containers = nil
			for i, r := range ctrs {
				spec.Containers = append(spec.Containers, corev1.Container{Name: "fake-name-" + string(rune('1'+i)), Image: "busybox:1.24", Resources: r})
			}
		}
	}
	twoTasks := func(dep string) func(*vcjob.Job) {
		return func(j *vcjob.Job) {
			t1, t2 := j.Spec.Tasks[0], j.Spec.Tasks[0]
			t1.Name, t2.Name = "t1", "t2"
			t1.DependsOn = &vcjob.DependsOn{Name: []string{dep}}
			j.Spec.Tasks = []vcjob.TaskSpec{t1, t2}
		}
	}
	return []volcanoCase{
		{"simple-valid-job", func(*vcjob.Job) {}, true, ""},
		{"simple-valid-job-with-policy", func(j *vcjob.Job) {
			j.Spec.Policies = []vcjob.LifecyclePolicy{{Event: vcjob.PodEvictedEvent, Action: vcjob.RestartTaskAction}}
		}, true, ""},
		{"duplicate-task-job", func(j *vcjob.Job) { j.Spec.Tasks = append(j.Spec.Tasks, j.Spec.Tasks[0]) }, false, "Duplicate"},
		{"job-policy-duplicated", func(j *vcjob.Job) {
			j.Spec.Policies = []vcjob.LifecyclePolicy{{Event: vcjob.PodFailedEvent, Action: vcjob.AbortJobAction}, {Event: vcjob.PodFailedEvent, Action: vcjob.RestartJobAction}}
		}, false, "Duplicate"},
		{"Min Available illegal", func(j *vcjob.Job) { j.Spec.MinAvailable = 2 }, false, "total replicas"},
		{"Job Plugin illegal", func(j *vcjob.Job) { j.Spec.Plugins = map[string][]string{"big_plugin": {}} }, false, "big_plugin"},
		{"no-task", func(j *vcjob.Job) { j.Spec.Tasks = []vcjob.TaskSpec{} }, false, "task"},
		{"replica-lessThanZero", func(j *vcjob.Job) { j.Spec.Tasks[0].Replicas = -1 }, false, "replicas"},
		{"job-policy-withExitCode", func(j *vcjob.Job) {
			j.Spec.Policies = []vcjob.LifecyclePolicy{{Event: vcjob.PodFailedEvent, Action: vcjob.AbortJobAction, ExitCode: exitCode(-1)}}
		}, false, "exitCode"},
		{"policy-noEvent-noExCode", func(j *vcjob.Job) {
			j.Spec.Policies = []vcjob.LifecyclePolicy{{Action: vcjob.AbortJobAction}}
		}, false, "exitCode"},
		{"invalid-policy-event", func(j *vcjob.Job) {
			j.Spec.Policies = []vcjob.LifecyclePolicy{{Event: "someFakeEvent", Action: vcjob.AbortJobAction}}
		}, false, "someFakeEvent"},
		{"invalid-policy-action", func(j *vcjob.Job) {
			j.Spec.Policies = []vcjob.LifecyclePolicy{{Event: vcjob.PodEvictedEvent, Action: "someFakeAction"}}
		}, false, "someFakeAction"},
		{"policy-extcode-zero", func(j *vcjob.Job) {
			j.Spec.Policies = []vcjob.LifecyclePolicy{{Action: vcjob.AbortJobAction, ExitCode: exitCode(0)}}
		}, false, "0"},
		{"duplicate-exitcode (no action: Volcano checks none on exit-code policies)", func(j *vcjob.Job) {
			j.Spec.Policies = []vcjob.LifecyclePolicy{{ExitCode: exitCode(1)}, {ExitCode: exitCode(1)}}
		}, false, "Duplicate"},
		{"job-policy-withAnyAndOtherEvent", func(j *vcjob.Job) {
			j.Spec.Policies = []vcjob.LifecyclePolicy{{Event: vcjob.AnyEvent, Action: vcjob.AbortJobAction}, {Event: vcjob.PodFailedEvent, Action: vcjob.RestartJobAction}}
		}, false, "*"},
		{"invalid-mount-volume", func(j *vcjob.Job) {
			j.Spec.Policies = []vcjob.LifecyclePolicy{{Event: vcjob.AnyEvent, Action: vcjob.AbortJobAction}}
			j.Spec.Volumes = []vcjob.VolumeSpec{{MountPath: ""}}
		}, false, "mountPath"},
		{"duplicate-mount-volume", func(j *vcjob.Job) {
			j.Spec.Volumes = []vcjob.VolumeSpec{{MountPath: "/var", VolumeClaimName: "pvc1"}, {MountPath: "/var", VolumeClaimName: "pvc2"}}
		}, false, "/var"},
		{"volume without VolumeClaimName and VolumeClaim", func(j *vcjob.Job) {
			j.Spec.Volumes = []vcjob.VolumeSpec{{MountPath: "/var"}, {MountPath: "/var"}}
		}, false, "volumeClaim"},
		{"taskpolicy-withAnyandOthrEvent", func(j *vcjob.Job) {
			j.Spec.Tasks[0].Policies = []vcjob.LifecyclePolicy{{Event: vcjob.AnyEvent, Action: vcjob.AbortJobAction}, {Event: vcjob.PodFailedEvent, Action: vcjob.RestartJobAction}}
		}, false, "*"},
		{"job-with-noQueue", func(j *vcjob.Job) { j.Spec.Queue = "jobQueue" }, false, "jobQueue"},
		{"job with privileged init container", func(j *vcjob.Job) {
			j.Spec.Tasks[0].Template.Spec.InitContainers = []corev1.Container{{Name: "init-fake-name", Image: "busybox:1.24",
				SecurityContext: &corev1.SecurityContext{Privileged: new(true)}}}
		}, true, ""},
		{"job with privileged container", func(j *vcjob.Job) {
			j.Spec.Tasks[0].Template.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: new(true)}
		}, true, ""},
		{"job with valid task depends on", twoTasks("t2"), true, ""},
		{"job with invalid task depends on", twoTasks("t3"), false, "t3"},
		{"PartitionSize-lessThanZero", func(j *vcjob.Job) {
			j.Spec.Tasks[0].Replicas, j.Spec.Tasks[0].PartitionPolicy = 8, partition(8, -1, 0)
		}, false, "partitionSize"},
		{"TotalPartitions-lessThanZero", func(j *vcjob.Job) {
			j.Spec.Tasks[0].Replicas, j.Spec.Tasks[0].PartitionPolicy = 8, partition(-1, 8, 0)
		}, false, "totalPartitions"},
		{"task-with-invalid-PartitionPolicy", func(j *vcjob.Job) {
			j.Spec.Tasks[0].Replicas, j.Spec.Tasks[0].PartitionPolicy = 8, partition(2, 3, 0)
		}, false, "partitionPolicy.totalPartitions * partitionPolicy.partitionSize"},
		{"task-with-valid-PartitionPolicy", func(j *vcjob.Job) {
			j.Spec.Tasks[0].Replicas, j.Spec.Tasks[0].PartitionPolicy = 8, partition(2, 4, 0)
		}, true, ""},
		{"task-with-valid-NetworkTopology-and-PartitionPolicy", func(j *vcjob.Job) {
			j.Spec.NetworkTopology = &vcjob.NetworkTopologySpec{Mode: vcjob.HardNetworkTopologyMode, HighestTierName: "volcano.sh/hypernode"}
			j.Spec.Tasks[0].Replicas, j.Spec.Tasks[0].PartitionPolicy = 8, partition(2, 4, 0)
			j.Spec.Tasks[0].PartitionPolicy.NetworkTopology = &vcjob.NetworkTopologySpec{Mode: vcjob.HardNetworkTopologyMode, HighestTierName: "volcano.sh/hypernode"}
		}, true, ""},
		{"job-with-invalid-NetworkTopology-and-PartitionPolicy", func(j *vcjob.Job) {
			j.Spec.NetworkTopology = &vcjob.NetworkTopologySpec{Mode: vcjob.HardNetworkTopologyMode, HighestTierAllowed: &tierAllowed, HighestTierName: "volcano.sh/hypernode"}
			j.Spec.Tasks[0].Replicas, j.Spec.Tasks[0].PartitionPolicy = 8, partition(2, 4, 0)
			j.Spec.Tasks[0].PartitionPolicy.NetworkTopology = &vcjob.NetworkTopologySpec{Mode: vcjob.HardNetworkTopologyMode, HighestTierAllowed: &tierAllowed, HighestTierName: "volcano.sh/hypernode"}
		}, false, "highestTierAllowed"},
		{"job-with-invalid-NetworkTopology", func(j *vcjob.Job) {
			j.Spec.NetworkTopology = &vcjob.NetworkTopologySpec{Mode: vcjob.HardNetworkTopologyMode, HighestTierAllowed: &tierAllowed, HighestTierName: "volcano.sh/hypernode"}
			j.Spec.Tasks[0].Replicas, j.Spec.Tasks[0].PartitionPolicy = 8, partition(2, 4, 0)
		}, false, "highestTierAllowed"},
		{"task-with-invalid-PartitionPolicy-NetworkTopology", func(j *vcjob.Job) {
			j.Spec.Tasks[0].Replicas, j.Spec.Tasks[0].PartitionPolicy = 8, partition(2, 4, 0)
			j.Spec.Tasks[0].PartitionPolicy.NetworkTopology = &vcjob.NetworkTopologySpec{Mode: vcjob.HardNetworkTopologyMode, HighestTierAllowed: &tierAllowed, HighestTierName: "volcano.sh/hypernode"}
		}, false, "highestTierAllowed"},
		{"task-with-valid-PartitionPolicy-MinPartitions", func(j *vcjob.Job) {
			j.Spec.Tasks[0].Replicas, j.Spec.Tasks[0].PartitionPolicy = 8, partition(2, 4, 1)
		}, true, ""},
		{"task-with-invalid-PartitionPolicy-MinPartitions-not-equal", func(j *vcjob.Job) {
			j.Spec.Tasks[0].Replicas, j.Spec.Tasks[0].MinAvailable, j.Spec.Tasks[0].PartitionPolicy = 8, new(int32(4)), partition(4, 2, 1)
		}, false, "partitionPolicy.minPartitions * partitionPolicy.partitionSize"},
		{"task-with-valid-PartitionPolicy-MinPartitions-equal", func(j *vcjob.Job) {
			j.Spec.Tasks[0].Replicas, j.Spec.Tasks[0].MinAvailable, j.Spec.Tasks[0].PartitionPolicy = 8, new(int32(4)), partition(4, 2, 2)
		}, true, ""},
		{"job-with-mpi-plugin-valid-master", func(j *vcjob.Job) {
			j.Spec.Tasks = []vcjob.TaskSpec{mpiTask("launcher", 1), mpiTask("worker", 2)}
			j.Spec.Plugins = map[string][]string{"mpi": {"--master=launcher"}}
		}, true, ""},
		{"job-with-mpi-plugin-valid-master-without-worker", func(j *vcjob.Job) {
			j.Spec.Tasks = []vcjob.TaskSpec{mpiTask("launcher", 1)}
			j.Spec.Plugins = map[string][]string{"mpi": {"--master=launcher"}}
		}, true, ""},
		{"job-with-mpi-plugin-invalid-master", func(j *vcjob.Job) {
			j.Spec.Tasks = []vcjob.TaskSpec{mpiTask("worker", 2)}
			j.Spec.Plugins = map[string][]string{"mpi": {"--master=launcher"}}
		}, false, "The specified mpi master task was not found"},
		{"validate valid-job with pod level resources", podLevel(
			corev1.ResourceRequirements{Requests: cpuMemHuge("4", "8Gi", "2Gi"), Limits: cpuMemHuge("4", "8Gi", "2Gi")}, nil,
			corev1.ResourceRequirements{Requests: cpuMemHuge("2", "4Gi", "1Gi"), Limits: cpuMemHuge("2", "4Gi", "1Gi")}), true, ""},
		{"validate invalid-job with pod level resources less than aggregate container resources", podLevel(
			corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), "hugepages-1Mi": resource.MustParse("2Gi"), "hugepages-1Ki": resource.MustParse("2Gi")},
				Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), "hugepages-1Mi": resource.MustParse("2Gi"), "hugepages-1Ki": resource.MustParse("2Gi")},
			},
			[]corev1.Container{{Name: "fake-name-0", Image: "busybox:1.24", Resources: corev1.ResourceRequirements{Requests: cpuMemHuge("2", "", "")}}},
			corev1.ResourceRequirements{Requests: cpuMemHuge("2", "", "")}, corev1.ResourceRequirements{Requests: cpuMemHuge("2", "", "")}),
			false, "must be greater than or equal to aggregate container requests of 4"},
		{"validate invalid-job with pod level resource requests greater than limits", podLevel(
			corev1.ResourceRequirements{Requests: cpuMemHuge("6", "", ""), Limits: cpuMemHuge("4", "", "")}, nil,
			corev1.ResourceRequirements{Requests: cpuMemHuge("2", "", ""), Limits: cpuMemHuge("2", "", "")},
			corev1.ResourceRequirements{Requests: cpuMemHuge("2", "", ""), Limits: cpuMemHuge("2", "", "")}),
			false, "must be less than or equal to cpu limit of 4"},
	}
}

func TestVolcanoWebhookCreateCases(t *testing.T) {
	queues := fakeQueues{"default": {QueueStateOpen, "root"}, "root": {QueueStateOpen, ""}}
	for _, tc := range volcanoCreateCases() {
		t.Run(tc.name, func(t *testing.T) {
			job := volcanoJob(strings.ToLower(strings.ReplaceAll(tc.name, " ", "-")))
			if len(job.Name) > 50 {
				job.Name = job.Name[:50]
			}
			tc.mutate(job)
			errs := ValidateJobWith(job, Options{Queues: queues})
			assert.Equal(t, tc.admit, len(errs) == 0, "errors: %v", errs)
			if tc.reason != "" {
				assert.Contains(t, errs.ToAggregate().Error(), tc.reason)
			}
		})
	}
}

func TestVolcanoWebhookHierarchyCases(t *testing.T) {
	// Volcano's test names its queues parentQueue and childQueue; a queue
	// is named as any cluster object (a DNS subdomain), and the Job CRD
	// refuses other queue names, so they are spelled in lower case here.
	queues := fakeQueues{
		"root":         {QueueStateOpen, ""},
		"parent-queue": {QueueStateOpen, "root"},
		"child-queue":  {QueueStateOpen, "parent-queue"},
		"closed":       {"Closed", "root"},
	}
	for _, tc := range []struct {
		queue  string
		admit  bool
		reason string
	}{
		{"root", false, "can not submit job to root queue"},
		{"parent-queue", false, "can only submit job to leaf queue"},
		{"child-queue", true, ""},
		{"closed", false, "can only submit job to queue with state `Open`"},
		{"missing", false, "missing"},
	} {
		t.Run(tc.queue, func(t *testing.T) {
			job := volcanoJob("job-with-queue")
			job.Spec.Queue = tc.queue
			errs := ValidateJobWith(job, Options{Queues: queues})
			assert.Equal(t, tc.admit, len(errs) == 0, "errors: %v", errs)
			if tc.reason != "" {
				assert.Contains(t, errs.ToAggregate().Error(), tc.reason)
			}
		})
	}
	// Without a lookup only the root name is refused: a Volcano cluster
	// always has the root queue.
	job := volcanoJob("job-with-queue")
	job.Spec.Queue = "root"
	assert.Equal(t, []wantErr{{"FieldValueInvalid", "spec.queue"}}, keysOf(ValidateJob(job)))
	job.Spec.Queue = "anything"
	assert.Empty(t, ValidateJob(job))
}

type failingQueues struct{}

func (failingQueues) Queue(string) (string, bool, error) {
	return "", false, errors.New("cache not synced")
}
func (failingQueues) Children(string) (int, error) { return 0, nil }

func TestQueueLookupFailureIsAnInternalError(t *testing.T) {
	errs := ValidateJobWith(volcanoJob("j"), Options{Queues: failingQueues{}})
	assert.Equal(t, []wantErr{{"InternalError", "spec.queue"}}, keysOf(errs))
	assert.Contains(t, errs[0].Error(), "cache not synced")
}

func TestVolcanoWebhookUpdateCases(t *testing.T) {
	newJob := func() *vcjob.Job {
		j := volcanoJob("valid-job")
		j.Namespace = "default"
		j.Spec.MinAvailable, j.Spec.Tasks[0].Replicas = 5, 5
		j.Spec.Policies = []vcjob.LifecyclePolicy{{Event: vcjob.PodEvictedEvent, Action: vcjob.RestartTaskAction}}
		return j
	}
	for _, tc := range []struct {
		name                   string
		replicas, minAvailable int32
		addTask, rename, queue bool
		admit                  bool
	}{
		{"scale up", 6, 5, false, false, false, true},
		{"invalid scale down with replicas less than minAvailable", 4, 5, false, false, false, false},
		{"scale down", 4, 3, false, false, false, true},
		{"invalid add task", 4, 5, true, false, false, false},
		{"invalid mutate task's fields other than replicas", 5, 5, false, true, false, false},
		{"invalid mutate job's spec other than minAvailable", 5, 5, false, false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, updated := newJob(), newJob()
			updated.ResourceVersion, updated.Status.Succeeded = "502593", 2
			updated.Spec.MinAvailable, updated.Spec.Tasks[0].Replicas = tc.minAvailable, tc.replicas
			if tc.addTask {
				extra := updated.Spec.Tasks[0]
				extra.Name = "task-2"
				updated.Spec.Tasks = append(updated.Spec.Tasks, extra)
			}
			if tc.rename {
				updated.Spec.Tasks[0].Name = "mutated-name"
			}
			if tc.queue {
				updated.Spec.Queue = "mutated-queue"
			}
			errs := ValidateJobUpdate(updated, old)
			assert.Equal(t, tc.admit, len(errs) == 0, "errors: %v", errs)
		})
	}
}

// The partition policy is re-checked on update: scaling a partitioned
// task off totalPartitions*partitionSize is refused.
func TestUpdateRechecksPartitionCounts(t *testing.T) {
	old := volcanoJob("partitioned")
	old.Spec.Tasks[0].Replicas, old.Spec.Tasks[0].MinAvailable = 8, new(int32(4))
	old.Spec.Tasks[0].PartitionPolicy = &vcjob.PartitionPolicySpec{TotalPartitions: 4, PartitionSize: 2, MinPartitions: 2}
	assert.Empty(t, ValidateJob(old))

	scaled := old.DeepCopy()
	scaled.Spec.Tasks[0].Replicas = 10
	assert.Equal(t, []wantErr{{"FieldValueInvalid", "spec.tasks[0].replicas"}}, keysOf(ValidateJobUpdate(scaled, old)))

	lowered := old.DeepCopy()
	lowered.Spec.Tasks[0].MinAvailable = new(int32(2))
	assert.Equal(t, []wantErr{{"FieldValueInvalid", "spec.tasks[0].minAvailable"}}, keysOf(ValidateJobUpdate(lowered, old)))
}

func TestVolcanoWebhookTopologyCases(t *testing.T) {
	task := func(cpu resource.Quantity) *vcjob.TaskSpec {
		return &vcjob.TaskSpec{Name: "task-1", Replicas: 5, TopologyPolicy: vcjob.NumaPolicyRestricted,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{
				Limits: corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: *resource.NewQuantity(2000, resource.BinarySI)}}}}}}}
	}
	assert.Empty(t, validateTopologyPolicy(task(*resource.NewQuantity(1, "")), nil))
	assert.NotEmpty(t, validateTopologyPolicy(task(*resource.NewMilliQuantity(500, resource.DecimalSI)), nil))
}

func TestVolcanoWebhookCronJobCases(t *testing.T) {
	for _, tc := range []struct {
		name, schedule string
		zone           *string
		admit          bool
		reason         string
	}{
		{"validate valid-cronjob", "* * * * *", nil, true, ""},
		{"validate non-standard scheduled", "@every 1m", nil, true, ""},
		{"validate correct timeZone", "*/5 * * * *", new("Pacific/Honolulu"), true, ""},
		{"validate contain TZ schedule", "TZ=UTC 0 20 * * *", new("Pacific/Honolulu"), false, "schedule should not contain TZ or CRON_TZ"},
		{"validate error schedule", "error schedule", new("Pacific/Honolulu"), false, "schedule is not a valid cron expression"},
		{"validate empty schedule", "", new("Pacific/Honolulu"), false, "spec.schedule: Required"},
		{"validate unknown . timezone", "*/5 * * * *", new("Asia/./Shanghai"), false, "unknown timeZone"},
		{"validate unknown _ timezone", "*/5 * * * *", new("America/-NewYork"), false, "unknown timeZone"},
		{"validate unknown space timezone", "*/5 * * * *", new("New York"), false, "unknown timeZone"},
		{"validate unknown ! timezone", "*/5 * * * *", new("UTC!"), false, "unknown timeZone"},
		{"validate Local timezone", "*/5 * * * *", new("Local"), false, "timeZone can't be Local"},
		{"validate empty timezone", "", new(""), false, "timeZone must be nil or non-empty string"},
		{"validate error timezone", "", new("Amerrica/New_York"), false, "invalid timeZone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cj := &vcjob.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "cronvcjob", Namespace: metav1.NamespaceDefault},
				Spec: vcjob.CronJobSpec{Schedule: tc.schedule, TimeZone: tc.zone, ConcurrencyPolicy: vcjob.AllowConcurrent,
					JobTemplate: vcjob.JobTemplateSpec{Spec: volcanoJob("x").Spec}}}
			errs := ValidateCronJob(cj)
			assert.Equal(t, tc.admit, len(errs) == 0, "errors: %v", errs)
			if tc.reason != "" {
				assert.Contains(t, errs.ToAggregate().Error(), tc.reason)
			}
		})
	}
	for _, tc := range []struct {
		name  string
		admit bool
	}{{"my-cronjob", true}, {strings.Repeat("a", 52), true}, {strings.Repeat("a", 65), false}, {"-UPPERCASE", false}} {
		cj := &vcjob.CronJob{ObjectMeta: metav1.ObjectMeta{Name: tc.name},
			Spec: vcjob.CronJobSpec{Schedule: "* * * * *", ConcurrencyPolicy: vcjob.AllowConcurrent, JobTemplate: vcjob.JobTemplateSpec{Spec: volcanoJob("x").Spec}}}
		assert.Equal(t, tc.admit, len(ValidateCronJob(cj)) == 0, "name %q", tc.name)
	}
}
