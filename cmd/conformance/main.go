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
	via := flag.String("via", string(Direct), "replay job steps through: direct (policy + state machine) or step (cache + worker step); multi-step scenarios always go through the step")
	recount := flag.Bool("recount", false, "plan by walking every pod (the oracle) instead of reading the kept counts")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: conformance [-v] [-areas] [-via direct|step] [-recount] FILE.jsonl...\n\n"+
			"A file holds job-controller steps (FORMAT.md, FORMAT-v2.md, FORMAT-v3.md), multi-step\n"+
			"scenarios (FORMAT-steps.md), CronJob syncs (FORMAT-cron.md) or garbage-collector\n"+
			"decisions (FORMAT-ttl.md), told from its first line; .gz files are read compressed.\n\n")
		flag.PrintDefaults()
	}
	byArea := flag.Bool("areas", false, "print how many cases each compared area gets right (v2, v3, multi-step, CronJob and TTL cases)")
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
	line, refusals := 0, 0
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
		if err := c.decodeExpectations(); err != nil {
			return passed, failed, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if c.refused() {
			refusals++
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
			for _, alt := range c.alternatives {
				if diff == "" {
					break
				}
				if d, _ := diffV2(&c, alt, got, got.input, got.written); d == "" {
					diff, failedAreas = "", nil
				}
			}
			if tally != nil {
				tally.add(failedAreas...)
			}
		default:
			diff = Diff(c.Expect, got)
			for _, alt := range c.alternatives {
				if diff != "" && Diff(alt, got) == "" {
					diff = ""
				}
			}
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
	if refusals > 0 {
		// Admission is not replayed: the controller's steps are compared
		// as if the job had been stored anyway.
		fmt.Fprintf(out, "%s: webhook refusals recorded: %d\n", path, refusals)
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

// decodeExpectations reads the recorded created pods of expect and of
// each alternative, strictly: names, labels and annotations in v1, whole
// pods in v2.
func (c *Case) decodeExpectations() error {
	if err := c.Expect.decodeCreated(c.V2()); err != nil {
		return err
	}
	c.alternatives = nil
	for i, raw := range c.ExpectAlternatives {
		var e Expect
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return fmt.Errorf("expectAlternatives[%d]: %w", i, err)
		}
		if err := e.decodeCreated(c.V2()); err != nil {
			return fmt.Errorf("expectAlternatives[%d]: %w", i, err)
		}
		c.alternatives = append(c.alternatives, e)
	}
	return nil
}

// decodeCreated reads the recorded created pods: names, labels and
// annotations in v1 (strictly), whole pods in v2.
func (e *Expect) decodeCreated(v2 bool) error {
	e.CreatedPods = []PodMeta{}
	for i, raw := range e.RawCreatedPods {
		var m PodMeta
		if v2 {
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
		e.CreatedPods = append(e.CreatedPods, m)
	}
	return nil
}
