package scenario

import (
	"bytes"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestExtraCommandErrors(t *testing.T) {
	for script, want := range map[string]string{
		"update\n":                    `line 1: "update": update takes 1 to 1024 arguments, got 0; usage:` + "\n  update FIELD=N...",
		"update minAvailable=x\n":     `line 1: "update minAvailable=x": update: want FIELD=N, got "minAvailable=x"`,
		"update worker.image=2\n":     `line 1: "update worker.image=2": update: unknown field "worker.image"`,
		"release\n":                   `line 1: "release": release takes 1 to 1024 arguments, got 0`,
		"create now\n":                `line 1: "create now": create takes no argument, got 1`,
		"unschedulable\nfrobnicate\n": `line 2: "frobnicate": unknown command "frobnicate"`,
	} {
		_, err := Parse(strings.NewReader(script))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: error %v, want it to start with %s", script, err, want)
		}
	}
}

func TestExtraCommandsRunErrors(t *testing.T) {
	for script, want := range map[string]string{
		"create\n":            `line 1: "create": the job exists: "delete" it first`,
		"delete\nstart all\n": `line 2: "start all": the job is gone: line 1 deleted it ("create" creates it again)`,
		"delete worker-9\n":   `line 1: "delete worker-9": no pod worker-9 to hold`,
		"podgroup Inqueue\nupdate worker.replicas=-1\n": `line 2: "update worker.replicas=-1": the API server would refuse the update`,
	} {
		script, err := Parse(strings.NewReader(script))
		if err != nil {
			t.Fatal(err)
		}
		err = run([]byte(firstContact), script, NewText(&bytes.Buffer{}))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %s", err, want)
		}
	}
}

// After a delete the job can be created again; the pod the delete held
// stays, being deleted, until released.
func TestDeleteHoldReleaseCreate(t *testing.T) {
	script, err := Parse(strings.NewReader("podgroup Inqueue\nstart all\ndelete worker-0\ncreate\nrelease worker-0\n"))
	if err != nil {
		t.Fatal(err)
	}
	job, err := Load([]byte(firstContact), "")
	if err != nil {
		t.Fatal(err)
	}
	tr, _, err := Trace(job, script, NewText(&bytes.Buffer{}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	held := tr.Snapshots[3]
	if held.Job != nil || len(held.Pods) != 1 || held.Pods[0].DeletionTimestamp == nil {
		t.Fatalf("after the delete: job %v, pods %d", held.Job, len(held.Pods))
	}
	again := tr.Snapshots[4]
	if again.Job == nil || again.Job.UID == "uid-fc" {
		t.Fatalf("after create: %v", again.Job)
	}
	if pods := tr.Snapshots[5].Pods; len(pods) != 0 {
		t.Fatalf("after release: %d pods, want none (the PodGroup is not admitted yet)", len(pods))
	}
}

func TestNodeFor(t *testing.T) {
	pod := func(a *corev1.Affinity) *corev1.Pod { return &corev1.Pod{Spec: corev1.PodSpec{Affinity: a}} }
	req := func(term corev1.NodeSelectorTerm) *corev1.Affinity {
		return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{term}}}}
	}
	for want, p := range map[string]*corev1.Pod{
		"node-0": pod(nil),
		"node-3": pod(req(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-3"}}}})),
		"node-4": pod(req(corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{"node-4"}}}})),
	} {
		if got := NodeFor(p); got != want {
			t.Errorf("NodeFor = %s, want %s", got, want)
		}
	}
}
