// Command simulate answers "what will Volcano do to my job if…": it runs a
// job through a scenario on an in-memory cluster with the real pipeline
// (event derivation, cache, policies, delayed actions, the state machine)
// and a fake clock, and prints every decision.
//
//	go run ./examples/simulate -job JOB.yaml SCENARIO
//	go run ./examples/simulate -job JOB.yaml -o json SCENARIO
//
// Run it with -help for the scenario commands.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"
)

func main() {
	jobPath := flag.String("job", "", "the job manifest (YAML or JSON)")
	output := flag.String("o", "text", "output: text or json (JSON Lines)")
	semantics := flag.String("semantics", "volcano", "the semantics profile: volcano, corrected, or corrections by name, comma-separated (vcjob.ParseSemantics)")
	compare := flag.Bool("compare", false, "run the scenario under Volcano's semantics and under -semantics (corrected when volcano), and print where they first diverge")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: simulate -job JOB.yaml [-o json] [-semantics corrected] [-compare] SCENARIO\n\n")
		flag.PrintDefaults()
		fmt.Fprintf(flag.CommandLine.Output(), "\n%s\n", usage)
	}
	flag.Parse()
	if *jobPath == "" || flag.NArg() != 1 || (*output != "text" && *output != "json") {
		flag.Usage()
		os.Exit(2)
	}
	sem, err := vcjob.ParseSemantics(vcjob.Semantics{}, *semantics)
	if err != nil {
		fmt.Fprintln(os.Stderr, "simulate:", err)
		os.Exit(2)
	}
	if *compare {
		if sem.IsVolcano() {
			sem = vcjob.Corrected()
		}
		err = compareFiles(*jobPath, flag.Arg(0), sem, os.Stdout)
	} else {
		err = runFilesWith(*jobPath, flag.Arg(0), *output, sem, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "simulate:", err)
		os.Exit(1)
	}
}

func runFiles(jobPath, scenarioPath, output string, w io.Writer) error {
	return runFilesWith(jobPath, scenarioPath, output, vcjob.Semantics{}, w)
}

func runFilesWith(jobPath, scenarioPath, output string, sem vcjob.Semantics, w io.Writer) error {
	manifest, err := os.ReadFile(jobPath)
	if err != nil {
		return err
	}
	f, err := os.Open(scenarioPath)
	if err != nil {
		return err
	}
	defer f.Close()
	script, err := parseScript(f)
	if err != nil {
		return fmt.Errorf("%s: %w", scenarioPath, err)
	}
	var t transcript = textTranscript{w}
	if output == "json" {
		t = newJSONTranscript(w)
	}
	return simulateWith(manifest, script, t, sem)
}

// simulate decodes, defaults and validates the job, then runs the script.
func simulate(manifest []byte, script []command, t transcript) error {
	return simulateWith(manifest, script, t, vcjob.Semantics{})
}

// simulateWith is simulate under the semantics sem.
func simulateWith(manifest []byte, script []command, t transcript, sem vcjob.Semantics) error {
	job, err := vcjob.DecodeJob(manifest)
	if err != nil {
		return err
	}
	vcjob.SetDefaults(job)
	if errs := vcjob.ValidateJob(job); len(errs) > 0 {
		return fmt.Errorf("invalid job: %w", errs.ToAggregate())
	}
	if job.CreationTimestamp.IsZero() {
		// The API server stamps it; a deadline counts from it.
		job.CreationTimestamp = metav1.NewTime(start)
	}
	if job.UID == "" {
		// A manifest has no UID yet; the API server would give it one.
		job.UID = types.UID("uid-" + job.Name)
	}
	s, err := newSimWith(job, t, sem)
	if err != nil {
		return err
	}
	for _, c := range script {
		if err := s.run(c); err != nil {
			return err
		}
	}
	t.end(s.summary())
	return nil
}
