package scenario

import (
	"flag"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/vcjobtest/perturb"
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
func (ps perturbScenario) play(plan perturb.Plan, sem behavior.Set) (*perturb.Run, Perturbed, error) {
	job, err := Load([]byte(ps.job), "")
	if err != nil {
		return nil, Perturbed{}, err
	}
	opts := ps.opts
	opts.Behavior = sem
	run := perturb.NewRun(plan)
	res, err := Perturb(job, ps.script, opts, run)
	return run, res, err
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
