package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// fileKind is what a vectors file records.
type fileKind string

// The kinds of vectors file, in the order -areas prints their counts.
const (
	// jobSteps: steps of the job controller (FORMAT.md, FORMAT-v2.md,
	// FORMAT-v3.md).
	jobSteps fileKind = "job"
	// multiSteps: multi-step scenarios of the job controller with
	// delayed actions on a virtual clock (FORMAT-steps.md).
	multiSteps fileKind = "steps"
	// cronSyncs: syncs of the CronJob controller (FORMAT-cron.md).
	cronSyncs fileKind = "cronjob"
	// ttlDecisions: the garbage collector's decisions (FORMAT-ttl.md).
	ttlDecisions fileKind = "ttl"
)

var fileKinds = []fileKind{jobSteps, multiSteps, cronSyncs, ttlDecisions}

// sniffKind tells a file's kind from the keys of its first case.
func sniffKind(path string) (fileKind, error) {
	f, err := openVectors(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &keys); err != nil {
			return "", fmt.Errorf("%s: first case: %w", path, err)
		}
		switch {
		case keys["cronJob"] != nil:
			return cronSyncs, nil
		case keys["fresh"] != nil:
			return ttlDecisions, nil
		case keys["script"] != nil && keys["podGroupPhase"] != nil:
			return multiSteps, nil
		}
		return jobSteps, nil
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return jobSteps, nil
}

// runAnyFile replays a file of any kind; tallies (nil: none) collect the
// per-area counts of each kind.
func runAnyFile(path string, opts Options, out io.Writer, verbose bool, tallies map[fileKind]*areaTally) (passed, failed int, err error) {
	kind, err := sniffKind(path)
	if err != nil {
		return 0, 0, err
	}
	tally := func(title string, areas []string, optional ...string) *areaTally {
		if tallies == nil {
			return nil
		}
		if tallies[kind] == nil {
			tallies[kind] = newAreaTally(title, areas, optional...)
		}
		return tallies[kind]
	}
	switch kind {
	case cronSyncs:
		return runCronFile(path, out, verbose, tally("CronJob", cronAreas))
	case ttlDecisions:
		return runTTLFile(path, out, verbose, tally("TTL", ttlAreas))
	case multiSteps:
		return runStepsFile(path, opts, out, verbose, tally("multi-step scenario", stepsAreas))
	}
	return runFile(path, opts, out, verbose, tally("job step (v2, v3)", areas, optionalAreas...))
}
