package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

const publicSteps = "testdata/steps/steps-v2-public.jsonl.gz"

// TestPublicSteps replays Volcano's recorded multi-step scenarios through
// the worker step, the job cache and the delay queue; every case must
// pass in every area, with the plans reading the kept counts and walking
// every pod.
func TestPublicSteps(t *testing.T) {
	if kind, err := sniffKind(publicSteps); err != nil || kind != multiSteps {
		t.Fatalf("%s is read as %q (%v), want %q", publicSteps, kind, err, multiSteps)
	}
	for _, recount := range []bool{false, true} {
		opts := Options{Recount: recount}
		var out bytes.Buffer
		tally := newAreaTally("multi-step scenario", stepsAreas)
		passed, failed, err := runAnyFile(publicSteps, opts, &out, false, map[fileKind]*areaTally{multiSteps: tally})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%+v: %d passed, %d failed", opts, passed, failed)
		if failed > 0 || passed == 0 {
			t.Fatalf("%+v: %d passed, %d failed:\n%s", opts, passed, failed, out.String())
		}
		if tally.cases != passed {
			t.Errorf("the tally counted %d cases, %d passed", tally.cases, passed)
		}
		for _, a := range stepsAreas {
			if tally.wrong[a] != 0 {
				t.Errorf("area %s: %d wrong", a, tally.wrong[a])
			}
		}
	}
}

// stepsCases reads the public scenarios.
func stepsCases(t *testing.T) []*stepsCase {
	t.Helper()
	f, err := openVectors(publicSteps)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []*stepsCase
	for sc.Scan() {
		c, err := decodeStepsCase(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestStepRequestsDifferOnlyWhereTheRecordingDoes: the requests vcjob's
// cache derives for the recorded pod changes differ from the recorded
// ones only where Volcano's own handler would not have queued those
// either: an eviction that leaves the pod in the cache (Volcano queues
// PodEvicted only for a pod deleted), and a change that leaves the pod's
// phase as it was (Volcano queues PodRunning, PodPending and PodFailed
// only on entering the phase). Anywhere else vcjob's cache must derive
// the recorded request.
func TestStepRequestsDifferOnlyWhereTheRecordingDoes(t *testing.T) {
	samePhase := map[string]corev1.PodPhase{opRun: corev1.PodRunning, opPending: corev1.PodPending, opFail: corev1.PodFailed}
	steps := 0
	for _, c := range stepsCases(t) {
		_, notes, err := replaySteps(c, Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		for _, s := range c.Script {
			if s.Op != opAdvance {
				steps++
			}
		}
		for _, n := range notes {
			if n.Op == opEvict || samePhase[n.Op] == n.From {
				continue
			}
			t.Errorf("%s step %d: %s", c.Name, n.Step, n.kind())
		}
	}
	if steps == 0 {
		t.Fatal("no pod step in the scenarios")
	}
}

// TestDiffStepSeesEachField makes sure a difference in any compared field
// of a step is reported in its area, so a passing run means agreement.
func TestDiffStepSeesEachField(t *testing.T) {
	base := stepExpect{Action: "RestartJob", DelaySeconds: 17, Registered: true,
		Cancelled: []string{"p:AbortJob@3"}, Fired: []firedAction{{Pod: "p", Action: "RestartPod", Event: "PodFailed", At: 5, PhaseAfter: "Restarting"}},
		Phase: "Running", Version: 1, RetryCount: 1, DeletedPods: []string{"p"}, CreatedPods: []string{"q"},
		PendingDelays: []string{"p:RestartJob@17"}}
	mutations := map[string]func(*stepExpect){
		"action":          func(e *stepExpect) { e.Action = "AbortJob" },
		"delaySeconds":    func(e *stepExpect) { e.DelaySeconds = 18 },
		"registered":      func(e *stepExpect) { e.Registered = false },
		"error":           func(e *stepExpect) { e.Error = true },
		"cancelled":       func(e *stepExpect) { e.Cancelled = nil },
		"fired":           func(e *stepExpect) { e.Fired[0].PhaseAfter = "Aborting" },
		"phase":           func(e *stepExpect) { e.Phase = "Pending" },
		"version":         func(e *stepExpect) { e.Version = 2 },
		"retryCount":      func(e *stepExpect) { e.RetryCount = 0 },
		"deletedPods":     func(e *stepExpect) { e.DeletedPods = append(e.DeletedPods, "r") },
		"createdPods":     func(e *stepExpect) { e.CreatedPods = []string{} },
		"podGroupDeleted": func(e *stepExpect) { e.PodGroupDeleted = true },
		"pendingDelays":   func(e *stepExpect) { e.PendingDelays = []string{"p:RestartJob@18"} },
	}
	for _, area := range stepsAreas {
		if mutations[area] == nil {
			t.Errorf("area %s has no mutation here", area)
		}
	}
	for area, mutate := range mutations {
		got := base
		got.Fired = slices.Clone(base.Fired)
		mutate(&got)
		first, failed := diffStep(base, got)
		if first == "" || !slices.Equal(failed, []string{area}) {
			t.Errorf("%s: reported %q in %v", area, first, failed)
		}
	}
	if first, failed := diffStep(base, base); first != "" || failed != nil {
		t.Errorf("equal steps differ: %s %v", first, failed)
	}
	// Lists compared as sets are compared in any order.
	got := base
	got.DeletedPods = []string{"p"}
	got.Cancelled = []string{"p:AbortJob@3"}
	if first, _ := diffStep(base, got); first != "" {
		t.Errorf("same lists differ: %s", first)
	}
}

// TestStepPanicCountsAsError: a step where Volcano panicked is expected to
// be an error; vcjob matches it only by returning one.
func TestStepPanicCountsAsError(t *testing.T) {
	msg := "runtime error: invalid memory address or nil pointer dereference"
	want := stepExpect{Phase: "Restarting", Panic: &msg}
	first, failed := diffStep(want, stepExpect{Phase: "Restarting"})
	if !slices.Equal(failed, []string{"error"}) || !strings.Contains(first, msg) {
		t.Errorf("a step without error where Volcano panicked: %q %v", first, failed)
	}
	if first, _ := diffStep(want, stepExpect{Phase: "Restarting", Error: true}); first != "" {
		t.Errorf("a step with an error where Volcano panicked: %s", first)
	}
}

// TestStepsExpectAlternatives: a case matches expect or any alternative,
// whole; a failure names expect's first difference.
func TestStepsExpectAlternatives(t *testing.T) {
	c := stepsCases(t)[0]
	got, _, err := replaySteps(c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := diffStepsCase(c, got); d != "" {
		t.Fatalf("%s does not pass: %s", c.Name, d)
	}
	right := c.Expect
	wrong := func() []stepExpect {
		w := slices.Clone(right)
		w[len(w)-1].Version += 10
		return w
	}
	c.Expect = wrong()
	d, failed := diffStepsCase(c, got)
	if !strings.Contains(d, "version") || !slices.Equal(failed, []string{"version"}) {
		t.Fatalf("a wrong expect: %q %v", d, failed)
	}
	c.ExpectAlternatives = [][]stepExpect{wrong()}
	if d2, _ := diffStepsCase(c, got); d2 != d {
		t.Errorf("a wrong alternative: %q, want expect's %q", d2, d)
	}
	c.ExpectAlternatives = append(c.ExpectAlternatives, right)
	if d, failed := diffStepsCase(c, got); d != "" || failed != nil {
		t.Errorf("the right alternative: %q %v", d, failed)
	}
}

// TestStepsCaseIsDecodedStrictly: unknown keys, missing keys, unknown
// operations and expectation lists of the wrong length are errors.
func TestStepsCaseIsDecodedStrictly(t *testing.T) {
	line := func(mutate func(m map[string]any)) []byte {
		m := map[string]any{
			"name": "x", "job": map[string]any{"metadata": map[string]any{"name": "ms", "namespace": "ns1"}},
			"pods": []any{}, "podGroupPhase": "Running",
			"script": []any{map[string]any{"op": "advance", "seconds": 5, "at": 0}},
			"expect": []any{map[string]any{"cancelled": []any{}, "fired": []any{}, "phase": "Running", "version": 0,
				"retryCount": 0, "deletedPods": []any{}, "createdPods": []any{}, "pendingDelays": []any{}}},
		}
		if mutate != nil {
			mutate(m)
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if _, err := decodeStepsCase(line(nil)); err != nil {
		t.Fatalf("a well-formed case: %v", err)
	}
	step := func(m map[string]any) map[string]any { return m["script"].([]any)[0].(map[string]any) }
	expect := func(m map[string]any) map[string]any { return m["expect"].([]any)[0].(map[string]any) }
	for name, tc := range map[string]struct {
		mutate func(m map[string]any)
		says   string
	}{
		"unknown case key":   {func(m map[string]any) { m["webhook"] = map[string]any{"allowed": false} }, "webhook"},
		"unknown expect key": {func(m map[string]any) { expect(m)["deleted"] = []any{} }, "deleted"},
		"missing case key":   {func(m map[string]any) { delete(m, "podGroupPhase") }, "podGroupPhase"},
		"missing expect key": {func(m map[string]any) { delete(expect(m), "pendingDelays") }, "pendingDelays"},
		"missing step key":   {func(m map[string]any) { delete(step(m), "at") }, "at"},
		"pod step, no pod":   {func(m map[string]any) { step(m)["op"] = "run" }, "pod"},
		"fail, no exit code": {func(m map[string]any) {
			step(m)["op"] = "fail"
			step(m)["pod"] = "p"
			step(m)["request"] = map[string]any{}
		}, "exitCode"},
		"unknown op":          {func(m map[string]any) { step(m)["op"] = "delete" }, "delete"},
		"one expect too many": {func(m map[string]any) { m["expect"] = append(m["expect"].([]any), expect(m)) }, "2 entries"},
		"short alternative":   {func(m map[string]any) { m["expectAlternatives"] = []any{[]any{}} }, "expectAlternatives[0]"},
		"null job":            {func(m map[string]any) { m["job"] = nil }, "job"},
	} {
		_, err := decodeStepsCase(line(tc.mutate))
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want an error naming %q", name, err, tc.says)
		}
	}
}

// TestJobFileWebhookAndAlternatives: a job case a release's webhook
// refuses is parsed, counted and replayed; a case matches expect or any
// alternative.
func TestJobFileWebhookAndAlternatives(t *testing.T) {
	f, err := openVectors(publicVectors)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	if !sc.Scan() {
		t.Fatal("no case")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	f.Close()
	right := m["expect"]
	var e map[string]any
	if err := json.Unmarshal(right, &e); err != nil {
		t.Fatal(err)
	}
	e["action"] = "no-such-action"
	wrong, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	write := func(alternatives ...json.RawMessage) string {
		c := map[string]json.RawMessage{}
		for k, v := range m {
			c[k] = v
		}
		c["expect"] = wrong
		c["webhook"] = json.RawMessage(`{"allowed":false,"message":"refused"}`)
		if alternatives != nil {
			b, _ := json.Marshal(alternatives)
			c["expectAlternatives"] = b
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "case.jsonl")
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tc := range []struct {
		name         string
		alternatives []json.RawMessage
		passed       int
	}{
		{"no alternative", nil, 0},
		{"a wrong alternative", []json.RawMessage{wrong}, 0},
		{"the right alternative", []json.RawMessage{wrong, right}, 1},
	} {
		var out bytes.Buffer
		passed, failed, err := runAnyFile(write(tc.alternatives...), Options{}, &out, false, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if passed != tc.passed || passed+failed != 1 {
			t.Errorf("%s: %d passed, %d failed, want %d passed:\n%s", tc.name, passed, failed, tc.passed, out.String())
		}
		if !strings.Contains(out.String(), "webhook refusals recorded: 1") {
			t.Errorf("%s: the refusal is not counted:\n%s", tc.name, out.String())
		}
	}
}
