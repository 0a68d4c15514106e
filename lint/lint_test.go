package lint_test

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/lint"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/validation"
)

func i32(v int32) *int32 { return &v }

// ddpJob is a clean PyTorch data-parallel job: a master whose completion
// completes the job, two workers whose OOM kills replace the pod and whose
// pods stuck Pending for 10 minutes abort the job, and a job-wide restart
// on eviction. Lint has nothing to say about it; each case below breaks
// one thing.
func ddpJob() *vcjob.Job {
	container := []corev1.Container{{Name: "pytorch", Image: "docker.io/kubeflowkatib/pytorch-mnist:v1beta1-45c5727"}}
	return &vcjob.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind},
		ObjectMeta: metav1.ObjectMeta{Name: "mnist-ddp", Namespace: "ml"},
		Spec: vcjob.JobSpec{
			SchedulerName: "volcano",
			Queue:         "default",
			MaxRetry:      3,
			Plugins:       map[string][]string{"pytorch": {"--master=master", "--worker=worker", "--port=23456"}},
			Policies:      []vcjob.LifecyclePolicy{{Event: vcjob.PodEvictedEvent, Action: vcjob.RestartJobAction}},
			Tasks: []vcjob.TaskSpec{
				{
					Name: "master", Replicas: 1,
					Policies: []vcjob.LifecyclePolicy{{Event: vcjob.TaskCompletedEvent, Action: vcjob.CompleteJobAction}},
					Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: container}},
				},
				{
					Name: "worker", Replicas: 2,
					Policies: []vcjob.LifecyclePolicy{
						{ExitCode: i32(137), Action: vcjob.RestartPodAction},
						{Event: vcjob.PodPendingEvent, Action: vcjob.AbortJobAction, Timeout: timeout(10 * time.Minute)},
					},
					Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: container}},
				},
			},
		},
	}
}

// at is a finding's code and path, as the table cases list them.
func at(code, path string) string { return code + " @ " + path }

type lintCase struct {
	name   string
	mutate func(j *vcjob.Job)
	want   []string // at(code, path), in any order; nil: no finding
}

var (
	master = func(j *vcjob.Job) *vcjob.TaskSpec { return &j.Spec.Tasks[0] }
	worker = func(j *vcjob.Job) *vcjob.TaskSpec { return &j.Spec.Tasks[1] }
)

func lintCases() []lintCase {
	return []lintCase{
		{name: "the clean job", mutate: func(*vcjob.Job) {}},
		{
			name: "an exit-code policy without an action",
			mutate: func(j *vcjob.Job) {
				worker(j).Policies[0].Action = ""
			},
			want: []string{at(lint.CodeExitCodeWithoutAction, "spec.tasks[1].policies[0].action")},
		},
		{
			name: "topologyPolicy on Burstable pods",
			mutate: func(j *vcjob.Job) {
				w := worker(j)
				w.TopologyPolicy = vcjob.NumaPolicySingleNumaNode
				w.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: "i", Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}}}
			},
			want: []string{at(lint.CodeTopologyPolicyNotGuaranteed, "spec.tasks[1].topologyPolicy")},
		},
		{
			name: "topologyPolicy on Guaranteed pods",
			mutate: func(j *vcjob.Job) {
				w := worker(j)
				w.TopologyPolicy = vcjob.NumaPolicyRestricted
				limits := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("1Gi")}
				w.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: "i", Resources: corev1.ResourceRequirements{Limits: limits}}}
			},
		},
		{
			// A 54-character job name: with "worker-1" (the position
			// Volcano's webhook checks) the name has 63, with "worker-10" 64.
			name: "a pod name too long only at the highest replica index",
			mutate: func(j *vcjob.Job) {
				j.Name = strings.Repeat("x", 54)
				worker(j).Replicas = 11
			},
			want: []string{at(lint.CodePodNameTooLong, "spec.tasks[1].name")},
		},
		{
			name: "RestartPartition on a partitioned task is fine",
			mutate: func(j *vcjob.Job) {
				w := worker(j)
				w.PartitionPolicy = &vcjob.PartitionPolicySpec{TotalPartitions: 2, PartitionSize: 1}
				w.Policies[0].Action = vcjob.RestartPartitionAction
			},
		},
		{
			name: "PodPending without a timeout never fires",
			mutate: func(j *vcjob.Job) {
				worker(j).Policies[1].Timeout = nil
			},
			want: []string{at(lint.CodePendingWithoutTimeout, "spec.tasks[1].policies[1].event")},
		},
		{
			name: "the same event twice: the second never fires",
			mutate: func(j *vcjob.Job) {
				worker(j).Policies = append(worker(j).Policies,
					vcjob.LifecyclePolicy{Event: vcjob.PodFailedEvent, Action: vcjob.RestartPodAction},
					vcjob.LifecyclePolicy{Events: []vcjob.Event{vcjob.PodEvictedEvent, vcjob.PodFailedEvent}, Action: vcjob.RestartJobAction})
			},
			want: []string{at(lint.CodePolicyShadowed, "spec.tasks[1].policies[3].events[1]")},
		},
		{
			name: "an exit code after a PodFailed event never fires",
			mutate: func(j *vcjob.Job) {
				w := worker(j)
				w.Policies = append([]vcjob.LifecyclePolicy{{Event: vcjob.PodFailedEvent, Action: vcjob.RestartTaskAction}}, w.Policies...)
			},
			want: []string{at(lint.CodePolicyShadowed, "spec.tasks[1].policies[1].exitCode")},
		},
		{
			name: "an exit code after * never fires",
			mutate: func(j *vcjob.Job) {
				m := master(j)
				m.Policies = []vcjob.LifecyclePolicy{
					{Event: vcjob.AnyEvent, Action: vcjob.CompleteJobAction},
					{ExitCode: i32(1), Action: vcjob.AbortJobAction},
				}
			},
			want: []string{at(lint.CodePolicyShadowed, "spec.tasks[0].policies[1].exitCode")},
		},
		{
			name: "a job policy every task handles first is dead",
			mutate: func(j *vcjob.Job) {
				j.Spec.Policies = append(j.Spec.Policies, vcjob.LifecyclePolicy{Event: vcjob.PodFailedEvent, Action: vcjob.RestartJobAction})
				master(j).Policies = append(master(j).Policies, vcjob.LifecyclePolicy{Event: vcjob.PodFailedEvent, Action: vcjob.TerminateJobAction})
				worker(j).Policies = append(worker(j).Policies, vcjob.LifecyclePolicy{Event: vcjob.PodFailedEvent, Action: vcjob.RestartTaskAction})
			},
			want: []string{at(lint.CodeJobPolicyOverridden, "spec.policies[1].event")},
		},
		{
			name: "a job policy one task leaves to it is alive",
			mutate: func(j *vcjob.Job) {
				j.Spec.Policies = append(j.Spec.Policies, vcjob.LifecyclePolicy{Event: vcjob.PodFailedEvent, Action: vcjob.RestartJobAction})
				worker(j).Policies = append(worker(j).Policies, vcjob.LifecyclePolicy{Event: vcjob.PodFailedEvent, Action: vcjob.RestartTaskAction})
			},
		},
		{
			name: "Unknown in a task's policies never reaches the task",
			mutate: func(j *vcjob.Job) {
				worker(j).Policies = append(worker(j).Policies, vcjob.LifecyclePolicy{Event: vcjob.JobUnknownEvent, Action: vcjob.RestartJobAction})
			},
			want: []string{at(lint.CodeEventWithoutTask, "spec.tasks[1].policies[2].event")},
		},
		{
			name: "JobUpdated is never raised",
			mutate: func(j *vcjob.Job) {
				j.Spec.Policies = append(j.Spec.Policies, vcjob.LifecyclePolicy{Event: vcjob.JobUpdatedEvent, Action: vcjob.RestartJobAction})
			},
			want: []string{at(lint.CodeEventNeverRaised, "spec.policies[1].event")},
		},
		{
			name: "a misspelt event",
			mutate: func(j *vcjob.Job) {
				worker(j).Policies = append(worker(j).Policies, vcjob.LifecyclePolicy{Events: []vcjob.Event{vcjob.PodEvictedEvent, "PodFail"}, Action: vcjob.RestartPodAction})
			},
			want: []string{
				at(lint.CodeUnknownEvent, "spec.tasks[1].policies[2].events[1]"),
				at(lint.CodeRestartPodOnEvicted, "spec.tasks[1].policies[2].action"),
			},
		},
		{
			name: "a misspelt action",
			mutate: func(j *vcjob.Job) {
				j.Spec.Policies[0].Action = "RestartJobs"
			},
			want: []string{at(lint.CodeUnknownAction, "spec.policies[0].action")},
		},
		{
			name: "a policy with no event and no exit code",
			mutate: func(j *vcjob.Job) {
				j.Spec.Policies = append(j.Spec.Policies, vcjob.LifecyclePolicy{Action: vcjob.AbortJobAction})
			},
			want: []string{at(lint.CodePolicyWithoutTrigger, "spec.policies[1]")},
		},
		{
			name: "RestartPod on Unknown names no pod",
			mutate: func(j *vcjob.Job) {
				j.Spec.Policies = append(j.Spec.Policies, vcjob.LifecyclePolicy{Event: vcjob.JobUnknownEvent, Action: vcjob.RestartPodAction})
			},
			want: []string{
				at(lint.CodeTargetedRestartWithoutTarget, "spec.policies[1].action"),
				at(lint.CodeUnknownOnlyBeforeFirstKill, "spec.policies[1].event"),
			},
		},
		{
			name: "RestartPartition on a task without a partition policy",
			mutate: func(j *vcjob.Job) {
				worker(j).Policies[0].Action = vcjob.RestartPartitionAction
			},
			want: []string{at(lint.CodeRestartPartitionUnpartition, "spec.tasks[1].policies[0].action")},
		},
		{
			name: "RestartPod on PodEvicted",
			mutate: func(j *vcjob.Job) {
				worker(j).Policies = append(worker(j).Policies, vcjob.LifecyclePolicy{Event: vcjob.PodEvictedEvent, Action: vcjob.RestartPodAction})
			},
			want: []string{at(lint.CodeRestartPodOnEvicted, "spec.tasks[1].policies[2].action")},
		},
		{
			name: "ResumeJob as a policy action",
			mutate: func(j *vcjob.Job) {
				j.Spec.Policies[0].Action = vcjob.ResumeJobAction
			},
			want: []string{at(lint.CodeResumeOnEvent, "spec.policies[0].action")},
		},
		{
			name: "a 30s PodPending timeout",
			mutate: func(j *vcjob.Job) {
				worker(j).Policies[1].Timeout = timeout(30 * time.Second)
			},
			want: []string{at(lint.CodeShortPendingTimeout, "spec.tasks[1].policies[1].timeout")},
		},
		{
			name: "a 0s PodPending timeout terminates at once",
			mutate: func(j *vcjob.Job) {
				worker(j).Policies[1].Timeout = timeout(0)
				worker(j).Policies[1].Action = vcjob.TerminateJobAction
			},
			want: []string{at(lint.CodeShortPendingTimeout, "spec.tasks[1].policies[1].timeout")},
		},
		{
			name: "* restarting the job also catches TaskCompleted",
			mutate: func(j *vcjob.Job) {
				j.Spec.Policies[0].Event = vcjob.AnyEvent
			},
			want: []string{at(lint.CodeAnyEventCatchesTaskCompleted, "spec.policies[0].event")},
		},
		{
			name: "* with a timeout arms on every pod creation",
			mutate: func(j *vcjob.Job) {
				j.Spec.Policies[0] = vcjob.LifecyclePolicy{Event: vcjob.AnyEvent, Action: vcjob.CompleteJobAction, Timeout: timeout(15 * time.Minute)}
			},
			want: []string{at(lint.CodeAnyEventTimeoutArmsPending, "spec.policies[0].timeout")},
		},
		{
			name: "Unknown only fires before the first kill",
			mutate: func(j *vcjob.Job) {
				j.Spec.Policies = append(j.Spec.Policies, vcjob.LifecyclePolicy{Event: vcjob.JobUnknownEvent, Action: vcjob.AbortJobAction})
			},
			want: []string{at(lint.CodeUnknownOnlyBeforeFirstKill, "spec.policies[1].event")},
		},
		{
			name: "exit code 0",
			mutate: func(j *vcjob.Job) {
				worker(j).Policies[0].ExitCode = i32(0)
			},
			want: []string{
				at(lint.CodeExitCodeZero, "spec.tasks[1].policies[0].exitCode"),
				// The danger the message names: a PodPending request
				// carries exit code 0, so policy 0 takes it first.
				at(lint.CodePolicyShadowed, "spec.tasks[1].policies[1].event"),
			},
		},
		{
			name: "exit codes a container cannot produce",
			mutate: func(j *vcjob.Job) {
				worker(j).Policies[0].ExitCode = i32(256)
				master(j).Policies = append(master(j).Policies, vcjob.LifecyclePolicy{ExitCode: i32(-1), Action: vcjob.AbortJobAction})
			},
			want: []string{
				at(lint.CodeExitCodeOutOfRange, "spec.tasks[0].policies[1].exitCode"),
				at(lint.CodeExitCodeOutOfRange, "spec.tasks[1].policies[0].exitCode"),
			},
		},
		{
			name: "an exit-code policy on a task that restarts containers in place",
			mutate: func(j *vcjob.Job) {
				worker(j).Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
			},
			want: []string{at(lint.CodeExitCodeRestartsInPlace, "spec.tasks[1].policies[0].exitCode")},
		},
		{
			name: "TaskCompleted on a task whose pods never succeed",
			mutate: func(j *vcjob.Job) {
				master(j).Template.Spec.RestartPolicy = "" // the API server's default: Always
			},
			want: []string{at(lint.CodeTaskCompletedNeverRaised, "spec.tasks[0].policies[0].event")},
		},
		{
			name: "TaskFailed on a task whose containers never restart",
			mutate: func(j *vcjob.Job) {
				worker(j).Policies = append(worker(j).Policies, vcjob.LifecyclePolicy{Event: vcjob.TaskFailedEvent, Action: vcjob.RestartTaskAction})
			},
			want: []string{at(lint.CodeTaskFailedNeverRaised, "spec.tasks[1].policies[2].event")},
		},
		{
			name: "maxRetry unset with restarting policies",
			mutate: func(j *vcjob.Job) {
				j.Spec.MaxRetry = 0
			},
			want: []string{at(lint.CodeMaxRetryZero, "spec.maxRetry")},
		},
		{
			name: "maxRetry 1 with restarting policies",
			mutate: func(j *vcjob.Job) {
				j.Spec.MaxRetry = 1
			},
			want: []string{at(lint.CodeMaxRetryOne, "spec.maxRetry")},
		},
		{
			name: "maxRetry 1 without restarting policies is fine",
			mutate: func(j *vcjob.Job) {
				j.Spec.MaxRetry = 1
				j.Spec.Policies[0].Action = vcjob.AbortJobAction
				worker(j).Policies[0].Action = vcjob.TerminateJobAction
			},
		},
		{
			name: "minSuccess above the replicas",
			mutate: func(j *vcjob.Job) {
				j.Spec.MinSuccess = i32(4)
			},
			want: []string{at(lint.CodeMinSuccessExceedsReplicas, "spec.minSuccess"), at(lint.CodeFinishedNotCounted, "spec.minSuccess")},
		},
		{
			name: "minSuccess with kills that keep Succeeded pods",
			mutate: func(j *vcjob.Job) {
				j.Spec.MinSuccess = i32(2)
			},
			want: []string{at(lint.CodeFinishedNotCounted, "spec.minSuccess")},
		},
		{
			name: "minSuccess under the count-finished-after-kill correction",
			mutate: func(j *vcjob.Job) {
				j.Spec.MinSuccess = i32(2)
				j.Annotations = map[string]string{behavior.Annotation: "count-finished-after-kill"}
			},
		},
		{
			name: "a semantics annotation that does not parse",
			mutate: func(j *vcjob.Job) {
				j.Annotations = map[string]string{behavior.Annotation: "strict"}
			},
			want: []string{at(lint.CodeSemanticsAnnotationInvalid, "metadata.annotations[vcjob.dev/semantics]")},
		},
		{
			name: "policy extensions that do not validate",
			mutate: func(j *vcjob.Job) {
				j.Annotations = map[string]string{policy.ExtensionsAnnotation: "deadline: {after: 0s}\nexitCodes: [{task: nobody, operator: In, values: ['1'], action: RestartPod}]"}
			},
			want: []string{
				at(lint.CodeExtensionsInvalid, "metadata.annotations[vcjob.dev/policy].exitCodes[0].task"),
				at(lint.CodeExtensionsInvalid, "metadata.annotations[vcjob.dev/policy].deadline.after"),
			},
		},
		{
			name: "policy extensions that do not decode",
			mutate: func(j *vcjob.Job) {
				j.Annotations = map[string]string{policy.ExtensionsAnnotation: "deadlines: {}"}
			},
			want: []string{at(lint.CodeExtensionsInvalid, "metadata.annotations[vcjob.dev/policy]")},
		},
		{
			name: "every minAvailable 0",
			mutate: func(j *vcjob.Job) {
				master(j).MinAvailable = i32(0)
				worker(j).MinAvailable = i32(0)
			},
			want: []string{at(lint.CodeMinAvailableZero, "spec.minAvailable")},
		},
		{
			name: "dependsOn a task with 0 replicas",
			mutate: func(j *vcjob.Job) {
				j.Spec.Tasks = append(j.Spec.Tasks, vcjob.TaskSpec{Name: "dataset", Replicas: 0,
					Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "fetch", Image: "busybox"}}}}})
				worker(j).DependsOn = &vcjob.DependsOn{Name: []string{"master", "dataset"}}
			},
			want: []string{
				at(lint.CodeDependsOnEmptyTask, "spec.tasks[1].dependsOn.name[1]"),
				at(lint.CodeTaskWithoutReplicas, "spec.tasks[2].replicas"),
			},
		},
		{
			name: "dependsOn a task with minAvailable 0",
			mutate: func(j *vcjob.Job) {
				master(j).MinAvailable = i32(0)
				worker(j).DependsOn = &vcjob.DependsOn{Name: []string{"master"}}
			},
			want: []string{at(lint.CodeDependsOnAlwaysReady, "spec.tasks[1].dependsOn.name[0]")},
		},
		{
			name: "a task with 0 replicas",
			mutate: func(j *vcjob.Job) {
				worker(j).Replicas = 0
			},
			want: []string{at(lint.CodeTaskWithoutReplicas, "spec.tasks[1].replicas")},
		},
		{
			name:   "a ttl on a job a PodPending timeout aborts",
			mutate: func(j *vcjob.Job) { j.Spec.TTLSecondsAfterFinished = i32(600) },
			want:   []string{at(lint.CodeTTLAbortedNeverDeleted, "spec.ttlSecondsAfterFinished")},
		},
		{
			name: "a ttl of 0 on a job an exit code aborts",
			mutate: func(j *vcjob.Job) {
				j.Spec.TTLSecondsAfterFinished = i32(0)
				worker(j).Policies[1].Action = vcjob.TerminateJobAction
				j.Spec.Policies = append(j.Spec.Policies, vcjob.LifecyclePolicy{ExitCode: i32(3), Action: vcjob.AbortJobAction})
			},
			want: []string{at(lint.CodeTTLAbortedNeverDeleted, "spec.ttlSecondsAfterFinished")},
		},
		{
			name: "a ttl on a job that terminates instead of aborting is fine",
			mutate: func(j *vcjob.Job) {
				j.Spec.TTLSecondsAfterFinished = i32(600)
				worker(j).Policies[1].Action = vcjob.TerminateJobAction
			},
		},
		{
			name: "a ttl and an AbortJob policy that never fires: only the dead policy is reported",
			mutate: func(j *vcjob.Job) {
				j.Spec.TTLSecondsAfterFinished = i32(600)
				worker(j).Policies[1].Timeout = nil
			},
			want: []string{at(lint.CodePendingWithoutTimeout, "spec.tasks[1].policies[1].event")},
		},
	}
}

func TestLint(t *testing.T) {
	for _, tc := range lintCases() {
		t.Run(tc.name, func(t *testing.T) {
			job := ddpJob()
			tc.mutate(job)
			before := job.DeepCopy()
			findings := lint.Lint(job)
			var got []string
			for _, f := range findings {
				got = append(got, at(f.Code, f.Path))
			}
			sort.Strings(got)
			want := append([]string(nil), tc.want...)
			sort.Strings(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("findings:\n  %s\nwant:\n  %s\nin full:\n%s", strings.Join(got, "\n  "), strings.Join(want, "\n  "), findingsText(findings))
			}
			for _, f := range findings {
				checkWellFormed(t, f)
			}
			if !equalJobs(before, job) {
				t.Fatal("Lint changed the job")
			}
		})
	}
}

// TestLintCasesCoverEveryCheck: each code Checks lists has a table case
// that expects it.
func TestLintCasesCoverEveryCheck(t *testing.T) {
	covered := map[string]bool{}
	for _, tc := range lintCases() {
		for _, w := range tc.want {
			covered[strings.SplitN(w, " @ ", 2)[0]] = true
		}
	}
	for _, tc := range cronLintCases() {
		for _, w := range tc.want {
			covered[strings.SplitN(w, " @ ", 2)[0]] = true
		}
	}
	for _, c := range lint.Checks() {
		if !covered[c.Code] {
			t.Errorf("no TestLint case expects %s", c.Code)
		}
	}
}

func TestLintMessages(t *testing.T) {
	job := ddpJob()
	worker(job).Policies[0].Action = vcjob.RestartPartitionAction
	worker(job).Policies[1].Timeout = nil
	findings := lint.Lint(job)
	text := findingsText(findings)
	for _, want := range []string{
		`spec.tasks[1].policies[0].action: error: task "worker" has no partitionPolicy: RestartPartition finds no partition and does nothing at all (no kill, no retry) [restart-partition-unpartitioned]`,
		`spec.tasks[1].policies[1].event: warning: Volcano never fires a PodPending policy without a timeout`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("findings lack %q:\n%s", want, text)
		}
	}
	if !lint.HasErrors(findings) {
		t.Error("HasErrors: false with an error finding")
	}
	if lint.HasErrors(lint.Lint(ddpJob())) {
		t.Error("HasErrors: true for the clean job")
	}
	if lint.Lint(nil) != nil {
		t.Error("Lint(nil) should find nothing")
	}
}

// TestLintJobPolicyShadowedByTaskStar: a task's "*" takes every event of
// that task, so a job policy only one task could reach stays alive while
// the other task exists.
func TestLintJobPolicyShadowedByTaskStar(t *testing.T) {
	job := ddpJob()
	master(job).Policies = []vcjob.LifecyclePolicy{{Event: vcjob.AnyEvent, Action: vcjob.CompleteJobAction}}
	worker(job).Policies = []vcjob.LifecyclePolicy{{Event: vcjob.AnyEvent, Action: vcjob.RestartTaskAction}}
	findings := lint.Lint(job)
	var codes []string
	for _, f := range findings {
		codes = append(codes, at(f.Code, f.Path))
	}
	want := []string{
		at(lint.CodeJobPolicyOverridden, "spec.policies[0].event"),
		at(lint.CodeAnyEventCatchesTaskCompleted, "spec.tasks[1].policies[0].event"),
	}
	sort.Strings(codes)
	sort.Strings(want)
	if fmt.Sprint(codes) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v\n%s", codes, want, findingsText(findings))
	}
}

func findingsText(fs []lint.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// checkWellFormed: a finding's code is one Checks lists, with that check's
// severity; its path is a spec field (or one of vcjob's own annotations);
// its message is one non-empty line.
func checkWellFormed(t interface{ Fatalf(string, ...any) }, f lint.Finding) {
	var check *lint.Check
	for _, c := range lint.Checks() {
		if c.Code == f.Code {
			check = &c
		}
	}
	switch {
	case check == nil:
		t.Fatalf("finding %s: code not in Checks()", f)
	case check.Severity != f.Severity:
		t.Fatalf("finding %s: severity %s, Checks() says %s", f, f.Severity, check.Severity)
	case !strings.HasPrefix(f.Path, "spec.") && !strings.HasPrefix(f.Path, "metadata.annotations[vcjob.dev/"):
		t.Fatalf("finding %s: path is not a spec field", f)
	case f.Message == "" || strings.ContainsAny(f.Message, "\n\r"):
		t.Fatalf("finding %s: message is not one line", f)
	}
}

func equalJobs(a, b *vcjob.Job) bool { return reflect.DeepEqual(a, b) }

type cronLintCase struct {
	name     string
	schedule string
	mutate   func(j *vcjob.JobSpec)
	cronJob  func(cj *vcjob.CronJobSpec)
	want     []string
}

func cronLintCases() []cronLintCase {
	return []cronLintCase{
		{name: "a clean CronJob", schedule: "30 2 * * *"},
		{name: "30 February never comes", schedule: "0 0 30 2 *",
			want: []string{at(lint.CodeCronScheduleNeverFires, "spec.schedule")}},
		{name: "a template Volcano's Job webhook refuses (validation admits the CronJob)", schedule: "@hourly",
			mutate: func(j *vcjob.JobSpec) {
				j.Plugins["horovod"] = nil // not a plugin Volcano knows
			},
			want: []string{at(lint.CodeCronJobTemplateInvalid, "spec.jobTemplate")}},
		{name: "the template's own findings", schedule: "@hourly",
			mutate: func(j *vcjob.JobSpec) { j.Tasks[1].Policies[1].Timeout = nil },
			want:   []string{at(lint.CodePendingWithoutTimeout, "spec.jobTemplate.spec.tasks[1].policies[1].event")}},
		{name: "no timeZone: the controller's zone", schedule: "30 2 * * *",
			cronJob: func(cj *vcjob.CronJobSpec) { cj.TimeZone = nil },
			want:    []string{at(lint.CodeCronTimeZoneUnset, "spec.timeZone")}},
		{name: "Forbid with a template that aborts", schedule: "30 2 * * *",
			cronJob: func(cj *vcjob.CronJobSpec) { cj.ConcurrencyPolicy = vcjob.ForbidConcurrent },
			want:    []string{at(lint.CodeCronForbidAbortedRun, "spec.jobTemplate.spec.tasks[1].policies[1].action")}},
		{name: "Replace with the same template: the next run deletes an Aborted one", schedule: "30 2 * * *",
			cronJob: func(cj *vcjob.CronJobSpec) { cj.ConcurrencyPolicy = vcjob.ReplaceConcurrent }},
	}
}

func TestLintCronJob(t *testing.T) {
	assert.Nil(t, lint.LintCronJob(nil))
	for _, tc := range cronLintCases() {
		t.Run(tc.name, func(t *testing.T) {
			job := ddpJob()
			cj := &vcjob.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "ml"},
				Spec: vcjob.CronJobSpec{Schedule: tc.schedule, TimeZone: new("Europe/Paris"), JobTemplate: vcjob.JobTemplateSpec{Spec: job.Spec}}}
			if tc.mutate != nil {
				tc.mutate(&cj.Spec.JobTemplate.Spec)
			}
			if tc.cronJob != nil {
				tc.cronJob(&cj.Spec)
			}
			vcjob.SetCronJobDefaults(cj)
			require.Empty(t, validation.ValidateCronJob(cj), "Volcano admits every case")
			var got []string
			for _, f := range lint.LintCronJob(cj) {
				checkWellFormed(t, f)
				got = append(got, at(f.Code, f.Path))
			}
			assert.ElementsMatch(t, tc.want, got)
		})
	}
}
