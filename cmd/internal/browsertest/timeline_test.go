package browsertest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

func quickstart(t *testing.T) []byte {
	m, err := os.ReadFile("../../../examples/quickstart/pytorch-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

const oomThenEvict = "podgroup Inqueue\nstart all\nfail worker-1 137\nfinish\nstart all\nevict worker-0\nfinish\npodgroup Inqueue\nadvance 10m\n"

// attr reads an attribute of the element a CSS selector finds.
func attr(ctx context.Context, sel, name string) (string, error) {
	r, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(sel), name))
	return r.Value, err
}

// The simulator's page for the quickstart's scenario: the job's phase band
// and each pod's lane are drawn in the legend's colours for the phases the
// run went through, and clicking the OOM kill's marker shows its rule,
// action and target.
func TestTimelinePage(t *testing.T) {
	ctx := browser(t)
	data, page := simulate(t, quickstart(t), oomThenEvict)
	srv := serve(t, map[string][]byte{"/timeline.html": page})
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/timeline.html"), chromedp.WaitVisible(chromedp.CSS(`#timeline[data-render-ms]`))); err != nil {
		t.Fatal(err)
	}
	lanes, err := attr(ctx, "#timeline", "data-lanes")
	if err != nil {
		t.Fatal(err)
	}
	title, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`.tl-head h1`)))
	if err != nil {
		t.Fatal(err)
	}
	if lanes != "4" || !strings.Contains(title, "4 pod lanes") {
		t.Errorf("lanes %q, title %q: want the four pods", lanes, title)
	}

	// The phase band: the middle of each phase is drawn in its colour.
	for i, c := range data.JobPhase {
		to := data.Steps
		if i+1 < len(data.JobPhase) {
			to = data.JobPhase[i+1].Step
		}
		if to-c.Step < 2 {
			continue
		}
		want, err := legendColour(ctx, "job:", c.Phase)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pixelAt(ctx, (c.Step+to)/2, -1, "job")
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("job band at step %d: %s, want %s (%s)", (c.Step+to)/2, got, want, c.Phase)
		}
	}
	// worker-1's lane: Pending, Running, Failed, Terminating, and its
	// replacement, each in the legend's colour.
	lane, steps, phases := midSteps(data, "mnist-ddp-worker-1")
	if len(phases) < 4 || phases[2] != "Failed" {
		t.Fatalf("worker-1's segments: %v, want Pending, Running, Failed, ...", phases)
	}
	for i, s := range steps {
		want, err := legendColour(ctx, "pod:", phases[i])
		if err != nil {
			t.Fatal(err)
		}
		got, err := pixelAt(ctx, s, lane, "")
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("worker-1 at step %d: %s, want %s (%s)", s, got, want, phases[i])
		}
	}

	// Click the OOM kill's marker: the details say what decided it.
	step := -1
	for _, m := range data.Markers {
		if strings.Contains(m.Title, "PodFailed mnist-ddp-worker-1 exit=137") {
			step = m.Step
		}
	}
	js := fmt.Sprintf(`(function () { var api = document.getElementById('timeline').timeline; var r = api.canvas.getBoundingClientRect();
	  return [r.left + api.stepX(%d), r.top + api.showLane(%d)]; })()`, step, lane)
	pos, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](js))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.MouseClickXY(pos[0], pos[1])); err != nil {
		t.Fatal(err)
	}
	details, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`.tl-details`)))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`rule: task "worker" policy 0 (exit code)`, "action: RestartPod", "target: pod mnist-ddp-worker-1", "status written: phase Restarting"} {
		if !strings.Contains(details, want) {
			t.Errorf("details lack %q:\n%s", want, details)
		}
	}
	screenshot(t, ctx, "timeline-quickstart.png")
}

// A job of 10,000 pods: the page loads and draws its first picture, and
// the last pod's lane, scrolled to, is drawn in its phase's colour.
func TestTimelineTenThousandPods(t *testing.T) {
	ctx := browser(t)
	began := time.Now()
	data, page := simulate(t, bigJob(t), bigScenario(t))
	t.Logf("simulated 10,000 pods and wrote a page of %.1f MB in %s", float64(len(page))/1e6, time.Since(began).Round(time.Millisecond))
	srv := serve(t, map[string][]byte{"/big.html": page})
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	began = time.Now()
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/big.html"), chromedp.WaitVisible(chromedp.CSS(`#timeline[data-render-ms]`))); err != nil {
		t.Fatal(err)
	}
	wall := time.Since(began)
	renderMs, err := attr(ctx, "#timeline", "data-render-ms")
	if err != nil {
		t.Fatal(err)
	}
	lanes, err := attr(ctx, "#timeline", "data-lanes")
	if err != nil {
		t.Fatal(err)
	}
	if lanes != "10000" {
		t.Fatalf("%s lanes, want 10000", lanes)
	}
	ms, _ := strconv.ParseFloat(renderMs, 64)
	drawnAt, err := attr(ctx, "#timeline", "data-drawn-at")
	if err != nil {
		t.Fatal(err)
	}
	at, _ := strconv.ParseFloat(drawnAt, 64)
	nav, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]float64](`(function () { var n = performance.getEntriesByType('navigation')[0];
	  return { response: n.responseEnd, interactive: n.domInteractive, loaded: n.loadEventEnd }; })()`))
	if err != nil {
		t.Fatal(err)
	}
	frameMs, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`(function () { var api = document.getElementById('timeline').timeline;
	  var t = performance.now(); api.showLane(5000); return performance.now() - t; })()`))
	if err != nil {
		t.Fatal(err)
	}
	report := fmt.Sprintf("10,000-pod timeline: %d steps, %d markers, a page of %.1f MB. In the browser's clock: the page arrived at %.0f ms, "+
		"the first picture was drawn at %.0f ms (the script parsing the data and drawing: %.0f ms), the load event ended at %.0f ms. "+
		"Measured by the test from navigating to seeing the picture: %s. A frame scrolled to lane 5000: %.1f ms.\n",
		data.Steps, len(data.Markers), float64(len(page))/1e6, nav["response"], at, ms, nav["loaded"], wall.Round(time.Millisecond), frameMs)
	t.Log(report)
	_ = os.MkdirAll(artifacts, 0o755)
	_ = os.WriteFile(artifacts+"/timeline-10000-pods.txt", []byte(report), 0o644)
	if wall > 30*time.Second {
		t.Errorf("the page took %s to draw", wall)
	}
	// The last pod ran for most of the run: its lane is drawn Running in
	// the middle (a segment of a step or two is under a pixel wide here).
	lane, steps, phases := midSteps(data, "big-worker-9999")
	if len(phases) < 2 || phases[1] != "Running" {
		t.Fatalf("big-worker-9999's segments: %v", phases)
	}
	want, err := legendColour(ctx, "pod:", "Running")
	if err != nil {
		t.Fatal(err)
	}
	got, err := pixelAt(ctx, steps[1], lane, "")
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("lane %d (big-worker-9999) at step %d: %s, want %s (Running)", lane, steps[1], got, want)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.getElementById('timeline').timeline.showLane(9990)`)); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "timeline-10000-pods.png")
}

// bigJob and bigScenario are the 10,000-pod job and run that package
// timeline's own test records: every pod starts, one is OOM-killed and
// replaced, one succeeds.
func bigJob(t *testing.T) []byte {
	return readFile(t, "../timeline/testdata/big-job.yaml")
}

func bigScenario(t *testing.T) string {
	return string(readFile(t, "../timeline/testdata/big.scenario"))
}

func readFile(t *testing.T, path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
