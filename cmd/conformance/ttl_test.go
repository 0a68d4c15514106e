package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

const publicTTLVectors = "testdata/ttl/vectors-ttl-public.jsonl.gz"

// TestTTLPublicVectors replays the garbage collector's recorded decisions;
// every one must pass, in every area.
func TestTTLPublicVectors(t *testing.T) {
	if _, err := os.Stat(publicTTLVectors); err != nil {
		t.Fatalf("no TTL vectors at %s (recorded from Volcano's garbage collector): %v", publicTTLVectors, err)
	}
	var out bytes.Buffer
	tally := newAreaTally("TTL", ttlAreas)
	passed, failed, err := runAnyFile(publicTTLVectors, Options{}, &out, false, map[fileKind]*areaTally{ttlDecisions: tally})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d passed, %d failed", passed, failed)
	if failed > 0 || passed == 0 {
		t.Fatalf("%d passed, %d failed:\n%s", passed, failed, out.String())
	}
	if tally.cases != passed {
		t.Errorf("the tally counted %d cases, %d passed", tally.cases, passed)
	}
	for _, a := range ttlAreas {
		if tally.wrong[a] != 0 {
			t.Errorf("area %s: %d wrong", a, tally.wrong[a])
		}
	}
}

// TestTTLDiffSeesEachField makes sure a difference in any compared field
// is reported, in its area, so a passing run means agreement.
func TestTTLDiffSeesEachField(t *testing.T) {
	ns, secs := int64(1_500_000_000), 1.5
	policy := metav1.DeletePropagationForeground
	uid := types.UID("uid-job")
	base := ttlExpect{
		Finished: true, NeedsCleanup: true, EnqueueOnAdd: true,
		TimeLeftNs: &ns, TimeLeft: &secs,
		ProcessJob: ttlProcess{
			Requeued: []string{"after"},
			Delete: &ttlDelete{Namespace: "ns1", Name: "job-1", Options: metav1.DeleteOptions{
				PropagationPolicy: &policy, Preconditions: &metav1.Preconditions{UID: &uid}}},
			Calls: []string{"get jobs ns1/job-1"},
		},
	}
	otherUID := types.UID("uid-job-recreated")
	background := metav1.DeletePropagationBackground
	yes := true
	mutations := map[string]func(*ttlExpect){
		"finished":            func(e *ttlExpect) { e.Finished = false },
		"needsCleanup":        func(e *ttlExpect) { e.NeedsCleanup = false },
		"enqueueOnAdd":        func(e *ttlExpect) { e.EnqueueOnAdd = false },
		"timeLeft":            func(e *ttlExpect) { n := ns + 1; e.TimeLeftNs = &n },
		"timeLeft/seconds":    func(e *ttlExpect) { s := 2.0; e.TimeLeft = &s },
		"timeLeft/error":      func(e *ttlExpect) { e.TimeLeftError = "job ns1/job-1 should not be cleaned up" },
		"timeLeft/null":       func(e *ttlExpect) { e.TimeLeftNs = nil },
		"expired":             func(e *ttlExpect) { e.Expired = true },
		"expired/error":       func(e *ttlExpect) { e.ExpiredError = "unable to find the time when the Job ns1/job-1 finished" },
		"freshExpired":        func(e *ttlExpect) { e.FreshExpired = &yes },
		"processJob.error":    func(e *ttlExpect) { e.ProcessJob.Error = true },
		"processJob.error/t":  func(e *ttlExpect) { e.ProcessJob.ErrorText = "boom" },
		"processJob.requeued": func(e *ttlExpect) { e.ProcessJob.Requeued = []string{} },
		"processJob.delete":   func(e *ttlExpect) { e.ProcessJob.Delete = nil },
		"processJob.delete/name": func(e *ttlExpect) {
			d := *e.ProcessJob.Delete
			d.Name = "job-2"
			e.ProcessJob.Delete = &d
		},
		"processJob.delete/uid": func(e *ttlExpect) {
			d := *e.ProcessJob.Delete
			d.Options.Preconditions = &metav1.Preconditions{UID: &otherUID}
			e.ProcessJob.Delete = &d
		},
		"processJob.delete/propagation": func(e *ttlExpect) {
			d := *e.ProcessJob.Delete
			d.Options.PropagationPolicy = &background
			e.ProcessJob.Delete = &d
		},
		"processJob.calls": func(e *ttlExpect) {
			e.ProcessJob.Calls = []string{"get jobs ns1/job-1", "delete jobs ns1/job-1"}
		},
	}
	for name, mutate := range mutations {
		got := base
		got.ProcessJob.Calls = append([]string(nil), base.ProcessJob.Calls...)
		mutate(&got)
		area, _, _ := strings.Cut(name, "/")
		first, failed := diffTTL(base, got)
		if first == "" {
			t.Errorf("%s: difference not reported", name)
		}
		if fmt.Sprint(failed) != fmt.Sprint([]string{area}) {
			t.Errorf("%s: failed areas %v, want [%s]", name, failed, area)
		}
	}
	if d, failed := diffTTL(base, base); d != "" || failed != nil {
		t.Errorf("equal expectations differ: %s %v", d, failed)
	}
}

// TestTTLFileStrict: a misspelt or missing key is an error naming the
// line, not a case that quietly tests something else; a failing case is
// one FAIL line naming where it is.
func TestTTLFileStrict(t *testing.T) {
	const good = `{"name":"c1","tags":[],"now":"2025-01-01T00:01:00Z",` +
		`"job":{"metadata":{"name":"j","namespace":"ns","uid":"u"},"spec":{"ttlSecondsAfterFinished":60},"status":{"state":{"phase":"Completed","lastTransitionTime":"2025-01-01T00:00:00Z"}}},` +
		`"fresh":null,"expect":{"finished":true,"needsCleanup":true,"enqueueOnAdd":true,"timeLeft":0,"timeLeftNs":0,` +
		`"expired":true,"freshExpired":null,"processJob":{"error":false,"requeued":[],"delete":null,"calls":["get jobs ns/j"]}}}`
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var out bytes.Buffer
	passed, failed, err := runAnyFile(write("good.jsonl", good), Options{}, &out, true, nil)
	if err != nil || passed != 1 || failed != 0 || out.String() != "ok   c1\n" {
		t.Fatalf("good case: %d passed, %d failed, %v:\n%s", passed, failed, err, out.String())
	}

	wrong := strings.Replace(good, `"calls":["get jobs ns/j"]`, `"calls":[]`, 1)
	out.Reset()
	path := write("wrong.jsonl", wrong)
	passed, failed, err = runAnyFile(path, Options{}, &out, false, nil)
	want := "FAIL c1 (" + path + ":1): processJob.calls: want [], got [\"get jobs ns/j\"]\n"
	if err != nil || passed != 0 || failed != 1 || out.String() != want {
		t.Fatalf("wrong case: %d passed, %d failed, %v:\n%s\nwant %s", passed, failed, err, out.String(), want)
	}

	for name, body := range map[string]string{
		"unknown key":         strings.Replace(good, `"expired":true`, `"expird":true`, 1),
		"unknown nested key":  strings.Replace(good, `"phase":"Completed"`, `"phase":"Completed","phaze":"x"`, 1),
		"missing key":         strings.Replace(good, `"freshExpired":null,`, ``, 1),
		"missing nested key":  strings.Replace(good, `"delete":null,`, ``, 1),
		"null list":           strings.Replace(good, `"requeued":[]`, `"requeued":null`, 1),
		"missing fresh":       strings.Replace(good, `"fresh":null,`, ``, 1),
		"fresh first, no job": `{"fresh":null}`,
	} {
		path := write("bad.jsonl", good+"\n"+body)
		_, _, err := runAnyFile(path, Options{}, io.Discard, false, nil)
		if err == nil || !strings.Contains(err.Error(), path+":2:") {
			t.Errorf("%s: error %v, want one naming %s:2", name, err, path)
		}
	}
}
