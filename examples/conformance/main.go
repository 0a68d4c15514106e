// Command conformance replays Volcano's recorded controller steps through
// vcjob and reports every case where vcjob decides or writes differently.
//
//	go run ./examples/conformance [-v] [-areas] [-via direct|step] [-recount] FILE.jsonl...
//
// A file holds one kind of case, told from its first line: job-controller
// steps, CronJob syncs (FORMAT-cron.md: a "cronJob" key) or garbage
// collector decisions (FORMAT-ttl.md: a "fresh" key).
//
// For job-controller steps it reads v1 cases (FORMAT.md: the decision, the status, the names,
// labels and annotations of created pods), v2 cases (FORMAT-v2.md:
// every object a SyncJob writes: whole pods, plugin objects, the PodGroup
// and its minResources, claims, controlledResources, the job's spec
// written back) and v3 cases (FORMAT-v3.md: v2 and the Kubernetes Events
// recorded) alike, and compares v2 objects after FORMAT-v2.md's
// normalisation; a pod matches any of its recorded variants. A v3 case's
// Events are compared in order: through the step, the record's Events
// must be processNextReqEvents followed by events; directly, the call's
// must be events and the decision's processNextReqEvents. With -areas it
// prints, before the last line, how many v2 and v3 cases each area gets
// right (events out of the cases that carry them).
//
// With -via step each case is loaded into a job cache and run through the
// worker's processing step (policy, delays, state machine), as a controller
// runs it; the default runs the policy and the state machine directly.
// With -recount the plans walk every pod, as Volcano's controller does,
// instead of reading the counts the job info keeps: the oracle the counted
// plans must agree with.
//
// It prints one line per mismatching case (its name, where it is and the
// first difference) and ends with "N passed, M failed". It exits 1 when a
// case fails or no case was found, and 2 when a file cannot be read or a
// line is not a case (unknown keys included).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	corev1 "k8s.io/api/core/v1"
)

func main() {
	verbose := flag.Bool("v", false, "print every case, not only failures")
	via := flag.String("via", string(Direct), "replay through: direct (policy + state machine) or step (cache + worker step)")
	recount := flag.Bool("recount", false, "plan by walking every pod (the oracle) instead of reading the kept counts")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: conformance [-v] [-areas] [-via direct|step] [-recount] FILE.jsonl...\n")
		flag.PrintDefaults()
	}
	byArea := flag.Bool("areas", false, "print how many cases each compared area gets right (v2, v3, CronJob and TTL cases)")
	flag.Parse()
	var tallies map[fileKind]*areaTally
	if *byArea {
		tallies = map[fileKind]*areaTally{}
	}
	mode := Mode(*via)
	if flag.NArg() == 0 || (mode != Direct && mode != ThroughStep) {
		flag.Usage()
		os.Exit(2)
	}
	var passed, failed int
	for _, path := range flag.Args() {
		p, f, err := runAnyFile(path, Options{Mode: mode, Recount: *recount}, os.Stdout, *verbose, tallies)
		passed += p
		failed += f
		if err != nil {
			fmt.Fprintf(os.Stderr, "conformance: %v\n", err)
			fmt.Printf("%d passed, %d failed\n", passed, failed)
			os.Exit(2)
		}
	}
	for _, kind := range fileKinds {
		if t := tallies[kind]; t != nil && t.cases > 0 {
			t.print(os.Stdout)
		}
	}
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	if failed > 0 {
		os.Exit(1)
	}
	if passed == 0 {
		fmt.Fprintln(os.Stderr, "conformance: no case in the files")
		os.Exit(1)
	}
}

// runFile replays every case of one JSON Lines file.
func runFile(path string, opts Options, out io.Writer, verbose bool, tally *areaTally) (passed, failed int, err error) {
	f, err := openVectors(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		if len(sc.Bytes()) == 0 {
			continue
		}
		// Strict: a misspelt key in a vector would otherwise leave a field
		// empty and the case quietly testing something else.
		var c Case
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			return passed, failed, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if err := c.decodeCreated(); err != nil {
			return passed, failed, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		got, err := Replay(&c, opts)
		diff := ""
		switch {
		case err != nil:
			diff = "replay: " + err.Error()
			if tally != nil && c.V2() {
				tally.add(areas...)
				for _, a := range optionalAreas {
					if c.carries(a) {
						tally.add(a)
					}
				}
			}
		case c.V2():
			var failedAreas []string
			diff, failedAreas = diffV2(&c, c.Expect, got, got.input, got.written)
			if tally != nil {
				tally.add(failedAreas...)
			}
		default:
			diff = Diff(c.Expect, got)
		}
		if tally != nil && c.V2() {
			tally.cases++
			for _, a := range optionalAreas {
				if c.carries(a) {
					tally.carried[a]++
				}
			}
		}
		if diff != "" {
			failed++
			fmt.Fprintf(out, "FAIL %s (%s:%d): %s\n", c.Name, path, line, diff)
		} else {
			passed++
			if verbose {
				fmt.Fprintf(out, "ok   %s\n", c.Name)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return passed, failed, fmt.Errorf("%s: %w", path, err)
	}
	return passed, failed, nil
}

// areaTally counts, per compared area, the cases that differ.
type areaTally struct {
	// title heads the printed counts; areas are printed in this order.
	title string
	areas []string
	cases int
	wrong map[string]int
	// carried counts, for an area only some cases are compared in (the
	// Events of v3 cases), the cases that are: its count is out of those,
	// and it is printed only when some are.
	carried map[string]int
}

func newAreaTally(title string, areas []string, optional ...string) *areaTally {
	t := &areaTally{title: title, areas: areas, wrong: map[string]int{}, carried: map[string]int{}}
	for _, a := range optional {
		t.areas = append(t.areas, a)
		t.carried[a] = 0
	}
	return t
}

func (t *areaTally) add(failed ...string) {
	for _, a := range failed {
		t.wrong[a]++
	}
}

func (t *areaTally) print(w io.Writer) {
	fmt.Fprintf(w, "%s areas (right / cases):\n", t.title)
	for _, a := range t.areas {
		n, optional := t.carried[a]
		if !optional {
			n = t.cases
		} else if n == 0 {
			continue
		}
		fmt.Fprintf(w, "  %-20s %d / %d\n", a, n-t.wrong[a], n)
	}
}

// decodeCreated reads the recorded created pods: names, labels and
// annotations in v1 (strictly), whole pods in v2.
func (c *Case) decodeCreated() error {
	c.Expect.CreatedPods = []PodMeta{}
	for i, raw := range c.Expect.RawCreatedPods {
		var m PodMeta
		if c.V2() {
			var p corev1.Pod
			if err := json.Unmarshal(raw, &p); err != nil {
				return fmt.Errorf("expect.createdPods[%d]: %w", i, err)
			}
			m = PodMeta{Name: p.Name, Labels: p.Labels, Annotations: p.Annotations}
		} else {
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&m); err != nil {
				return fmt.Errorf("expect.createdPods[%d]: %w", i, err)
			}
		}
		c.Expect.CreatedPods = append(c.Expect.CreatedPods, m)
	}
	return nil
}
