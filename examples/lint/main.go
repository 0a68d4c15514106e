// Command lint reports what Volcano will do with a job that its author
// probably does not expect, and answers "what happens if…" for every
// event: dead and shadowed policies, restarts that kill nothing, timeouts
// that never fire, completion rules that cannot be met.
//
//	go run ./examples/lint JOB.yaml...              # findings and the explain table
//	go run ./examples/lint -explain=false JOB.yaml  # findings only
//	go run ./examples/lint -o json JOB.yaml         # one JSON object per job
//
// Each file may hold several jobs ("---" separated). Lint reads each job as
// written; the fields Volcano's webhook would default are listed (and
// validated), and the explain table is computed on the defaulted job, which
// is what the controller runs.
//
// Exit status: 2 when a file cannot be read or decoded or a job is
// invalid, else 1 when any finding is an error, else 0.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/plugins"
	"github.com/vcjob/vcjob/policy"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit statuses.
const (
	exitOK      = 0
	exitFinding = 1
	exitInput   = 2
)

// report is what lint says about one job.
type report struct {
	File     string           `json:"file"`
	Document int              `json:"document"`
	Job      string           `json:"job"`
	Defaults []string         `json:"defaults,omitempty"`
	Invalid  []string         `json:"invalid,omitempty"`
	Findings []policy.Finding `json:"findings"`
	// PluginWarnings are plugin arguments Volcano's controller logs and
	// goes past on every sync (the flags after them are not read).
	PluginWarnings []string      `json:"pluginWarnings,omitempty"`
	Explain        *policy.Table `json:"explain,omitempty"`
	// Differences are where the -semantics profile decides otherwise than
	// Volcano (policy.Compare).
	Differences []policy.Difference `json:"differences,omitempty"`
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lint", flag.ContinueOnError)
	fs.SetOutput(stderr)
	output := fs.String("o", "text", "output: text, or json (one object per job)")
	explain := fs.Bool("explain", true, "print the explain table: what each event resolves to")
	semantics := fs.String("semantics", "", "also list where this semantics profile (corrected, or corrections by name) decides otherwise than Volcano")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: lint [-o text|json] [-explain=false] JOB.yaml...\n\n")
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "\nfinding codes:\n")
		for _, c := range policy.Checks() {
			fmt.Fprintf(stderr, "  %-33s %-7s %s\n", c.Code, c.Severity, c.Summary)
		}
	}
	if err := fs.Parse(args); err != nil {
		return exitInput
	}
	if fs.NArg() == 0 || (*output != "text" && *output != "json") {
		fs.Usage()
		return exitInput
	}
	sem, err := vcjob.ParseSemantics(vcjob.Semantics{}, *semantics)
	if err != nil {
		fmt.Fprintf(stderr, "lint: -semantics: %v\n", err)
		return exitInput
	}
	status := exitOK
	worse := func(s int) {
		if s == exitInput || (s == exitFinding && status == exitOK) {
			status = s
		}
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	for _, path := range fs.Args() {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "lint: %v\n", err)
			worse(exitInput)
			continue
		}
		jobs, err := vcjob.DecodeJobs(data)
		if err != nil {
			fmt.Fprintf(stderr, "lint: %s: %v\n", path, err)
			worse(exitInput)
			continue
		}
		for i, job := range jobs {
			r := lint(path, i+1, job, *explain)
			r.Differences = policy.Compare(job, sem)
			switch {
			case len(r.Invalid) > 0:
				worse(exitInput)
			case policy.HasErrors(r.Findings):
				worse(exitFinding)
			}
			if *output == "json" {
				if err := enc.Encode(r); err != nil {
					fmt.Fprintf(stderr, "lint: %v\n", err)
					return exitInput
				}
				continue
			}
			printText(stdout, r)
		}
	}
	return status
}

// lint lints the job as written, lists and validates its defaults, and
// explains the defaulted job.
func lint(file string, doc int, job *vcjob.Job, explain bool) report {
	r := report{File: file, Document: doc, Job: vcjob.JobKey(job.Namespace, job.Name), Findings: policy.Lint(job)}
	if r.Findings == nil {
		r.Findings = []policy.Finding{}
	}
	defaulted := job.DeepCopy()
	vcjob.SetDefaults(defaulted)
	r.Defaults = defaultsApplied(job, defaulted)
	for _, e := range vcjob.ValidateJob(defaulted) {
		r.Invalid = append(r.Invalid, e.Error())
	}
	// The keys are never used: only the arguments are read.
	if _, warnings, err := plugins.NewRegistry(plugins.WithSSHKeys(plugins.TestKeySource())).BuildAll(defaulted); err == nil {
		for _, w := range warnings {
			r.PluginWarnings = append(r.PluginWarnings, w.Error())
		}
	}
	if explain {
		t := policy.Explain(defaulted)
		r.Explain = &t
	}
	return r
}

// defaultsApplied lists what vcjob.SetDefaults changed, as "field: old ->
// new".
func defaultsApplied(given, d *vcjob.Job) []string {
	var out []string
	add := func(p *field.Path, old, new string) {
		if old != new {
			out = append(out, fmt.Sprintf("%s: %s -> %s", p, old, new))
		}
	}
	spec := field.NewPath("spec")
	add(spec.Child("queue"), quote(given.Spec.Queue), quote(d.Spec.Queue))
	add(spec.Child("schedulerName"), quote(given.Spec.SchedulerName), quote(d.Spec.SchedulerName))
	add(spec.Child("maxRetry"), strconv.Itoa(int(given.Spec.MaxRetry)), strconv.Itoa(int(d.Spec.MaxRetry)))
	add(spec.Child("minAvailable"), strconv.Itoa(int(given.Spec.MinAvailable)), strconv.Itoa(int(d.Spec.MinAvailable)))
	for i := range given.Spec.Tasks {
		g, dt := &given.Spec.Tasks[i], &d.Spec.Tasks[i]
		tp := spec.Child("tasks").Index(i)
		add(tp.Child("name"), quote(g.Name), quote(dt.Name))
		add(tp.Child("minAvailable"), optional(g.MinAvailable), optional(dt.MinAvailable))
		add(tp.Child("maxRetry"), strconv.Itoa(int(g.MaxRetry)), strconv.Itoa(int(dt.MaxRetry)))
		add(tp.Child("template", "spec", "dnsPolicy"), quote(string(g.Template.Spec.DNSPolicy)), quote(string(dt.Template.Spec.DNSPolicy)))
	}
	var added []string
	for name := range d.Spec.Plugins {
		if _, ok := given.Spec.Plugins[name]; !ok {
			added = append(added, name)
		}
	}
	sort.Strings(added)
	for _, name := range added {
		out = append(out, fmt.Sprintf("%s: + %s", spec.Child("plugins"), name))
	}
	return out
}

func quote(s string) string { return strconv.Quote(s) }

func optional(p *int32) string {
	if p == nil {
		return "unset"
	}
	return strconv.Itoa(int(*p))
}

func printText(w io.Writer, r report) {
	fmt.Fprintf(w, "%s: job %s (document %d), as written\n", r.File, r.Job, r.Document)
	if len(r.Defaults) > 0 {
		fmt.Fprintf(w, "  Volcano's webhook defaults: %s\n", strings.Join(r.Defaults, "; "))
	}
	for _, e := range r.Invalid {
		fmt.Fprintf(w, "  invalid: %s\n", e)
	}
	for _, e := range r.PluginWarnings {
		fmt.Fprintf(w, "  plugin argument ignored (Volcano logs it and reads no flag after it): %s\n", e)
	}
	if len(r.Findings) == 0 {
		fmt.Fprintf(w, "  no findings\n")
	}
	for _, f := range r.Findings {
		fmt.Fprintf(w, "  %-7s %s: %s [%s]\n", f.Severity, f.Path, f.Message, f.Code)
	}
	if r.Explain != nil {
		fmt.Fprintf(w, "  what each event resolves to (the defaulted job):\n")
		for _, line := range strings.Split(strings.TrimRight(r.Explain.Text(), "\n"), "\n") {
			fmt.Fprintf(w, "    %s\n", line)
		}
	}
	printDifferences(w, r)
	fmt.Fprintln(w)
}
