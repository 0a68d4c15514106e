package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/lint"
	"github.com/vcjob/vcjob/manifest"
	"github.com/vcjob/vcjob/plugins"
	"github.com/vcjob/vcjob/validation"
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
	File     string `json:"file"`
	Document int    `json:"document"`
	// Kind is Job or CronJob; for a CronJob, Job names the cronjob and
	// Findings, Defaults and Explain are about its job template.
	Kind     string         `json:"kind"`
	Job      string         `json:"job"`
	Dropped  []string       `json:"dropped,omitempty"`
	Defaults []string       `json:"defaults,omitempty"`
	Invalid  []string       `json:"invalid,omitempty"`
	Findings []lint.Finding `json:"findings"`
	// PluginWarnings are plugin arguments Volcano's controller logs and
	// goes past on every sync (the flags after them are not read).
	PluginWarnings []string    `json:"pluginWarnings,omitempty"`
	Explain        *lint.Table `json:"explain,omitempty"`
	// Differences are where the -semantics profile decides otherwise than
	// Volcano (lint.Compare).
	Differences []lint.Difference `json:"differences,omitempty"`
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lint", flag.ContinueOnError)
	fs.SetOutput(stderr)
	output := fs.String("o", "text", "output: text, or json (one object per job)")
	explain := fs.Bool("explain", true, "print the explain table: what each event resolves to")
	lenient := fs.Bool("allow-unknown-fields", false, "drop fields the Job and CronJob types do not know, as an API server with Volcano's CRD does, and list them, instead of refusing the document")
	profile := fs.String("semantics", "", "also list where this semantics profile (corrected, or corrections by name) decides otherwise than Volcano")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: lint [-o text|json] [-explain=false] [-allow-unknown-fields] FILE.yaml...\n\n")
		fmt.Fprintf(stderr, "Each file holds Jobs and CronJobs (batch.volcano.sh/v1alpha1), \"---\" separated.\n\n")
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "\nfinding codes:\n")
		for _, c := range lint.Checks() {
			fmt.Fprintf(stderr, "  %-33s %-7s %s\n", c.Code, c.Severity, c.Summary)
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitInput
	}
	if fs.NArg() == 0 || (*output != "text" && *output != "json") {
		fs.Usage()
		return exitInput
	}
	sem, err := behavior.Parse(behavior.Set{}, *profile)
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
	enc.SetEscapeHTML(false) // "->" stays readable
	for _, path := range fs.Args() {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "lint: %v\n", err)
			worse(exitInput)
			continue
		}
		reports, errs := lintFile(path, data, *explain, *lenient, sem)
		for _, err := range errs {
			fmt.Fprintf(stderr, "lint: %v\n", err)
			worse(exitInput)
		}
		for _, r := range reports {
			switch {
			case len(r.Invalid) > 0:
				worse(exitInput)
			case lint.HasErrors(r.Findings):
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

// displayName is how a report names an object: namespace/name, the name
// alone when the manifest sets no namespace (kubectl fills in its
// context's), and generateName followed by "…" when the API server is to
// make the name up.
func displayName(meta metav1.ObjectMeta) string {
	name := meta.Name
	switch {
	case name == "" && meta.GenerateName != "":
		name = meta.GenerateName + "… (generateName)"
	case name == "":
		name = "(no name)"
	}
	if meta.Namespace == "" {
		return name
	}
	return meta.Namespace + "/" + name
}

// lintFile lints every document of a file: a report per job or cronjob,
// and an error per document that cannot be decoded.
func lintFile(path string, data []byte, explain, lenient bool, sem behavior.Set) ([]report, []error) {
	var reports []report
	var errs []error
	docs := splitDocuments(data)
	n := 0
	for _, d := range docs {
		kind, empty := kindOf(d.data)
		if empty {
			continue
		}
		n++
		var r report
		var err error
		switch kind {
		case vcjob.CronJobKind:
			r, err = lintCronJob(d.data, d.line, explain, lenient)
		default: // a Job, or an error naming what it is instead
			r, err = lintJobDocument(d.data, d.line, explain, lenient, sem)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", path, err))
			continue
		}
		r.File, r.Document = path, n
		reports = append(reports, r)
	}
	if n == 0 {
		errs = append(errs, fmt.Errorf("%s: %w", path, manifest.ErrEmpty))
	}
	return reports, errs
}

func lintJobDocument(doc []byte, first int, explain, lenient bool, sem behavior.Set) (report, error) {
	job, err := manifest.DecodeJobWith(doc, manifest.Options{FirstLine: first})
	var dropped []string
	if err != nil && lenient {
		dropped = unknownFields(err)
		job, err = manifest.DecodeJobWith(doc, manifest.Options{AllowUnknownFields: true, FirstLine: first})
	}
	if err != nil {
		return report{}, hintLenient(err, lenient)
	}
	r := lintJob(job, explain, field.NewPath("spec"))
	r.Kind, r.Job, r.Dropped = vcjob.JobKind, displayName(job.ObjectMeta), dropped
	r.Differences = lint.Compare(job, sem)
	return r, nil
}

// lintCronJob validates the defaulted cronjob and lints its job template
// as the Job each run creates (named after the cronjob here).
func lintCronJob(doc []byte, first int, explain, lenient bool) (report, error) {
	cj, err := manifest.DecodeCronJobWith(doc, manifest.Options{FirstLine: first})
	var dropped []string
	if err != nil && lenient {
		dropped = unknownFields(err)
		cj, err = manifest.DecodeCronJobWith(doc, manifest.Options{AllowUnknownFields: true, FirstLine: first})
	}
	if err != nil {
		return report{}, hintLenient(err, lenient)
	}
	job := &vcjob.Job{ObjectMeta: cj.Spec.JobTemplate.ObjectMeta, Spec: *cj.Spec.JobTemplate.Spec.DeepCopy()}
	job.Name, job.Namespace = cj.Name, cj.Namespace
	r := lintJob(job, explain, field.NewPath("spec", "jobTemplate", "spec"))
	r.Kind, r.Job, r.Dropped = vcjob.CronJobKind, displayName(cj.ObjectMeta), dropped
	// The CronJob's own findings; those of its template are above.
	for _, f := range lint.LintCronJob(cj) {
		switch f.Code {
		case lint.CodeCronScheduleNeverFires, lint.CodeCronJobTemplateInvalid, lint.CodeCronTimeZoneUnset, lint.CodeCronForbidAbortedRun:
			r.Findings = append(r.Findings, f)
		}
	}
	// The cronjob's own validation covers the template as well.
	defaulted := cj.DeepCopy()
	vcjob.SetCronJobDefaults(defaulted)
	r.Invalid = nil
	for _, e := range validation.ValidateCronJob(defaulted) {
		r.Invalid = append(r.Invalid, e.Error())
	}
	return r, nil
}

// hintLenient points a strict decoding error at -allow-unknown-fields.
func hintLenient(err error, lenient bool) error {
	if !lenient && len(unknownFields(err)) > 0 {
		return fmt.Errorf("%w\n  (an API server with Volcano's CRD drops unknown fields silently; -allow-unknown-fields does the same)", err)
	}
	return err
}

// unknownFields lists the fields a strict decoding error names, for the
// report of what -allow-unknown-fields dropped.
func unknownFields(err error) []string {
	var de *manifest.Error
	if errors.As(err, &de) {
		return de.UnknownFields()
	}
	return nil
}

// lint lints the job as written, lists and validates its defaults, and
// explains the defaulted job. spec is where the job's spec sits in the
// document: finding and default paths are rewritten to start there.
func lintJob(job *vcjob.Job, explain bool, spec *field.Path) report {
	r := report{Findings: lint.Lint(job)}
	if r.Findings == nil {
		r.Findings = []lint.Finding{}
	}
	for i := range r.Findings {
		r.Findings[i].Path = rebase(r.Findings[i].Path, spec)
	}
	defaulted := job.DeepCopy()
	vcjob.SetDefaults(defaulted)
	for _, d := range lint.DefaultsApplied(job, defaulted) {
		r.Defaults = append(r.Defaults, rebase(d, spec))
	}
	for _, e := range validation.ValidateJob(defaulted) {
		e.Field = rebase(e.Field, spec)
		r.Invalid = append(r.Invalid, e.Error())
	}
	// The keys are never used: only the arguments are read.
	if _, warnings, err := plugins.NewRegistry(plugins.WithSSHKeys(plugins.TestKeySource())).BuildAll(defaulted); err == nil {
		for _, w := range warnings {
			r.PluginWarnings = append(r.PluginWarnings, w.Error())
		}
	}
	if explain {
		t := lint.Explain(defaulted)
		r.Explain = &t
	}
	return r
}

// rebase moves a path that starts at "spec" to start at spec.
func rebase(path string, spec *field.Path) string {
	if rest, ok := strings.CutPrefix(path, "spec"); ok && spec.String() != "spec" {
		return spec.String() + rest
	}
	return path
}

// A document is one "---" separated part of a file and the line it starts
// on.
type document struct {
	line int
	data []byte
}

// splitDocuments cuts a YAML stream at its "---" lines (the decoders
// report a bad separator themselves, as the first document's error).
func splitDocuments(data []byte) []document {
	var docs []document
	start, startLine := 0, 1
	lines := strings.SplitAfter(string(data), "\n")
	pos := 0
	for i, line := range lines {
		trimmed := strings.TrimRight(line, " \t\r\n")
		if trimmed == "---" || strings.HasPrefix(trimmed, "--- #") {
			docs = append(docs, document{line: startLine, data: data[start:pos]})
			start, startLine = pos+len(line), i+2
		}
		pos += len(line)
	}
	return append(docs, document{line: startLine, data: data[start:]})
}

// kindOf reads a document's kind leniently, to pick its decoder; empty
// says the document holds nothing (comments, blank lines).
func kindOf(doc []byte) (kind string, empty bool) {
	var meta struct {
		Kind string `json:"kind"`
	}
	var anything any
	if err := yaml.Unmarshal(doc, &anything); err == nil && anything == nil {
		return "", true
	}
	_ = yaml.Unmarshal(doc, &meta)
	return meta.Kind, false
}

func printText(w io.Writer, r report) {
	if r.Kind == vcjob.CronJobKind {
		fmt.Fprintf(w, "%s: cronjob %s (document %d), its job template as written\n", r.File, r.Job, r.Document)
	} else {
		fmt.Fprintf(w, "%s: job %s (document %d), as written\n", r.File, r.Job, r.Document)
	}
	if len(r.Dropped) > 0 {
		fmt.Fprintf(w, "  dropped unknown fields (-allow-unknown-fields): %s\n", strings.Join(r.Dropped, ", "))
	}
	if len(r.Defaults) > 0 {
		fmt.Fprintf(w, "  Volcano's webhook defaults: %s\n", strings.Join(r.Defaults, "; "))
	}
	if len(r.Invalid) > 0 {
		fmt.Fprintf(w, "  refused by Volcano's admission (the API server would not store it):\n")
		for _, e := range r.Invalid {
			fmt.Fprintf(w, "    %s\n", e)
		}
	}
	for _, e := range r.PluginWarnings {
		fmt.Fprintf(w, "  plugin argument ignored (Volcano logs it and reads no flag after it): %s\n", e)
	}
	switch {
	case len(r.Findings) == 0 && len(r.Invalid) > 0:
		fmt.Fprintf(w, "  lint: no findings besides the refusal\n")
	case len(r.Findings) == 0:
		fmt.Fprintf(w, "  lint: no findings\n")
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
