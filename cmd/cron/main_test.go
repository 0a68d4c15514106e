package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	_ "time/tzdata" // the manifest's zone must load on any machine

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func play(t *testing.T, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	require.NoError(t, run(args, &out, &errOut), "stderr: %s", errOut.String())
	return out.String()
}

// Across the spring-forward weekend the nightly 02:30 run starts on the 6th,
// 7th and 9th, never on the 8th, which has no 02:30.
func TestNightlyAcrossSpringForward(t *testing.T) {
	out := play(t, "-cronjob", "nightly.yaml", "-from", "2026-03-06T00:00:00-05:00", "-to", "2026-03-10T00:00:00-04:00")
	assert.Equal(t, []string{
		"2026-03-06 02:30:00.100 EST  sync: start nightly-train-29546370 for 2026-03-06 02:30:00 EST; active 1; next sync at 2026-03-07 02:30:00 EST",
		"2026-03-07 02:30:00.100 EST  sync: start nightly-train-29547810 for 2026-03-07 02:30:00 EST; active 1; next sync at 2026-03-09 02:30:00 EDT",
		"2026-03-09 02:30:00.100 EDT  sync: start nightly-train-29550630 for 2026-03-09 02:30:00 EDT; active 1; next sync at 2026-03-10 02:30:00 EDT",
	}, linesWith(out, "sync: start"))
	assert.Len(t, linesWith(out, "finished: Completed"), 3)
	assert.True(t, strings.HasPrefix(out, `cronjob ml/nightly-train: "30 2 * * *" in America/New_York, Forbid, starting deadline 10m0s`), out)
}

// A job running for 30 hours holds the next run back (Forbid, with
// Volcano's warning); once it finishes the held run is past its 10-minute
// deadline, so no run is due.
func TestNightlyForbidAndDeadline(t *testing.T) {
	out := play(t, "-cronjob", "nightly.yaml", "-from", "2026-03-06T00:00:00-05:00", "-to", "2026-03-08T00:00:00-05:00", "-runs-for", "30h")
	assert.Equal(t, []string{
		"2026-03-07 02:30:00.100 EST  sync: skip the 2026-03-07 02:30:00 EST run: forbid-concurrent; active 1; next sync at 2026-03-09 02:30:00 EDT",
		"2026-03-07 02:30:00.100 EST    Warning ForbidConcurrent: Skipping job creation because another job is already running",
		"2026-03-07 08:30:00.100 EST  nightly-train-29546370 finished: Completed",
		"2026-03-07 08:30:00.100 EST  sync: not-due; active 0; next sync at 2026-03-09 02:30:00 EDT",
	}, linesWithPrefix(out, "2026-03-07"))
}

// Every second job fails; one failed job is kept, so the failure of the 2nd
// (nightly-train-29540610, 2 March) is deleted when the 4th fails.
func TestNightlyHistory(t *testing.T) {
	out := play(t, "-cronjob", "nightly.yaml", "-from", "2026-03-01T00:00:00-05:00", "-to", "2026-03-06T00:00:00-05:00", "-fail-every", "2")
	assert.Len(t, linesWith(out, "finished: Failed"), 2)
	assert.Len(t, linesWith(out, "finished: Completed"), 3)
	assert.Equal(t, []string{
		"2026-03-04 02:35:00.100 EST  sync: not-due; delete nightly-train-29540610; active 0; next sync at 2026-03-05 02:30:00 EST",
	}, linesWith(out, "delete"))
}

func TestFlagErrors(t *testing.T) {
	dir := t.TempDir()
	badManifest := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(badManifest, []byte(`apiVersion: batch.volcano.sh/v1alpha1
kind: CronJob
metadata: {name: bad}
spec:
  schedule: "61 * * * *"
  timeZone: Mars/Olympus_Mons
  jobTemplate: {spec: {tasks: [{name: w, replicas: 1}]}}
`), 0o600))
	unknownField := filepath.Join(dir, "unknown.yaml")
	require.NoError(t, os.WriteFile(unknownField, []byte(`apiVersion: batch.volcano.sh/v1alpha1
kind: CronJob
metadata: {name: bad}
spec: {schedule: "@hourly", concurrency: Forbid, jobTemplate: {}}
`), 0o600))

	window := []string{"-from", "2026-03-06T00:00:00Z", "-to", "2026-03-07T00:00:00Z"}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"no manifest", window, []string{"-cronjob: required"}},
		{"missing manifest", append([]string{"-cronjob", filepath.Join(dir, "nope.yaml")}, window...), []string{"-cronjob: open", "no such file"}},
		{"no -from", []string{"-cronjob", "nightly.yaml", "-to", "2026-03-07T00:00:00Z"}, []string{"-from: required"}},
		{"bad -to", []string{"-cronjob", "nightly.yaml", "-from", "2026-03-06T00:00:00Z", "-to", "tomorrow"}, []string{`-to: "tomorrow" is not an RFC 3339 time`}},
		{"-to before -from", []string{"-cronjob", "nightly.yaml", "-from", "2026-03-06T00:00:00Z", "-to", "2026-03-05T00:00:00Z"}, []string{"-to: 2026-03-05T00:00:00Z is not after -from"}},
		{"-runs-for 0", append([]string{"-cronjob", "nightly.yaml", "-runs-for", "0s"}, window...), []string{"-runs-for: 0s: must be positive"}},
		{"negative -fail-every", append([]string{"-cronjob", "nightly.yaml", "-fail-every", "-2"}, window...), []string{"-fail-every: -2"}},
		{"stray argument", append(append([]string{"-cronjob", "nightly.yaml"}, window...), "extra"), []string{`unexpected argument "extra"`}},
		{"invalid manifest: every field at fault", append([]string{"-cronjob", badManifest}, window...),
			[]string{"bad.yaml: invalid CronJob", `spec.timeZone: Invalid value: "Mars/Olympus_Mons"`, `spec.schedule: Invalid value: "61 * * * *"`}},
		{"unknown manifest field", append([]string{"-cronjob", unknownField}, window...), []string{"unknown.yaml", `spec.concurrency: unknown field`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(tc.args, &out, &errOut)
			require.Error(t, err)
			for _, want := range tc.want {
				assert.ErrorContains(t, err, want)
			}
			assert.Empty(t, out.String())
		})
	}
}

func linesWith(out, substr string) []string {
	var lines []string
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, substr) {
			lines = append(lines, line)
		}
	}
	return lines
}

func linesWithPrefix(out, prefix string) []string {
	var lines []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, prefix) {
			lines = append(lines, line)
		}
	}
	return lines
}

// -o html draws the window: a started run per job with its outcome, the
// runs Forbid held back as skipped, and nothing fetched from the network.
func TestHTMLWindow(t *testing.T) {
	page := play(t, "-cronjob", "nightly.yaml", "-from", "2026-03-06T00:00:00-05:00", "-to", "2026-03-11T06:00:00-04:00",
		"-runs-for", "30h", "-fail-every", "2", "-o", "html")
	require.True(t, strings.HasPrefix(page, "<!DOCTYPE html>"), page)
	assert.Equal(t, 1, strings.Count(page, `class="run completed"`))
	assert.Equal(t, 1, strings.Count(page, `class="run failed"`))
	assert.Equal(t, 1, strings.Count(page, `class="run running"`))
	assert.Equal(t, 2, strings.Count(page, `class="run skipped"`))
	assert.Contains(t, page, "skipped: forbid-concurrent")
	assert.Contains(t, page, "nightly-train-29550630 failed")
	assert.NotContains(t, page, "http")
}

// Under Replace a running job is deleted when the next run starts: the
// page shows it replaced.
func TestHTMLReplaced(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("nightly.yaml")
	require.NoError(t, err)
	manifest := filepath.Join(dir, "replace.yaml")
	require.NoError(t, os.WriteFile(manifest, []byte(strings.Replace(string(data), "concurrencyPolicy: Forbid", "concurrencyPolicy: Replace", 1)), 0o600))
	page := play(t, "-cronjob", manifest, "-from", "2026-03-06T00:00:00-05:00", "-to", "2026-03-08T00:00:00-05:00", "-runs-for", "30h", "-o", "html")
	assert.Equal(t, 1, strings.Count(page, `class="run replaced"`), page)
}
