package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/vcjobtest/scenario"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the transcripts of testdata/e2e/*.txt from the player")

// TestVolcanoE2E plays the CronJob cases of Volcano's own e2e suite
// (testdata/e2e, one file per It: the case, the cronjob, the window's
// flags, what Volcano's test waits for, the transcript) on the fake
// clock: each transcript is pinned (-rewrite regenerates them) and each
// expectation must hold, or fail when the file lists it as not met.
//
// Expectations are checked in order, on a time cursor that starts when
// the cronjob is created (-from), as Volcano's test runs its Eventually
// and Consistently blocks one after the other:
//
//	eventually D COND...     at some instant in the next D all CONDs hold; the cursor moves there
//	consistently D COND...   at every instant of the next D all CONDs hold; the cursor moves D on
//
// An instant is a sync and what happened at its time (a job finishing
// and the sync its update causes are one instant: a 10 s poll meets the
// moment between them only by chance). CONDs: lastScheduleTime (set),
// jobs|active|unfinished|completed|failed with >=N or ==N (the owned
// jobs, status.active, the jobs not Completed, Failed or Terminated, the
// Completed ones, the Failed ones), annotation (the first job's
// scheduled-timestamp annotation is RFC 3339), remember:unfinished,
// remember:completed, remember:failed, remember:finished (such a job
// exists; the first is remembered), other-job (a job not the remembered
// one exists), remembered-gone, remembered-ended (gone or finished),
// remembered-not-active (not in status.active).
func TestVolcanoE2E(t *testing.T) {
	files, err := filepath.Glob("testdata/e2e/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases in testdata/e2e: %v", err)
	}
	doc, err := os.ReadFile("../../docs/e2e.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		if !strings.Contains(string(doc), "`"+filepath.Base(path)+"`") {
			t.Errorf("docs/e2e.md does not list %s", filepath.Base(path))
		}
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) { playCron(t, path) })
	}
}

// instant is the played cluster after a sync.
type instant struct {
	at     time.Time
	status vcjob.CronJobStatus
	jobs   []*vcjob.Job
}

func playCron(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := scenario.ParseFile(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, need := range []string{"case", "cronjob.yaml", "flags", "expect"} {
		if _, ok := f.Sections[need]; !ok {
			t.Fatalf("no -- %s -- section", need)
		}
	}
	manifest := filepath.Join(t.TempDir(), "cronjob.yaml")
	if err := os.WriteFile(manifest, []byte(f.Sections["cronjob.yaml"]), 0o600); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-cronjob", manifest}, strings.Fields(f.Sections["flags"])...)
	opts, err := parseFlags(args, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	var states []instant
	var out, errOut bytes.Buffer
	err = runWatched(args, &out, &errOut, func(at time.Time, st vcjob.CronJobStatus, jobs []*vcjob.Job) {
		states = append(states, instant{at, st, jobs})
	})
	if err != nil {
		t.Fatalf("%v (%s)", err, errOut.String())
	}
	body := strings.Replace(out.String(), manifest, "cronjob.yaml", 1)
	if *rewrite {
		writeCron(t, path, f, body)
	} else if want := f.Sections["transcript"]; body != want {
		t.Errorf("transcript differs (go test ./cmd/cron -rewrite to accept):\ngot:\n%s", body)
	}
	w := &window{states: states, cursor: opts.from}
	for i, line := range strings.Split(f.Sections["expect"], "\n") {
		if text := strings.TrimSpace(strings.Split(line, "#")[0]); text != "" {
			if err := w.check(text); err != nil {
				t.Errorf("expect line %d %q: %v", i+1, text, err)
			}
		}
	}
	nm := &window{states: states, cursor: opts.from}
	for i, line := range strings.Split(f.Sections["not met"], "\n") {
		if text := strings.TrimSpace(strings.Split(line, "#")[0]); text != "" {
			if err := nm.check(text); err == nil {
				t.Errorf("-- not met -- line %d %q holds now: move it to -- expect -- and say so in docs/e2e.md", i+1, text)
			} else {
				t.Logf("not met, as the file says: %q: %v", text, err)
			}
		}
	}
}

func writeCron(t *testing.T, path string, f *scenario.File, transcript string) {
	var b strings.Builder
	for _, name := range f.Order {
		if name != "transcript" {
			fmt.Fprintf(&b, "-- %s --\n%s", name, f.Sections[name])
		}
	}
	fmt.Fprintf(&b, "-- transcript --\n%s", transcript)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// window checks expectations on the played instants.
type window struct {
	states     []instant
	cursor     time.Time
	remembered *vcjob.Job
}

func (w *window) check(text string) error {
	f := strings.Fields(text)
	if len(f) < 3 || (f[0] != "eventually" && f[0] != "consistently") {
		return fmt.Errorf("want eventually|consistently DURATION COND...")
	}
	d, err := time.ParseDuration(f[1])
	if err != nil {
		return err
	}
	conds := f[2:]
	end := w.cursor.Add(d)
	for _, s := range w.during(w.cursor, end) {
		err := w.holds(s, conds)
		switch {
		case f[0] == "eventually" && err == nil:
			w.cursor = maxTime(w.cursor, s.at)
			w.remember(s, conds)
			return nil
		case f[0] == "consistently" && err != nil:
			return fmt.Errorf("broken at %s: %w", s.at.Format(time.TimeOnly), err)
		}
	}
	if f[0] == "eventually" {
		return fmt.Errorf("not by %s", end.Format(time.TimeOnly))
	}
	w.cursor = end
	return nil
}

// during are the instants that show from..to: the one in force at from,
// then each one after it, up to to.
func (w *window) during(from, to time.Time) []instant {
	var out []instant
	for i, s := range w.states {
		next := i+1 < len(w.states) && !w.states[i+1].at.After(from)
		if s.at.After(to) || next {
			continue
		}
		out = append(out, s)
	}
	return out
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func (w *window) holds(s instant, conds []string) error {
	for _, c := range conds {
		if err := w.cond(s, c); err != nil {
			return fmt.Errorf("%s: %w", c, err)
		}
	}
	return nil
}

func finished(j *vcjob.Job) bool {
	p := j.Status.State.Phase
	return p == vcjob.Completed || p == vcjob.Failed || p == vcjob.Terminated
}

// count reads one of the counted CONDs.
func count(s instant, what string) (int, bool) {
	n := 0
	switch what {
	case "jobs":
		return len(s.jobs), true
	case "active":
		return len(s.status.Active), true
	case "unfinished", "completed", "failed":
		for _, j := range s.jobs {
			switch {
			case what == "unfinished" && !finished(j), what == "completed" && j.Status.State.Phase == vcjob.Completed,
				what == "failed" && j.Status.State.Phase == vcjob.Failed:
				n++
			}
		}
		return n, true
	}
	return 0, false
}

func (w *window) cond(s instant, c string) error {
	for _, op := range []string{">=", "=="} {
		if what, v, ok := strings.Cut(c, op); ok {
			want, err := strconv.Atoi(v)
			got, known := count(s, what)
			if err != nil || !known {
				return fmt.Errorf("unknown condition")
			}
			if (op == ">=" && got < want) || (op == "==" && got != want) {
				return fmt.Errorf("%d", got)
			}
			return nil
		}
	}
	switch c {
	case "lastScheduleTime":
		if s.status.LastScheduleTime == nil {
			return fmt.Errorf("not set")
		}
	case "annotation":
		if len(s.jobs) == 0 {
			return fmt.Errorf("no job")
		}
		a := byCreation(s.jobs)[0].Annotations[vcjob.CronJobScheduledTimeKey]
		if _, err := time.Parse(time.RFC3339, a); err != nil {
			return fmt.Errorf("%q: %w", a, err)
		}
	case "remember:unfinished", "remember:completed", "remember:failed", "remember:finished":
		if w.pick(s, c) == nil {
			return fmt.Errorf("no such job")
		}
	default:
		return w.rememberedCond(s, c)
	}
	return nil
}

func (w *window) rememberedCond(s instant, c string) error {
	r := w.remembered
	if r == nil {
		return fmt.Errorf("no job remembered")
	}
	var listed *vcjob.Job
	for _, j := range s.jobs {
		if j.Name == r.Name {
			listed = j
		}
	}
	switch c {
	case "other-job":
		for _, j := range s.jobs {
			if j.Name != r.Name {
				return nil
			}
		}
		return fmt.Errorf("only %s", r.Name)
	case "remembered-gone":
		if listed != nil {
			return fmt.Errorf("%s is listed (%s)", r.Name, listed.Status.State.Phase)
		}
	case "remembered-ended":
		if listed != nil && !finished(listed) {
			return fmt.Errorf("%s is %s", r.Name, listed.Status.State.Phase)
		}
	case "remembered-not-active":
		for _, a := range s.status.Active {
			if a.UID == r.UID {
				return fmt.Errorf("%s is in status.active", r.Name)
			}
		}
	default:
		return fmt.Errorf("unknown condition")
	}
	return nil
}

// pick is the first job (by creation) of the kind a remember: names.
func (w *window) pick(s instant, c string) *vcjob.Job {
	for _, j := range byCreation(s.jobs) {
		p := j.Status.State.Phase
		switch c {
		case "remember:unfinished":
			if !finished(j) {
				return j
			}
		case "remember:completed":
			if p == vcjob.Completed {
				return j
			}
		case "remember:failed":
			if p == vcjob.Failed {
				return j
			}
		case "remember:finished":
			if finished(j) {
				return j
			}
		}
	}
	return nil
}

func (w *window) remember(s instant, conds []string) {
	for _, c := range conds {
		if strings.HasPrefix(c, "remember:") {
			w.remembered = w.pick(s, c)
		}
	}
}

func byCreation(jobs []*vcjob.Job) []*vcjob.Job {
	out := append([]*vcjob.Job(nil), jobs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreationTimestamp.Before(&out[j].CreationTimestamp) })
	return out
}
