package browsertest

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/vcjob/vcjob/cmd/internal/timeline"
	"github.com/vcjob/vcjob/cmd/playground/server"
	"github.com/vcjob/vcjob/vcjobtest/scenario"
)

// artifacts is where the screenshots go: _artifacts/ at the repository's
// root (git ignores it).
const artifacts = "../../../_artifacts"

// browser starts headless Chromium for one test.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		if os.Getenv("VCJOB_BROWSER_REQUIRED") != "" {
			t.Fatal("no Chromium: install Debian's chromium package")
		}
		t.Skip("no Chromium (apt-get install chromium): the browser tests skip")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1400, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	return ctx
}

// serve serves pages by path.
func serve(t *testing.T, pages map[string][]byte) *httptest.Server {
	mux := http.NewServeMux()
	for path, page := range pages {
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write(page)
		})
	}
	mux.Handle("/playground/", http.StripPrefix("/playground", server.Handler()))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(artifacts, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(path)
	t.Logf("screenshot: %s", abs)
}

// simulate runs a scenario and returns the recording and its page.
func simulate(t testing.TB, manifest []byte, script string) (timeline.Data, []byte) {
	t.Helper()
	job, err := scenario.Load(manifest, "")
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := scenario.Parse(strings.NewReader(script))
	if err != nil {
		t.Fatal(err)
	}
	tl := timeline.New(job.Name, scenario.Start)
	if err := scenario.Run(job, cmds, tl); err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := tl.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	return tl.Data(), page.Bytes()
}

// legendColour is the colour the page's legend shows for a phase (what a
// person reads the picture by).
func legendColour(ctx context.Context, legend, phase string) (string, error) {
	js := fmt.Sprintf(`(function () {
	  var box = Array.from(document.querySelectorAll('.tl-legend')).find(function (b) { return b.firstChild.textContent === %q; });
	  var span = Array.from(box.querySelectorAll('span')).find(function (s) { return s.textContent === %q; });
	  var rgb = getComputedStyle(span.querySelector('i')).backgroundColor.match(/\d+/g);
	  return '#' + rgb.slice(0, 3).map(function (v) { return ('0' + Number(v).toString(16)).slice(-2); }).join('');
	})()`, legend, phase)
	return chromedp.Run(ctx, chromedp.Evaluate[string](js))
}

// pixelAt is the colour drawn at a step of a row ("job", "pg", "req") or,
// with lane >= 0, of a pod's lane (scrolled into view).
func pixelAt(ctx context.Context, step, lane int, row string) (string, error) {
	js := fmt.Sprintf(`(function () {
	  var api = document.getElementById('timeline').timeline;
	  var y = %d >= 0 ? api.showLane(%d) : api.rowY(%q) - 5; // above a band's label
	  return api.pixel(api.stepX(%d), y);
	})()`, lane, lane, row, step)
	return chromedp.Run(ctx, chromedp.Evaluate[string](js))
}

// midSteps are, for each segment of a pod's lane, a step inside it with
// no marker drawn there (nearest the middle), and the segment's phase.
func midSteps(d timeline.Data, pod string) (lane int, steps []int, phases []string) {
	for i, l := range d.Lanes {
		if l.Name != pod {
			continue
		}
		marked := map[int]bool{}
		for _, m := range d.Markers {
			if m.Lane == i {
				marked[m.Step] = true
			}
		}
		for k := 0; k < len(l.Segs); k += 4 {
			from, to := int(l.Segs[k]), int(l.Segs[k+1])
			if to < 0 {
				to = d.Steps
			}
			mid := (from + to) / 2
			for off := 0; off <= (to-from)/2; off++ {
				if s := mid - off; s >= from && s < to && !marked[s] {
					steps, phases = append(steps, s), append(phases, d.Phases[l.Segs[k+2]])
					break
				}
				if s := mid + off; s < to && !marked[s] {
					steps, phases = append(steps, s), append(phases, d.Phases[l.Segs[k+2]])
					break
				}
			}
		}
		return i, steps, phases
	}
	return -1, nil, nil
}
