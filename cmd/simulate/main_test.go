package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCommandLine(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	two := "../../vcjobtest/scenario/testdata/two-jobs.yaml" // jobs a and b
	jobs, err := os.ReadFile(two)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(jobs), "---\n")
	one := write("one.yaml", first)
	broken := write("broken.yaml", "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: x}\nspec: {taskz: []}\n")
	good := write("good.scenario", "podgroup Inqueue\nstart all\n")
	bad := write("bad.scenario", "advance 10 minutes\n")
	for _, tc := range []struct {
		args   []string
		status int
		want   string // in stdout or stderr
	}{
		{[]string{"-job", one, "-o", "yaml", good}, 2, "-o yaml: unknown output (text, json or html)"},
		{[]string{"-job", one}, 2, "one scenario file is needed"},
		{[]string{good}, 2, "-job JOB.yaml is needed"},
		{[]string{"-job", one, bad}, 1, `advance takes one argument, got 2; usage:`},
		{[]string{"-job", broken, bad}, 1, `dropped fields the Job CRD lacks, as an API server does: spec.taskz`}, // the job first
		{[]string{"-job", two, good}, 1, "holds 2 jobs (a, b): name the one to simulate (simulate -name)"},
		{[]string{"-job", two, "-name", "b", good}, 0, "> start all"},
		{[]string{"-job", one, "-o", "html", good}, 0, "<!DOCTYPE html>"},
		{[]string{"-job", one, "-o", "json", good}, 0, `"podGroup":"Inqueue"`},
	} {
		var out, errOut bytes.Buffer
		status := run(tc.args, &out, &errOut)
		if status != tc.status || !strings.Contains(out.String()+errOut.String(), tc.want) {
			t.Errorf("%v: exit %d (want %d), output lacks %q:\n%s%s", tc.args, status, tc.status, tc.want, errOut.String(), out.String())
		}
	}
}

// TestHelpExitsZero: -help is a request, not a mistake.
func TestHelpExitsZero(t *testing.T) {
	var out, errOut bytes.Buffer
	if status := run([]string{"-help"}, &out, &errOut); status != 0 {
		t.Fatalf("exit status %d, want 0", status)
	}
	if !strings.Contains(errOut.String(), "usage: simulate") {
		t.Errorf("-help prints no usage:\n%s", errOut.String())
	}
}

// The scenario shipped beside the command runs on the quickstart's job,
// as the README shows, and -compare sets it against the corrected
// semantics when -semantics names none.
func TestShippedScenario(t *testing.T) {
	const job = "../../examples/quickstart/pytorch-job.yaml"
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"-job", job, "oom-then-evict.scenario"}, []string{"> fail worker-1 137", "> advance 10m", "\n= phase Aborted,"}},
		{[]string{"-job", job, "-compare", "oom-then-evict.scenario"}, []string{"\n== volcano\n", "\n== corrected\n"}},
	} {
		var out, errOut bytes.Buffer
		if status := run(tc.args, &out, &errOut); status != 0 {
			t.Fatalf("%v: exit %d:\n%s", tc.args, status, errOut.String())
		}
		for _, want := range tc.want {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%v: no %q in:\n%s", tc.args, want, out.String())
			}
		}
	}
}
