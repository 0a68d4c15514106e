package request_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/request"
)

func TestTargetTakes(t *testing.T) {
	pod := func(name, task, partition string) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name,
			Annotations: map[string]string{vcjob.TaskSpecKey: task}, Labels: map[string]string{}}}
		if partition != "-" {
			p.Labels[vcjob.PartitionIDKey] = partition
		}
		return p
	}
	task := request.Target{Level: vcjob.TaskLevel, TaskName: "w"}
	one := request.Target{Level: vcjob.PodLevel, TaskName: "w", PodName: "j-w-1"}
	part := request.Target{Level: vcjob.PartitionLevel, TaskName: "w", PodName: "j-w-1", PartitionID: "0"}
	for _, tt := range []struct {
		name   string
		target request.Target
		pod    *corev1.Pod
		want   bool
	}{
		{"task: a pod of the task", task, pod("j-w-3", "w", "-"), true},
		{"task: a pod filed under another task", task, pod("j-w-3", "ps", "-"), false},
		{"pod: that pod", one, pod("j-w-1", "w", "-"), true},
		{"pod: another pod of the task", one, pod("j-w-2", "w", "-"), false},
		{"pod: the name under another task", one, pod("j-w-1", "ps", "-"), false},
		{"partition: a member by label, whatever its index", part, pod("j-w-7", "w", "0"), true},
		{"partition: another partition", part, pod("j-w-1", "w", "1"), false},
		{"partition: no label", part, pod("j-w-1", "w", "-"), false},
		{"partition: an empty id takes nothing", request.Target{Level: vcjob.PartitionLevel, TaskName: "w"}, pod("j-w-1", "w", ""), false},
		{"job: a targeted kill of the job takes nothing", request.Target{Level: vcjob.JobLevel}, pod("j-w-1", "", "-"), false},
	} {
		if got := tt.target.Takes(tt.pod); got != tt.want {
			t.Errorf("%s: Takes = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestTargetJSONNamesTheLevel(t *testing.T) {
	cases := []struct {
		target request.Target
		json   string
	}{
		{request.Target{}, `{"level":"job"}`},
		{request.Target{Level: vcjob.TaskLevel, TaskName: "worker"}, `{"level":"task","taskName":"worker"}`},
		{request.Target{Level: vcjob.PartitionLevel, TaskName: "worker", PartitionID: "1"}, `{"level":"partition","taskName":"worker","partitionID":"1"}`},
		{request.Target{Level: vcjob.PodLevel, TaskName: "worker", PodName: "j-worker-0"}, `{"level":"pod","taskName":"worker","podName":"j-worker-0"}`},
	}
	for _, tc := range cases {
		data, err := json.Marshal(tc.target)
		require.NoError(t, err)
		assert.JSONEq(t, tc.json, string(data))
		var back request.Target
		require.NoError(t, json.Unmarshal(data, &back))
		assert.Equal(t, tc.target, back)
	}
	_, err := json.Marshal(request.Target{Level: vcjob.Level(9)})
	assert.Error(t, err, "an unknown level is not written as a name it does not have")
	var bad request.Target
	assert.Error(t, json.Unmarshal([]byte(`{"level":"cluster"}`), &bad))
	assert.Error(t, json.Unmarshal([]byte(`{"level":0}`), &bad))
}

func TestTargetString(t *testing.T) {
	for _, tc := range []struct {
		t    request.Target
		want string
	}{
		{request.Target{}, "job"},
		{request.Target{Level: vcjob.JobLevel}, "job"},
		{request.Target{Level: vcjob.TaskLevel, TaskName: "worker"}, "task worker"},
		{request.Target{Level: vcjob.PodLevel, TaskName: "worker", PodName: "j-worker-1"}, "pod j-worker-1 of task worker"},
		{request.Target{Level: vcjob.PartitionLevel, TaskName: "worker", PodName: "j-worker-5", PartitionID: "2"}, `partition "2" of task worker (from pod j-worker-5)`},
		{request.Target{Level: vcjob.PartitionLevel, TaskName: "worker"}, `partition "" of task worker`},
	} {
		assert.Equal(t, tc.want, tc.t.String())
	}
}
