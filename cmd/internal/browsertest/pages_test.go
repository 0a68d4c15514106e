package browsertest

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The cron example's page over the README's window: a completed run, a
// failed one, the runs Forbid held back, and details on a click.
func TestCronPage(t *testing.T) {
	ctx := browser(t)
	var page bytes.Buffer
	cmd := []string{"run", "../../cron", "-cronjob", "../../cron/nightly.yaml", "-from", "2026-03-06T00:00:00-05:00",
		"-to", "2026-03-11T06:00:00-04:00", "-runs-for", "30h", "-fail-every", "2", "-o", "html"}
	if err := goRun(&page, cmd...); err != nil {
		t.Fatal(err)
	}
	srv := serve(t, map[string][]byte{"/cron.html": page.Bytes()})
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/cron.html"), chromedp.WaitVisible(chromedp.CSS(`#cron`))); err != nil {
		t.Fatal(err)
	}
	counts, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]int](`(function () { var c = {}; ['completed', 'failed', 'running', 'skipped', 'replaced'].forEach(function (k) {
		  c[k] = Array.from(document.querySelectorAll('g.run.' + k)).filter(function (g) { var r = g.getBoundingClientRect(); return r.width > 0 && r.height > 0; }).length; }); return c; })()`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"completed": 1, "failed": 1, "running": 1, "skipped": 2, "replaced": 0}
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("%d %s runs drawn, want %d", counts[k], k, n)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`g.run.failed rect`))); err != nil {
		t.Fatal(err)
	}
	details, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#details`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(details, "job nightly-train-29550630 started") || !strings.Contains(details, "Failed at 2026-03-10 08:30 EDT") {
		t.Errorf("details of the failed run: %q", details)
	}
	screenshot(t, ctx, "cron-window.png")
}

// checks is how many answers the playground has shown.
func checks(ctx context.Context) (int, error) {
	return chromedp.Run(ctx, chromedp.Evaluate[int](`Number(document.body.dataset.checked || 0)`))
}

// answered waits until the playground shows an answer after the n-th.
func answered(n int) chromedp.Action[chromedp.Void] {
	poll := chromedp.Poll[bool](fmt.Sprintf(`Number(document.body.dataset.checked || 0) > %d`, n), chromedp.WithPollingTimeout(20*time.Second))
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := poll(ctx, t)
		return chromedp.Void{}, err
	}
}

// The playground: the first example is checked on load; typing a line into
// the scenario redraws the timeline with the new failure; a typo in the
// manifest shows the decoding error naming the field; a bad value shows
// the validation error's path.
func TestPlayground(t *testing.T) {
	ctx := browser(t)
	srv := serve(t, nil)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/playground/"), answered(0), chromedp.WaitVisible(chromedp.CSS(`#timeline[data-lanes]`))); err != nil {
		t.Fatal(err)
	}
	status, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#status`)))
	if err != nil {
		t.Fatal(err)
	}
	lanes, err := attr(ctx, "#timeline", "data-lanes")
	if err != nil {
		t.Fatal(err)
	}
	if status != "Job ml/mnist-ddp: valid, 0 lint findings" || lanes != "4" {
		t.Fatalf("on load: status %q, %s lanes", status, lanes)
	}
	screenshot(t, ctx, "playground-pytorch.png")

	// Type a scenario, key by key: the gang admitted, every pod started,
	// worker-2 failing.
	n, err := checks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#scenario`)), chromedp.KeyEvent(kb.End),
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := chromedp.Evaluate[bool](`(function () { var s = document.getElementById('scenario'); s.select(); return true; })()`)(ctx, t)
			return err
		}),
		chromedp.KeyEvent("podgroup Inqueue\nstart all\nfail worker-2 1"), answered(n)); err != nil {
		t.Fatal(err)
	}
	// Answers come as one types: wait for the one to the whole text.
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Poll[bool](`document.getElementById('transcript').textContent.indexOf('> fail worker-2 1') >= 0`, chromedp.WithPollingTimeout(20*time.Second))(ctx, t)
		return err
	})); err != nil {
		t.Fatal(err)
	}
	failed, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(function () { var d = document.getElementById('timeline').timeline.data;
	    var l = d.lanes.find(function (l) { return l.name === 'mnist-ddp-worker-2'; });
	    for (var k = 0; k < l.segs.length; k += 4) if (d.phases[l.segs[k + 2]] === 'Failed') return true; return false; })()`))
	if err != nil {
		t.Fatal(err)
	}
	transcript, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('transcript').textContent`))
	if err != nil {
		t.Fatal(err)
	}
	if !failed || !strings.Contains(transcript, "request  PodFailed mnist-ddp-worker-2 exit=1") {
		t.Errorf("after typing the line: worker-2 drawn failed %v; transcript:\n%s", failed, transcript)
	}
	screenshot(t, ctx, "playground-typed.png")

	// A value of the wrong kind: the decoding error names the field.
	edit := func(from, to string) error {
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(function () { var m = document.getElementById('manifest');
		  m.value = m.value.replace(%q, %q); m.dispatchEvent(new Event('input', { bubbles: true })); return true; })()`, from, to)))
		return err
	}
	if n, err = checks(ctx); err != nil {
		t.Fatal(err)
	}
	if err := edit("replicas: 3", "replicas: three"); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, answered(n), chromedp.WaitVisible(chromedp.CSS(`#decode-error`))); err != nil {
		t.Fatal(err)
	}
	decodeErr, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#decode-error`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(decodeErr, `spec.tasks[1].replicas: must be a number, not a string`) {
		t.Errorf("decode error: %q", decodeErr)
	}
	screenshot(t, ctx, "playground-broken-manifest.png")

	// A bad value: the validation error's field path.
	if n, err = checks(ctx); err != nil {
		t.Fatal(err)
	}
	if err := edit("replicas: three", "replicas: -1"); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, answered(n)); err != nil {
		t.Fatal(err)
	}
	fields, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#validation li.invalid code')).map(function (c) { return c.textContent; })`))
	if err != nil {
		t.Fatal(err)
	}
	status, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#status`)))
	if err != nil {
		t.Fatal(err)
	}
	if !contains(fields, "spec.tasks[1].replicas") || !strings.Contains(status, "validation error") {
		t.Errorf("validation: fields %v, status %q", fields, status)
	}
	screenshot(t, ctx, "playground-invalid-job.png")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
