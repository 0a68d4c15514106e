package timeline

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/vcjob/vcjob/cronjob"
)

// CronWindow is a CronJob's window as the cron example plays it.
type CronWindow struct {
	CronJob  string // namespace/name
	Schedule string
	Zone     *time.Location
	Policy   string // concurrencyPolicy
	From, To time.Time
	Runs     []CronRun
	// Syncs are the controller's syncs: when, and what it decided.
	Syncs []CronSync
}

// CronRun is one scheduled time: the job started for it, or why none was.
type CronRun struct {
	Scheduled time.Time
	Job       string    // "" when no job started
	Skipped   string    // why no job started
	Started   time.Time // zero when skipped
	// Finished is when the job completed or failed, or was deleted while
	// running (Outcome Replaced); zero while it runs at the window's end.
	Finished time.Time
	Outcome  string // Completed, Failed, Replaced, or Running at the end
	Deleted  time.Time
}

// CronSync is one sync of the controller.
type CronSync struct {
	At   time.Time
	Text string
}

// Colours of the cron page, by outcome.
var cronColors = map[string]string{"Completed": "#2f80ed", "Failed": "#eb5757", "Replaced": "#f2994a", "Running": "#27ae60"}

// WriteCronHTML writes a CronJob window as one HTML page with inline SVG:
// a row per scheduled run (started, skipped, replaced, finished), the
// syncs on an axis, days in the schedule's zone.
func WriteCronHTML(w io.Writer, cw CronWindow) error {
	zone := cw.Zone
	if zone == nil {
		zone = time.UTC
	}
	runs := append([]CronRun(nil), cw.Runs...)
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].Scheduled.Before(runs[j].Scheduled) })
	c := &cronChart{from: cw.From, to: cw.To, zone: zone, span: cw.To.Sub(cw.From), width: 1300}
	c.height = cronTop + cronRowH*len(runs) + 40
	if c.span <= 0 {
		c.span = time.Hour
	}
	var s strings.Builder
	fmt.Fprintf(&s, `<svg id="cron" width="%d" height="%d" font-family="system-ui, sans-serif" font-size="12">`, c.width, c.height)
	c.days(&s)
	c.syncs(&s, cw.Syncs)
	for i, r := range runs {
		c.run(&s, cronTop+i*cronRowH, r)
	}
	s.WriteString(`</svg>`)

	var b bytes.Buffer
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>%s</title>
<style>body{margin:10px;font:13px system-ui,sans-serif} .legend span{margin-right:14px} .legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:middle}
#details{margin-top:8px;padding:6px;border:1px solid #ddd;min-height:1.5em} g.run,rect.sync{cursor:pointer}</style></head><body>
<h1 style="font-size:15px">CronJob %s: %s in %s, %s; %s to %s</h1>
<div class="legend"><span><i style="border:1px solid #000;border-radius:6px"></i>scheduled</span>`,
		html.EscapeString("vcjob cron: "+cw.CronJob), html.EscapeString(cw.CronJob), html.EscapeString(fmt.Sprintf("%q", cw.Schedule)), html.EscapeString(zone.String()), html.EscapeString(cw.Policy), html.EscapeString(c.clock(cw.From)), html.EscapeString(c.clock(cw.To)))
	for _, k := range []string{"Completed", "Failed", "Replaced", "Running"} {
		fmt.Fprintf(&b, `<span><i style="background:%s"></i>%s</span>`, cronColors[k], strings.ToLower(k))
	}
	b.WriteString(`<span>✕ skipped</span></div>` + "\n")
	b.WriteString(s.String())
	b.WriteString(`<div id="details">Click a run or a sync for its details.</div>
<script>
document.getElementById('cron').addEventListener('click', function (e) {
  var g = e.target.closest('[data-detail]');
  if (g) document.getElementById('details').textContent = g.getAttribute('data-detail');
});
</script>
</body></html>
`)
	_, err := w.Write(b.Bytes())
	return err
}

// The cron chart's margins and row height, in pixels.
const cronLeft, cronRight, cronTop, cronRowH = 250, 200, 60, 26

// cronChart draws the window's SVG: time runs left to right from from to
// to (span, at least an hour), a row per run.
type cronChart struct {
	from, to      time.Time
	zone          *time.Location
	span          time.Duration
	width, height int
}

func (c *cronChart) x(t time.Time) float64 {
	return cronLeft + float64(c.width-cronLeft-cronRight)*float64(t.Sub(c.from))/float64(c.span)
}

func (c *cronChart) clock(t time.Time) string { return t.In(c.zone).Format("2006-01-02 15:04 MST") }

// days draws the days (midnight in the zone) as grid lines.
func (c *cronChart) days(s *strings.Builder) {
	from := c.from.In(c.zone)
	for d := time.Date(from.Year(), from.Month(), from.Day(), 0, 0, 0, 0, c.zone); !d.After(c.to); d = d.AddDate(0, 0, 1) {
		if d.Before(c.from) {
			continue
		}
		fmt.Fprintf(s, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/><text x="%.1f" y="%d" fill="#555">%s</text>`,
			c.x(d), cronTop-30, c.x(d), c.height-30, c.x(d)+3, cronTop-34, html.EscapeString(d.Format("Mon Jan 2")))
	}
}

// syncs draws the syncs on the axis row.
func (c *cronChart) syncs(s *strings.Builder, syncs []CronSync) {
	fmt.Fprintf(s, `<text x="6" y="%d" font-weight="bold">controller syncs</text>`, cronTop-12)
	for _, sy := range syncs {
		fmt.Fprintf(s, `<rect class="sync" x="%.1f" y="%d" width="2" height="12" fill="#555" data-detail="%s"><title>%s</title></rect>`,
			c.x(sy.At)-1, cronTop-22, html.EscapeString("sync at "+c.clock(sy.At)+": "+sy.Text), html.EscapeString(c.clock(sy.At)+": "+sy.Text))
	}
}

// run draws one run's row at y: a cross for a skipped run, else its job's
// bar from start to finish (the window's end while it runs), labelled
// where there is room, and a circle at the scheduled time.
func (c *cronChart) run(s *strings.Builder, y int, r CronRun) {
	label := "run for " + c.clock(r.Scheduled)
	fmt.Fprintf(s, `<text x="6" y="%d">%s</text>`, y+17, html.EscapeString(label))
	if r.Job == "" {
		detail := label + ": skipped (" + r.Skipped + ")"
		cx, cy := c.x(r.Scheduled), float64(y+cronRowH/2)
		fmt.Fprintf(s, `<g class="run skipped" data-detail="%s"><title>%s</title><path d="M%.1f %.1f l10 10 m0 -10 l-10 10" stroke="#757575" stroke-width="2"/><text x="%.1f" y="%d" fill="#757575">skipped: %s</text></g>`,
			html.EscapeString(detail), html.EscapeString(detail), cx-5, cy-5, cx+10, y+17, html.EscapeString(r.Skipped))
		return
	}
	end := r.Finished
	if end.IsZero() {
		end = c.to
	}
	detail := label + c.jobDetail(r)
	x0, x1 := c.x(r.Started), c.x(end)
	fmt.Fprintf(s, `<g class="run %s" data-detail="%s"><title>%s</title><rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" rx="3"/>`,
		strings.ToLower(r.Outcome), html.EscapeString(detail), html.EscapeString(detail), x0, y+5, max(2, x1-x0), cronRowH-10, cronColors[r.Outcome])
	text := r.Job + " " + strings.ToLower(r.Outcome)
	if x1+4+6.5*float64(len(text)) > float64(c.width) {
		// No room on the right: before the bar.
		fmt.Fprintf(s, `<text x="%.1f" y="%d" fill="#000" text-anchor="end">%s</text></g>`, x0-8, y+17, html.EscapeString(text))
	} else {
		fmt.Fprintf(s, `<text x="%.1f" y="%d" fill="#000">%s</text></g>`, x1+4, y+17, html.EscapeString(text))
	}
	// The scheduled time, where the run was due.
	fmt.Fprintf(s, `<circle cx="%.1f" cy="%d" r="4" fill="none" stroke="#000"/>`, c.x(r.Scheduled), y+cronRowH/2)
}

// jobDetail is what a started run's details say of its job: when it
// started, how it ended, and its deletion by the history limit.
func (c *cronChart) jobDetail(r CronRun) string {
	detail := fmt.Sprintf(": job %s started %s", r.Job, c.clock(r.Started))
	switch r.Outcome {
	case "Running":
		detail += ", still running at the window's end"
	case "Replaced":
		detail += ", deleted while running at " + c.clock(r.Finished) + " (replaced by the next run)"
	default:
		detail += fmt.Sprintf(", %s at %s", r.Outcome, c.clock(r.Finished))
	}
	if !r.Deleted.IsZero() && r.Outcome != "Replaced" {
		detail += ", deleted " + c.clock(r.Deleted) + " (history limit)"
	}
	return detail
}

// Observe adds what one sync decided at now: the run it started, or the
// due run it skipped, and the jobs it deleted (running says whether a job
// was still running, which makes its deletion a replacement).
func (cw *CronWindow) Observe(now time.Time, d cronjob.Decision, running func(job string) bool) {
	switch created := d.JobToCreate(); {
	case d.Due != nil && created != nil && d.Skipped == "":
		cw.Runs = append(cw.Runs, CronRun{Scheduled: *d.Due, Job: created.Name, Started: now, Outcome: "Running"})
	case d.Due != nil:
		for _, r := range cw.Runs {
			if r.Job == "" && r.Scheduled.Equal(*d.Due) && r.Skipped == string(d.Skipped) {
				return
			}
		}
		cw.Runs = append(cw.Runs, CronRun{Scheduled: *d.Due, Skipped: string(d.Skipped)})
	}
	for _, del := range d.JobsToDelete() {
		for i := range cw.Runs {
			r := &cw.Runs[i]
			if r.Job != del.Name {
				continue
			}
			r.Deleted = now
			if running(del.Name) {
				r.Finished, r.Outcome = now, "Replaced"
			}
		}
	}
}

// Finished records a job completing or failing.
func (cw *CronWindow) Finished(job string, at time.Time, outcome string) {
	for i := range cw.Runs {
		if r := &cw.Runs[i]; r.Job == job && r.Outcome == "Running" {
			r.Finished, r.Outcome = at, outcome
		}
	}
}
