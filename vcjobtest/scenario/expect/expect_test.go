package expect

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

func job(phase vcjob.JobPhase, st vcjob.JobStatus) *vcjob.Job {
	st.State.Phase = phase
	return &vcjob.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", UID: "u"},
		Spec: vcjob.JobSpec{MinAvailable: 2, Tasks: []vcjob.TaskSpec{{Name: "t", Replicas: 2}}}, Status: st}
}

func trace() *Trace {
	return &Trace{Job: "j", Last: 2, Writes: []Write{
		{Line: 0, Job: job("", vcjob.JobStatus{})},
		{Line: 0, Job: job(vcjob.Pending, vcjob.JobStatus{})},
		{Line: 1, Job: job(vcjob.Running, vcjob.JobStatus{Running: 1})}, // not counted: running < minAvailable
		{Line: 1, Job: job(vcjob.Running, vcjob.JobStatus{Running: 2})},
		{Line: 2, Job: job(vcjob.Restarting, vcjob.JobStatus{Terminating: 2, RetryCount: 1})},
	}, Snapshots: map[int]*Snapshot{
		0: {Job: job(vcjob.Pending, vcjob.JobStatus{})},
		1: {Job: job(vcjob.Running, vcjob.JobStatus{Running: 2}), Pods: []*corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "j-t-0", UID: "p0"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}}},
		2: {Job: job(vcjob.Restarting, vcjob.JobStatus{Terminating: 2, RetryCount: 1})},
	}}
}

// WaitJobPhases as a check: a subsequence of the writes, each phase with
// its count check, from the write before the line it opens at.
func TestPhases(t *testing.T) {
	for text, ok := range map[string]bool{
		"phases Pending Running Restarting":                          true,
		"phases Running Pending":                                     false,
		"phases from 2 Running Restarting":                           true, // the write before line 2 is the watch's initial state
		"phases from 2 Pending":                                      false,
		"after 1: phases Restarting":                                 false,
		"states Pending Running Restarting":                          true,
		"after 1: states Running":                                    true,
		"status retryCount 1":                                        true,
		"after 1: pod t-0 Running":                                   true,
		"after 1: pod t-0 gone":                                      false,
		"pod t-0 gone":                                               true,
		"consistently from 1 same-uid retryCount=0":                  false,
		"after 1: consistently from 1 same-uid retryCount=0 !Failed": true,
	} {
		exps, err := Parse(text)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		err = exps[0].Check(trace())
		if (err == nil) != ok {
			t.Errorf("%q: %v, want ok %v", text, err, ok)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for text, want := range map[string]string{
		"phases Pending Failed": "WaitJobPhases takes no Failed",
		"frob":                  `unknown check "frob"`,
		"after x: gone":         "after LINE: CHECK",
		"recreated worker-0":    "recreated from LINE",
		"pod a":                 "wrong number of arguments",
	} {
		_, err := Parse(text)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}
