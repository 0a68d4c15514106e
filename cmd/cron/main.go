package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/cmd/internal/timeline"
	"github.com/vcjob/vcjob/cronjob"
	"github.com/vcjob/vcjob/manifest"
	"github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/validation"
)

// maxSyncs stops a window that would print more than anyone reads (a
// per-minute schedule over a year).
const maxSyncs = 10000

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
	case err != nil:
		fmt.Fprintln(os.Stderr, "cron:", err)
		os.Exit(2)
	}
}

// options are the command line, checked.
type options struct {
	manifest  string
	from, to  time.Time
	runsFor   time.Duration
	failEvery int
	html      bool
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("cron", flag.ContinueOnError)
	fs.SetOutput(stderr)
	manifest := fs.String("cronjob", "", "the CronJob manifest (YAML or JSON)")
	from := fs.String("from", "", "start of the window, RFC 3339 (2026-03-06T00:00:00-05:00)")
	to := fs.String("to", "", "end of the window, RFC 3339")
	runsFor := fs.Duration("runs-for", 5*time.Minute, "how long each job runs before it finishes")
	failEvery := fs.Int("fail-every", 0, "every Nth job fails instead of completing (0: none fails)")
	output := fs.String("o", "text", "output: text, or html (the window as a timeline page)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: cron -cronjob CJ.yaml -from T1 -to T2 [-runs-for 5m] [-fail-every N] [-o text|html]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("unexpected argument %q (every input is a flag)", fs.Arg(0))
	}

	if *output != "text" && *output != "html" {
		return options{}, fmt.Errorf("-o %s: unknown output (text or html)", *output)
	}
	opts := options{manifest: *manifest, runsFor: *runsFor, failEvery: *failEvery, html: *output == "html"}
	if opts.manifest == "" {
		return options{}, errors.New("-cronjob: required (the CronJob manifest to play)")
	}
	var err error
	if opts.from, err = parseTime("-from", *from); err != nil {
		return options{}, err
	}
	if opts.to, err = parseTime("-to", *to); err != nil {
		return options{}, err
	}
	switch {
	case !opts.to.After(opts.from):
		return options{}, fmt.Errorf("-to: %s is not after -from %s", *to, *from)
	case opts.runsFor <= 0:
		return options{}, fmt.Errorf("-runs-for: %s: must be positive", opts.runsFor)
	case opts.failEvery < 0:
		return options{}, fmt.Errorf("-fail-every: %d: must be 0 (no job fails) or more", opts.failEvery)
	}
	return opts, nil
}

func parseTime(flagName, value string) (time.Time, error) {
	if value == "" {
		return time.Time{}, fmt.Errorf("%s: required, an RFC 3339 time such as 2026-03-06T00:00:00-05:00", flagName)
	}
	t, err := time.Parse(time.RFC3339, value)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %q is not an RFC 3339 time such as 2026-03-06T00:00:00-05:00", flagName, value)
	}
	return t, nil
}

// loadCronJob decodes, defaults and validates the manifest; errors name
// the file and the field.
func loadCronJob(path string) (*vcjob.CronJob, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-cronjob: %w", err)
	}
	cj, err := manifest.DecodeCronJob(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	vcjob.SetCronJobDefaults(cj)
	if errs := validation.ValidateCronJob(cj); len(errs) > 0 {
		lines := make([]string, len(errs))
		for i, e := range errs {
			lines[i] = "  " + e.Error()
		}
		return nil, fmt.Errorf("%s: invalid CronJob:\n%s", path, strings.Join(lines, "\n"))
	}
	return cj, nil
}

// job is a job in the played cluster: it runs until finishAt, then has
// outcome.
type job struct {
	created  *vcjob.Job
	finishAt time.Time
	outcome  vcjob.JobPhase
}

// at is the job as the Job lister shows it at now.
func (j job) at(now time.Time) *vcjob.Job {
	listed := j.created.DeepCopy()
	listed.Status.State = vcjob.JobState{Phase: vcjob.Running, LastTransitionTime: listed.CreationTimestamp}
	if !now.Before(j.finishAt) {
		listed.Status.State = vcjob.JobState{Phase: j.outcome, LastTransitionTime: metav1.NewTime(j.finishAt)}
	}
	return listed
}

// run syncs the CronJob from -from to -to, each sync deciding on the jobs
// as the lister shows them then, and writes the decisions, or the page.
func run(args []string, stdout, stderr io.Writer) error {
	return runWatched(args, stdout, stderr, nil)
}

// runWatched is run, telling watch (when set) the played cluster after
// each sync.
func runWatched(args []string, stdout, stderr io.Writer, watch watcher) error {
	opts, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	cj, err := loadCronJob(opts.manifest)
	if err != nil {
		return err
	}
	sched, err := cronjob.ParseSchedule(&cj.Spec)
	if err != nil {
		return fmt.Errorf("%s: %w", opts.manifest, err) // validation caught it already
	}
	if cj.CreationTimestamp.IsZero() {
		cj.CreationTimestamp = metav1.NewTime(opts.from) // created when the window opens
	}

	return playWindow(cj, opts, sched.Location, stdout, watch)
}

// A watcher is told the played cluster after each sync: the cronjob's
// status and the jobs as the Job lister shows them (a sync happens at
// every instant something changes: a run due, a job finishing).
type watcher func(at time.Time, status vcjob.CronJobStatus, jobs []*vcjob.Job)

// playWindow syncs the cronjob from -from to -to and writes the
// decisions, or the page, to stdout, telling watch (when set) the
// cluster after each sync.
func playWindow(cj *vcjob.CronJob, opts options, zone *time.Location, stdout io.Writer, watch watcher) error {
	out := stdout
	var page *timeline.CronWindow
	if opts.html {
		out = io.Discard
		page = &timeline.CronWindow{CronJob: cj.Namespace + "/" + cj.Name, Schedule: cj.Spec.Schedule, Zone: zone,
			Policy: string(cj.Spec.ConcurrencyPolicy), From: opts.from, To: opts.to}
	}
	p := &printer{w: out, zone: zone, page: page}
	p.header(cj)
	c := &cluster{opts: opts}
	now := opts.from
	for syncs := 0; !now.After(opts.to); syncs++ {
		if syncs == maxSyncs {
			p.line(now, "stopping after %d syncs; narrow the window", maxSyncs)
			break
		}
		listed := c.listed(now)
		d := c.apply(cronjob.Decide(cj, listed, now), now)
		p.decision(now, d)
		if page != nil {
			page.Observe(now, d, func(name string) bool {
				for _, j := range listed {
					if j.Name == name {
						return j.Status.State.Phase == vcjob.Running
					}
				}
				return false
			})
		}
		if d.WriteStatus {
			cj.Status = d.Status
		}
		if watch != nil {
			watch(now, *cj.Status.DeepCopy(), c.listed(now))
		}
		next := c.nextSync(now, d)
		if next.IsZero() {
			p.line(now, "nothing left to wake the controller before the cronjob changes")
			break
		}
		c.finishBy(p, now, next)
		now = next
	}
	if page != nil {
		return timeline.WriteCronHTML(stdout, *page)
	}
	return nil
}

// cluster is the played cluster: the jobs the controller created, and how
// many it has started.
type cluster struct {
	opts    options
	jobs    []job
	started int
}

// listed is the jobs as the Job lister shows them at now.
func (c *cluster) listed(now time.Time) []*vcjob.Job {
	listed := make([]*vcjob.Job, len(c.jobs))
	for i, j := range c.jobs {
		listed[i] = j.at(now)
	}
	return listed
}

// apply carries out the decision as the controller does, call by call,
// and returns it with the answers. The played API server agrees with the
// lister; the create's answer carries the UID it gives the job, for
// status.active.
func (c *cluster) apply(d cronjob.Decision, now time.Time) cronjob.Decision {
	for i := 0; i < len(d.Calls); i++ {
		switch call := d.Calls[i]; call.Verb {
		case cronjob.VerbDelete:
			c.jobs = slices.DeleteFunc(c.jobs, func(j job) bool { return j.created.Name == call.Name })
		case cronjob.VerbCreate:
			c.started++
			created := call.Job.DeepCopy()
			created.Namespace = call.Namespace
			created.UID = types.UID(fmt.Sprintf("uid-%d", c.started))
			created.CreationTimestamp = metav1.NewTime(now)
			outcome := vcjob.Completed
			if c.opts.failEvery > 0 && c.started%c.opts.failEvery == 0 {
				outcome = vcjob.Failed
			}
			c.jobs = append(c.jobs, job{created: created, finishAt: now.Add(c.opts.runsFor), outcome: outcome})
			d = d.Answer(i, cronjob.Answer{Job: created})
		}
	}
	return d
}

// nextSync is when the controller syncs next: the requeue, or a job
// finishing (a job update wakes the controller), whichever comes first;
// zero for never.
func (c *cluster) nextSync(now time.Time, d cronjob.Decision) time.Time {
	var next time.Time
	if d.RequeueAfter != nil {
		next = now.Add(max(*d.RequeueAfter, 0))
	}
	for _, j := range c.jobs {
		if j.finishAt.After(now) && (next.IsZero() || j.finishAt.Before(next)) {
			next = j.finishAt
		}
	}
	return next
}

// finishBy reports the jobs that finish after now and by next, within the
// window.
func (c *cluster) finishBy(p *printer, now, next time.Time) {
	for _, j := range c.jobs {
		if j.finishAt.After(now) && !j.finishAt.After(next) && !next.After(c.opts.to) {
			p.line(j.finishAt, "%s finished: %s", j.created.Name, j.outcome)
			if p.page != nil {
				p.page.Finished(j.created.Name, j.finishAt, string(j.outcome))
			}
		}
	}
}

// printer writes the decisions, with times in the schedule's zone.
type printer struct {
	w    io.Writer
	zone *time.Location
	page *timeline.CronWindow
}

func (p *printer) header(cj *vcjob.CronJob) {
	deadline := "none"
	if d := cj.Spec.StartingDeadlineSeconds; d != nil {
		deadline = (time.Duration(*d) * time.Second).String()
	}
	fmt.Fprintf(p.w, "cronjob %s/%s: %q in %s, %s, starting deadline %s, keeps %d successful and %d failed jobs\n",
		cj.Namespace, cj.Name, cj.Spec.Schedule, p.zone, cj.Spec.ConcurrencyPolicy, deadline,
		*cj.Spec.SuccessfulJobsHistoryLimit, *cj.Spec.FailedJobsHistoryLimit)
}

func (p *printer) line(at time.Time, format string, args ...any) {
	if p.page != nil && strings.HasPrefix(format, "sync: ") {
		p.page.Syncs = append(p.page.Syncs, timeline.CronSync{At: at, Text: strings.TrimPrefix(fmt.Sprintf(format, args...), "sync: ")})
	}
	fmt.Fprintf(p.w, "%s  %s\n", at.In(p.zone).Format("2006-01-02 15:04:05.000 MST"), fmt.Sprintf(format, args...))
}

func (p *printer) decision(now time.Time, d cronjob.Decision) {
	var parts []string
	switch created := d.JobToCreate(); {
	case created != nil && d.Skipped == "":
		parts = append(parts, fmt.Sprintf("start %s for %s", created.Name, p.clock(*d.Due)))
	case d.Due != nil:
		parts = append(parts, fmt.Sprintf("skip the %s run: %s", p.clock(*d.Due), d.Skipped))
	default:
		parts = append(parts, string(d.Skipped))
	}
	var deleted []string
	for _, c := range d.JobsToDelete() {
		deleted = append(deleted, c.Name)
	}
	if len(deleted) > 0 {
		parts = append(parts, "delete "+strings.Join(deleted, ", "))
	}
	status := d.Status
	parts = append(parts, fmt.Sprintf("active %d", len(status.Active)))
	if d.RequeueAfter != nil {
		parts = append(parts, "next sync at "+p.clock(now.Add(*d.RequeueAfter)))
	}
	if d.Err != nil {
		parts = append(parts, "failed: "+d.Err.Error())
	}
	p.line(now, "sync: %s", strings.Join(parts, "; "))
	for _, e := range d.Events {
		if e.Type != record.Normal {
			p.line(now, "  %s %s: %s", e.Type, e.Reason, e.Message)
		}
	}
}

// clock is a time in the schedule's zone, to the second.
func (p *printer) clock(t time.Time) string {
	return t.In(p.zone).Format("2006-01-02 15:04:05 MST")
}
