package timeline_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vcjob/vcjob/cmd/internal/timeline"
	"github.com/vcjob/vcjob/internal/testfiles"
	"github.com/vcjob/vcjob/vcjobtest/scenario"
)

func record(t testing.TB, manifest []byte, script string) *timeline.Recorder {
	t.Helper()
	job, err := scenario.Load(manifest, "")
	require.NoError(t, err)
	cmds, err := scenario.Parse(strings.NewReader(script))
	require.NoError(t, err)
	tl := timeline.New(job.Name, scenario.Start)
	require.NoError(t, scenario.Run(job, cmds, tl))
	return tl
}

func quickstart(t testing.TB) []byte {
	m, err := os.ReadFile("../../../examples/quickstart/pytorch-job.yaml")
	require.NoError(t, err)
	return m
}

// segs reads a lane's segments as "from-to:phase" (+ for a new pod).
func segs(d timeline.Data, pod string) []string {
	for _, l := range d.Lanes {
		if l.Name != pod {
			continue
		}
		var out []string
		for i := 0; i < len(l.Segs); i += 4 {
			s := fmt.Sprintf("%s", d.Phases[l.Segs[i+2]])
			if l.Segs[i+3] == 1 {
				s = "+" + s
			}
			out = append(out, s)
		}
		return out
	}
	return nil
}

func TestRecorderLanesPhasesAndMarkers(t *testing.T) {
	tl := record(t, quickstart(t), "podgroup Inqueue\nstart all\nfail worker-1 137\nfinish\nstart worker-1\n")
	d := tl.Data()
	require.Len(t, d.Lanes, 4, "one lane per pod name")
	// worker-1: created Pending, Running, Failed, deleted (Terminating),
	// then a new pod that starts Pending and runs.
	assert.Equal(t, []string{"+Pending", "Running", "Failed", "Terminating", "+Pending", "Running"}, segs(d, "mnist-ddp-worker-1"))
	assert.Equal(t, []string{"+Pending", "Running"}, segs(d, "mnist-ddp-worker-0"))

	var phases []string
	for _, c := range d.JobPhase {
		phases = append(phases, c.Phase)
	}
	assert.Equal(t, []string{"Pending", "Running", "Restarting", "Pending", "Running"}, phases)
	require.NotEmpty(t, d.PodGroup)
	assert.Equal(t, "Inqueue", d.PodGroup[len(d.PodGroup)-1].Phase)

	var restart *timeline.Marker
	for i, m := range d.Markers {
		if strings.Contains(m.Title, "PodFailed mnist-ddp-worker-1 exit=137") {
			restart = &d.Markers[i]
		}
	}
	require.NotNil(t, restart, "the OOM kill has a marker")
	assert.Equal(t, timeline.KindDecision, restart.Kind)
	assert.Equal(t, 2, restart.Lane, "in worker-1's lane")
	for _, want := range []string{`rule: task "worker" policy 0 (exit code)`, "action: RestartPod", "target: pod mnist-ddp-worker-1", "status written: phase Restarting"} {
		assert.Contains(t, restart.Detail, want)
	}
	assert.Len(t, d.Commands, 6, "the job's creation and five lines")
	assert.Equal(t, d.Steps, len(d.StepTime))
	assert.NotEmpty(t, d.Summary)
}

func TestRecorderDelayedActions(t *testing.T) {
	tl := record(t, quickstart(t), "podgroup Inqueue\nadvance 10m\n")
	kinds := map[string]int{}
	for _, m := range tl.Data().Markers {
		kinds[m.Kind]++
	}
	assert.Positive(t, kinds[timeline.KindRegistered], "PodPending registers AbortJob in 10m")
	assert.Positive(t, kinds[timeline.KindFired], "and it fires")

	tl = record(t, quickstart(t), "podgroup Inqueue\nstart all\n")
	kinds = map[string]int{}
	for _, m := range tl.Data().Markers {
		kinds[m.Kind]++
	}
	assert.Positive(t, kinds[timeline.KindCancelled], "running pods cancel their pending timeouts")
}

// TestRecorderEvents: a marker's details list its step's Kubernetes
// Events, a command's label the command handler's, and a failed step
// says when it is requeued.
func TestRecorderEvents(t *testing.T) {
	tl := record(t, quickstart(t), "podgroup Inqueue\nstart all\nfail worker-1 137\ncommand AbortJob\n")
	d := tl.Data()
	found := false
	for _, m := range d.Markers {
		if strings.Contains(m.Title, "PodFailed mnist-ddp-worker-1 exit=137") {
			assert.Contains(t, m.Detail, "event: Normal ExecuteAction Start to execute action RestartPod ")
			found = true
		}
	}
	assert.True(t, found, "the OOM kill has a marker")
	last := d.Commands[len(d.Commands)-1]
	assert.Equal(t, "command AbortJob", last.Text)
	assert.Equal(t, []string{"event: Normal CommandIssued Start to execute command AbortJob, and clean it up to make sure executed not more than once."}, last.Events)

	missing, err := os.ReadFile("../../../vcjobtest/scenario/testdata/missing-claim.yaml") // the simulator's tests run it too
	require.NoError(t, err)
	d = record(t, missing, "advance 10ms\n").Data()
	require.NotEmpty(t, d.Markers)
	assert.Contains(t, d.Markers[0].Detail, "event: Warning PVCError Failed to create PVC, err: pvc nope is not found")
	assert.Contains(t, d.Markers[0].Detail, "requeued: 1 of 15, again at +5ms")
}

// The page is one file that needs nothing from the network, and the data
// cannot end its script element early.
func TestPageIsSelfContained(t *testing.T) {
	tl := record(t, quickstart(t), "podgroup Inqueue\nstart all\n")
	tl.Fail("line 9: </script><b>x</b>")
	var b bytes.Buffer
	require.NoError(t, tl.WriteHTML(&b))
	page := b.String()
	assert.True(t, strings.HasPrefix(page, "<!DOCTYPE html>"))
	for _, re := range []string{`(?i)<link\b`, `(?i)src=`, `(?i)https?://`, `(?i)@import`} {
		assert.NotRegexp(t, regexp.MustCompile(re), page)
	}
	assert.Equal(t, 2, strings.Count(page, "</script>"), "the data and the code, and nothing the data injected")
	start := strings.Index(page, `id="timeline-data">`) + len(`id="timeline-data">`)
	end := strings.Index(page[start:], "</script>")
	var d timeline.Data
	require.NoError(t, json.Unmarshal([]byte(page[start:start+end]), &d))
	assert.Equal(t, "mnist-ddp", d.Job)
	assert.Equal(t, "line 9: </script><b>x</b>", d.Failure)
}

var bigPods = flag.Int("pods", 10000, "pods of TestTenThousandPods")

// bigJob is testdata/big-job.yaml, which the browser test loads too, with
// pods replicas.
func bigJob(t testing.TB, pods int) []byte {
	m, err := os.ReadFile("testdata/big-job.yaml")
	require.NoError(t, err)
	return bytes.Replace(m, []byte("replicas: 10000"), []byte(fmt.Sprintf("replicas: %d", pods)), 1)
}

// BigScenario is the 10,000-pod run the browser test draws too (it reads
// the same file): every pod starts, one is OOM-killed and replaced,
// another succeeds. (Not the job's end: once a job is finished, Volcano
// answers each pod event with a kill that walks every pod, so 10,000 pods
// finishing cost 10,000 walks of 10,000 pods.)
var BigScenario = testfiles.MustRead("testdata/big.scenario")

func TestTenThousandPods(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 pods: a few seconds")
	}
	began := time.Now()
	tl := record(t, bigJob(t, *bigPods), BigScenario)
	simulated := time.Since(began)
	var b bytes.Buffer
	began = time.Now()
	require.NoError(t, tl.WriteHTML(&b))
	written := time.Since(began)
	d := tl.Data()
	assert.Len(t, d.Lanes, *bigPods)
	assert.Equal(t, []string{"+Pending", "Running", "Failed", "Terminating", "+Pending", "Running"}, segs(d, "big-worker-17"))
	t.Logf("10,000 pods: simulated in %s, page of %d bytes written in %s", simulated.Round(time.Millisecond), b.Len(), written.Round(time.Millisecond))
}

// The garbage collector's looks are on the job's row, and its delete ends
// the job's phase band.
func TestRecorderGarbageCollector(t *testing.T) {
	m := strings.Replace(string(quickstart(t)), "spec:\n", "spec:\n  ttlSecondsAfterFinished: 60\n", 1)
	tl := record(t, []byte(m), "podgroup Inqueue\nstart all\ncommand CompleteJob\nfinish\nadvance 2m\n")
	d := tl.Data()
	var titles []string
	for _, mk := range d.Markers {
		if strings.HasPrefix(mk.Title, "garbage collector") {
			titles = append(titles, mk.Title)
			assert.Equal(t, -1, mk.Lane, "on the job's row")
		}
	}
	assert.Equal(t, []string{"garbage collector", "garbage collector: job deleted"}, titles)
	require.NotEmpty(t, d.JobPhase)
	assert.Equal(t, timeline.DeletedPhase, d.JobPhase[len(d.JobPhase)-1].Phase)
	assert.Contains(t, d.Summary, "job deleted by the garbage collector")
}
