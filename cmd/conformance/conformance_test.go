package main

import (
	"bytes"
	"os"
	"testing"

	"github.com/vcjob/vcjob"
)

const publicVectors = "testdata/vectors-public.jsonl.gz"

// TestPublicVectors replays Volcano's recorded steps; every one must pass.
func TestPublicVectors(t *testing.T) {
	if _, err := os.Stat(publicVectors); err != nil {
		t.Fatalf("no vectors at %s: %v", publicVectors, err)
	}
	// Each way through the library, with the plans reading the kept
	// counts and with the plans walking every pod (the oracle).
	for _, mode := range []Mode{Direct, ThroughStep} {
		for _, recount := range []bool{false, true} {
			opts := Options{Mode: mode, Recount: recount}
			var out bytes.Buffer
			passed, failed, err := runFile(publicVectors, opts, &out, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%+v: %d passed, %d failed", opts, passed, failed)
			if failed > 0 || passed == 0 {
				t.Fatalf("%+v: %d passed, %d failed:\n%s", opts, passed, failed, out.String())
			}
		}
	}
}

// TestDiffSeesEachField makes sure a difference in any compared field is
// reported, so a passing run means agreement.
func TestDiffSeesEachField(t *testing.T) {
	base := Expect{Action: "SyncJob", Status: Status{Phase: "Running"}, DeletedPods: []string{}, CreatedPods: []PodMeta{}}
	mutations := map[string]func(*Expect){
		"action":       func(e *Expect) { e.Action = "RestartJob" },
		"delay":        func(e *Expect) { e.DelaySeconds = 5 },
		"error":        func(e *Expect) { e.Error = true },
		"phase":        func(e *Expect) { e.Status.Phase = "Pending" },
		"version":      func(e *Expect) { e.Status.Version = 1 },
		"terminating":  func(e *Expect) { e.Status.Terminating = 1 },
		"retryCount":   func(e *Expect) { e.Status.RetryCount = 1 },
		"minAvailable": func(e *Expect) { e.Status.MinAvailable = 1 },
		"pending":      func(e *Expect) { e.Status.Pending = 1 },
		"running":      func(e *Expect) { e.Status.Running = 1 },
		"succeeded":    func(e *Expect) { e.Status.Succeeded = 1 },
		"failed":       func(e *Expect) { e.Status.Failed = 1 },
		"unknown":      func(e *Expect) { e.Status.Unknown = 1 },
		"annotations": func(e *Expect) {
			e.CreatedPods = []PodMeta{{Name: "p", Annotations: map[string]string{"a": "b"}}}
		},
		"tasks": func(e *Expect) {
			e.Status.TaskStatusCount = map[string]map[string]map[string]int32{"w": {"phase": {"Running": 1}}}
		},
		"conditions": func(e *Expect) { e.Status.Conditions = []vcjob.JobPhase{"Pending"} },
		"deleted":    func(e *Expect) { e.DeletedPods = []string{"p"} },
		"created":    func(e *Expect) { e.CreatedPods = []PodMeta{{Name: "p"}} },
		"labels": func(e *Expect) {
			e.CreatedPods = []PodMeta{{Name: "p", Labels: map[string]string{"a": "b"}}}
		},
		"podGroup": func(e *Expect) { e.PodGroupDeleted = true },
	}
	for name, mutate := range mutations {
		got := base
		mutate(&got)
		want := base
		if name == "labels" || name == "annotations" {
			want.CreatedPods = []PodMeta{{Name: "p"}}
		}
		if Diff(want, got) == "" {
			t.Errorf("%s: difference not reported", name)
		}
	}
	if d := Diff(base, base); d != "" {
		t.Errorf("equal expectations differ: %s", d)
	}
}
