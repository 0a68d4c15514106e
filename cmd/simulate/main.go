package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/cmd/internal/timeline"
	"github.com/vcjob/vcjob/vcjobtest/scenario"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jobPath := fs.String("job", "", "the job manifest (YAML or JSON)")
	name := fs.String("name", "", "the job to simulate, when the manifest holds several")
	output := fs.String("o", "text", "output: text, json (JSON Lines) or html (a timeline page)")
	profile := fs.String("semantics", "volcano", "the semantics profile: volcano, corrected, or corrections by name, comma-separated (behavior.Parse)")
	compare := fs.Bool("compare", false, "run the scenario under Volcano's semantics and under -semantics (corrected when volcano), and print where they first diverge")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: simulate -job JOB.yaml [-name JOB] [-o text|json|html] [-semantics corrected] [-compare] SCENARIO\n\n")
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "\n%s\n", scenario.Usage())
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	switch {
	case *output != "text" && *output != "json" && *output != "html":
		fmt.Fprintf(stderr, "simulate: -o %s: unknown output (text, json or html)\n", *output)
		return 2
	case *jobPath == "" && fs.NArg() != 1:
		fmt.Fprintf(stderr, "simulate: a job (-job JOB.yaml) and a scenario file are needed; -help lists the scenario commands\n")
		return 2
	case *jobPath == "":
		fmt.Fprintf(stderr, "simulate: -job JOB.yaml is needed (the job to run the scenario on)\n")
		return 2
	case fs.NArg() != 1:
		fmt.Fprintf(stderr, "simulate: one scenario file is needed after the flags, got %d arguments; -help lists the scenario commands\n", fs.NArg())
		return 2
	}
	sem, err := behavior.Parse(behavior.Set{}, *profile)
	if err != nil {
		fmt.Fprintln(stderr, "simulate: -semantics:", err)
		return 2
	}
	if err := runFiles(*jobPath, *name, fs.Arg(0), *output, sem, *compare, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "simulate:", err)
		return 1
	}
	return 0
}

// runFiles reads the job before the scenario, so that a broken job is
// reported first.
func runFiles(jobPath, name, scenarioPath, output string, sem behavior.Set, compare bool, w, stderr io.Writer) error {
	manifest, err := os.ReadFile(jobPath)
	if err != nil {
		return err
	}
	job, dropped, err := scenario.LoadDropping(manifest, name)
	if len(dropped) > 0 {
		fmt.Fprintf(stderr, "simulate: %s: dropped fields the Job CRD lacks, as an API server does: %s\n", jobPath, strings.Join(dropped, ", "))
	}
	if err != nil {
		return fmt.Errorf("%s: %w", jobPath, err)
	}
	f, err := os.Open(scenarioPath)
	if err != nil {
		return err
	}
	defer f.Close()
	script, err := scenario.Parse(f)
	if err != nil {
		return fmt.Errorf("%s: %w", scenarioPath, err)
	}
	if compare {
		_, err := io.WriteString(w, scenario.Compare(job, script, sem))
		return err
	}
	opts := scenario.Options{Behavior: sem}
	switch output {
	case "json":
		return scenario.RunWith(job, script, scenario.NewJSON(w), opts)
	case "html":
		tl := timeline.New(job.Name, scenario.Start)
		runErr := scenario.RunWith(job, script, tl, opts)
		if runErr != nil {
			// Draw what happened up to the line that failed, and say so.
			tl.Fail(runErr.Error())
		}
		if err := tl.WriteHTML(w); err != nil {
			return err
		}
		return runErr
	}
	return scenario.RunWith(job, script, scenario.NewText(w), opts)
}
