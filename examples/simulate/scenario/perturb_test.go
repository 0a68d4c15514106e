package scenario

import (
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vcjob/vcjob/perturb"
	"github.com/vcjob/vcjob/semantics"
)

var perturbAll = flag.Bool("perturb.all", false, "perturb every scenario file under every crash point, lag and skippable state (and 1,000 rapidgen scenarios)")

// perturbScenario is a scenario file ready to play.
type perturbScenario struct {
	name   string
	job    string
	script []Command
	opts   Options
}

// perturbScenarios are the scenario files under testdata and its folders
// that run through (those pinning an error are left out).
func perturbScenarios(t testing.TB) []perturbScenario {
	var out []perturbScenario
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".txt") {
			return err
		}
		s, err := readScenario(path)
		if err != nil {
			return err
		}
		if _, ok := s.sections["error"]; ok {
			return nil
		}
		script, err := Parse(strings.NewReader(s.sections["script"]))
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.ToSlash(path), "testdata/"), ".txt")
		out = append(out, perturbScenario{name: name, job: s.sections["job.yaml"], script: script,
			opts: Options{Claims: strings.Fields(s.sections["claims"])}})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// play runs one scenario under plan and returns the run.
func (ps perturbScenario) play(plan perturb.Plan, sem semantics.Profile) (*perturb.Run, Perturbed, error) {
	job, err := Load([]byte(ps.job), "")
	if err != nil {
		return nil, Perturbed{}, err
	}
	opts := ps.opts
	opts.Semantics = sem
	run := perturb.NewRun(plan)
	res, err := Perturb(job, ps.script, opts, run)
	return run, res, err
}

// finding is one violation seen: a scenario, a plan kind, a check.
type finding struct {
	scenario string
	kind     perturb.Kind
	check    perturb.Check
}

func TestPerturbScenarios(t *testing.T) {
	start := time.Now()
	scenarios := perturbScenarios(t)
	const perKind = 2 // sampled runs per plan kind and scenario
	r := rand.New(rand.NewPCG(27, 1))
	runs := map[perturb.Kind]int{}
	distinct := map[perturb.Kind]int{}
	found := map[finding][]string{}
	for _, ps := range scenarios {
		base, baseRes, err := ps.play(perturb.Plan{Kind: perturb.None}, semantics.Profile{})
		if err != nil {
			t.Errorf("%s: %v", ps.name, err)
			continue
		}
		for _, v := range base.Violations() {
			f := finding{ps.name, perturb.None, v.Check}
			found[f] = append(found[f], v.Detail)
		}
		plans := perturb.Plans(base.Counts())
		if !*perturbAll {
			plans = perturb.Sample(plans, perKind, r)
		}
		for _, plan := range plans {
			run, res, err := ps.play(plan, semantics.Profile{})
			if err != nil {
				t.Errorf("%s %s: %v", ps.name, plan, err)
				continue
			}
			runs[plan.Kind]++
			if plan.Kind == perturb.Stale && run.Lagged != plan.Lag {
				continue // the same run as a smaller lag's
			}
			distinct[plan.Kind]++
			run.Compare(res.Final, baseRes.Final)
			for _, v := range run.Violations() {
				f := finding{ps.name, plan.Kind, v.Check}
				found[f] = append(found[f], plan.String()+": "+v.Detail)
			}
		}
	}
	var keys []finding
	for f := range found {
		keys = append(keys, f)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.scenario != b.scenario {
			return a.scenario < b.scenario
		}
		if a.kind != b.kind {
			return a.kind < b.kind
		}
		return a.check < b.check
	})
	for _, f := range keys {
		t.Logf("%s | %s | %s | %d | %s", f.scenario, f.kind, f.check, len(found[f]), found[f][0])
	}
	t.Logf("%d scenarios; runs %v; distinct %v; %d findings; %s", len(scenarios), runs, distinct, len(keys), time.Since(start).Round(time.Millisecond))
}

// TestPerturbDebug prints the transcript of one perturbed run:
// go test -run TestPerturbDebug -perturb.debug 'SCENARIO|KIND|AT|LAG'.
var perturbDebug = flag.String("perturb.debug", "", "print the transcript of one perturbed run: SCENARIO|KIND|AT|LAG")

func TestPerturbDebug(t *testing.T) {
	if *perturbDebug == "" {
		t.Skip("no -perturb.debug")
	}
	f := strings.Split(*perturbDebug, "|")
	var plan perturb.Plan
	plan.Kind = perturb.Kind(f[1])
	fmt.Sscan(f[2], &plan.At)
	if len(f) > 3 {
		fmt.Sscan(f[3], &plan.Lag)
	}
	for _, ps := range perturbScenarios(t) {
		if ps.name != f[0] {
			continue
		}
		job, err := Load([]byte(ps.job), "")
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		run := perturb.NewRun(plan)
		res, err := PerturbObserved(job, ps.script, ps.opts, run, NewText(&b))
		t.Logf("%s\n%+v %v %v", b.String(), res, err, run.Violations())
	}
}
