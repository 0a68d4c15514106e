package scenario

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/vcjobtest/perturb"
	"github.com/vcjob/vcjob/vcjobtest/rapidgen"
)

var perturbRewrite = flag.Bool("perturb.rewrite", false, "rewrite testdata/perturbation.md from the findings (with -perturb.all)")

// perturbTable is the table of Volcano's behaviours under perturbation.
const perturbTable = "testdata/perturbation.md"

// The sample a plain go test plays: runs per plan kind and scenario file,
// rapidgen scenarios and their runs per kind; -perturb.all plays every
// run of every scenario file and of allScripts scripts.
const (
	samplePerKind  = 2
	sampleScripts  = 20
	allScripts     = 1000
	scriptSeedBase = 27_000
)

// source is a scenario the harness plays: a scenario file or a rapidgen
// script.
type source struct {
	name string
	play func(perturb.Plan, behavior.Set) (*perturb.Run, perturb.Final, error)
}

// group is the table's name for the source: the file, or "rapidgen" for
// every generated script.
func (s source) group() string {
	if strings.HasPrefix(s.name, "rapidgen/") {
		return "rapidgen"
	}
	return s.name
}

func fileSource(ps perturbScenario) source {
	return source{name: ps.name, play: func(plan perturb.Plan, sem behavior.Set) (*perturb.Run, perturb.Final, error) {
		run, res, err := ps.play(plan, sem)
		return run, res.Final, err
	}}
}

func scriptSource(seed int) source {
	sc := rapidgen.Scenario().Example(seed)
	return source{name: fmt.Sprintf("rapidgen/%d", seed), play: func(plan perturb.Plan, sem behavior.Set) (*perturb.Run, perturb.Final, error) {
		return perturb.PlayScript(sc, plan, sem)
	}}
}

// row is one line of the table: a behaviour, where it shows first, and
// the correction that makes it go (a correction's name, "corrected" for
// behavior.Corrected() only, or "none").
type row struct {
	source     string
	plan       perturb.Plan
	check      perturb.Check
	what       string
	correction string
}

func (r row) key() string {
	g := r.source
	if strings.HasPrefix(g, "rapidgen/") {
		g = "rapidgen"
	}
	return g + "|" + string(r.plan.Kind) + "|" + string(r.check)
}

// readTable reads the table's rows: | scenario | plan | check | what
// happens | correction |.
func readTable(t *testing.T) []row {
	f, err := os.Open(perturbTable)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []row
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| scenario") || strings.HasPrefix(line, "|---") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 5 {
			t.Fatalf("%s: want 5 cells: %s", perturbTable, line)
		}
		for i := range cells {
			cells[i] = strings.Trim(strings.TrimSpace(cells[i]), "`")
		}
		plan, err := parsePlan(cells[1])
		if err != nil {
			t.Fatalf("%s: %v", perturbTable, err)
		}
		rows = append(rows, row{source: cells[0], plan: plan, check: perturb.Check(cells[2]), what: cells[3], correction: cells[4]})
	}
	return rows
}

// planCell is a plan as the table writes it: "crash 29", "stale 3 lag 1",
// "unobserved 9", "none".
func planCell(p perturb.Plan) string {
	switch p.Kind {
	case perturb.Stale:
		return fmt.Sprintf("stale %d lag %d", p.At, p.Lag)
	case perturb.None:
		return "none"
	}
	return fmt.Sprintf("%s %d", p.Kind, p.At)
}

func parsePlan(s string) (perturb.Plan, error) {
	f := strings.Fields(s)
	if len(f) == 1 && f[0] == "none" {
		return perturb.Plan{Kind: perturb.None}, nil
	}
	if len(f) < 2 {
		return perturb.Plan{}, fmt.Errorf("bad plan %q", s)
	}
	at, err := strconv.Atoi(f[1])
	if err != nil {
		return perturb.Plan{}, fmt.Errorf("bad plan %q", s)
	}
	p := perturb.Plan{Kind: perturb.Kind(f[0]), At: at}
	if p.Kind == perturb.Stale {
		if len(f) != 4 || f[2] != "lag" {
			return perturb.Plan{}, fmt.Errorf("bad plan %q", s)
		}
		if p.Lag, err = strconv.Atoi(f[3]); err != nil {
			return perturb.Plan{}, fmt.Errorf("bad plan %q", s)
		}
	}
	return p, nil
}

// judge plays plan on src under sem and returns the violations, the
// convergence judged against the unperturbed run under the same sem.
// distinct is false for a Stale run that lagged less than its plan (the
// run of a smaller lag).
func judge(src source, plan perturb.Plan, sem behavior.Set, base *perturb.Final) (vs []perturb.Violation, distinct bool, err error) {
	run, err := judged(src, plan, sem, base)
	if run == nil {
		return nil, false, err
	}
	return run.Violations(), true, nil
}

// judged is judge's run: nil with a nil error for a Stale run that is
// not distinct.
func judged(src source, plan perturb.Plan, sem behavior.Set, base *perturb.Final) (*perturb.Run, error) {
	if base == nil {
		b, final, err := src.play(perturb.Plan{Kind: perturb.None}, sem)
		if err != nil {
			return nil, err
		}
		if plan.Kind == perturb.None {
			return b, nil
		}
		base = &final
	}
	run, final, err := src.play(plan, sem)
	if err != nil {
		return nil, err
	}
	if plan.Kind == perturb.Stale && run.Lagged != plan.Lag {
		return nil, nil
	}
	run.Compare(final, *base)
	return run, nil
}

func has(vs []perturb.Violation, c perturb.Check) (string, bool) {
	for _, v := range vs {
		if v.Check == c {
			return v.Detail, true
		}
	}
	return "", false
}

// correctionFor is the first correction (registry order) under
// which the row's run no longer shows its check, else "corrected" when
// behavior.Corrected() makes it go, else "none".
func correctionFor(src source, r row) (string, error) {
	for _, id := range behavior.Corrected().Corrections() {
		sem := behavior.Of(id)
		vs, ok, err := judge(src, r.plan, sem, nil)
		if err != nil {
			// The scenario does not run under the correction (a line
			// it makes impossible): no verdict from it.
			continue
		}
		if _, still := has(vs, r.check); ok && !still {
			return id.String(), nil
		}
	}
	vs, ok, err := judge(src, r.plan, behavior.Corrected(), nil)
	if err == nil {
		if _, still := has(vs, r.check); ok && !still {
			return "corrected", nil
		}
	}
	return "none", nil
}

// checkCorrection checks a row's correction column on its run: under the
// named correction (or behavior.Corrected() for "corrected") the check
// goes; for "none" it stays under behavior.Corrected().
func checkCorrection(src source, r row) error {
	sem := behavior.Corrected()
	if r.correction != "corrected" && r.correction != "none" {
		var err error
		if sem, err = behavior.Parse(behavior.Set{}, r.correction); err != nil {
			return err
		}
	}
	vs, ok, err := judge(src, r.plan, sem, nil)
	if err != nil {
		if r.correction == "none" {
			return nil // the scenario does not run corrected: no verdict
		}
		return fmt.Errorf("under %s: %w", r.correction, err)
	}
	_, still := has(vs, r.check)
	switch {
	case r.correction == "none" && ok && !still:
		return fmt.Errorf("behavior.Corrected() makes it go, the table says none")
	case r.correction != "none" && ok && still:
		return fmt.Errorf("%s no longer makes it go", r.correction)
	}
	return nil
}

// TestPerturbation plays every scenario file and rapidgen scripts under
// the three perturbations (a seeded sample; -perturb.all plays all of
// it) and checks each violation against testdata/perturbation.md, the
// table of Volcano's own behaviours under perturbation: a violation not
// in it fails, and so does a row that no longer happens or whose
// correction no longer makes it go.
func TestPerturbation(t *testing.T) {
	start := time.Now()
	rows := readTable(t)
	known := map[string]row{}
	for _, r := range rows {
		if _, dup := known[r.key()]; dup {
			t.Errorf("%s: two rows for %s", perturbTable, r.key())
		}
		known[r.key()] = r
	}
	var sources []source
	for _, ps := range perturbScenarios(t) {
		sources = append(sources, fileSource(ps))
	}
	nScripts := sampleScripts
	if *perturbAll {
		nScripts = allScripts
	}
	for i := 0; i < nScripts; i++ {
		sources = append(sources, scriptSource(scriptSeedBase+i))
	}
	bySource := map[string]source{}
	for _, s := range sources {
		bySource[s.name] = s
	}

	rnd := rand.New(rand.NewPCG(27, 1))
	// Figures by source ("files", "rapidgen") and plan kind.
	runs := map[string]map[perturb.Kind]int{"files": {}, "rapidgen": {}}
	violations := map[string]map[perturb.Kind]int{"files": {}, "rapidgen": {}}
	played := map[string]int{}
	found := map[string]row{}
	seen := map[string]bool{}
	for _, src := range sources {
		baseRun, base, err := src.play(perturb.Plan{Kind: perturb.None}, behavior.Set{})
		if err != nil {
			t.Logf("%s: not played: the script stops under Volcano's semantics: %v", src.name, err)
			continue
		}
		fig := "files"
		if src.group() == "rapidgen" {
			fig = "rapidgen"
		}
		played[fig]++
		note := func(plan perturb.Plan, vs []perturb.Violation) {
			for _, v := range vs {
				violations[fig][plan.Kind]++
				r := row{source: src.name, plan: plan, check: v.Check, what: v.Detail}
				seen[r.key()] = true
				if _, ok := found[r.key()]; !ok {
					found[r.key()] = r
				}
			}
		}
		note(perturb.Plan{Kind: perturb.None}, baseRun.Violations())
		plans := perturb.Plans(baseRun.Counts())
		if !*perturbAll {
			// The table's rows are played where they show below.
			plans = perturb.Sample(plans, samplePerKind, rnd)
		}
		for _, plan := range plans {
			vs, distinct, err := judge(src, plan, behavior.Set{}, &base)
			if err != nil {
				t.Errorf("%s %s: %v", src.name, plan, err)
				continue
			}
			if !distinct {
				continue
			}
			runs[fig][plan.Kind]++
			note(plan, vs)
		}
	}

	// Every violation must be a row; every row must still happen.
	var unknown []row
	// corrections are the corrections the full run finds for the rows,
	// for the rewrite: a new correction may make an old row go.
	corrections := map[string]string{}
	for k, r := range found {
		if _, ok := known[k]; !ok {
			unknown = append(unknown, r)
		}
	}
	sort.Slice(unknown, func(i, j int) bool { return unknown[i].key() < unknown[j].key() })
	for _, r := range rows {
		src, ok := bySource[r.source]
		if !ok {
			if *perturbAll || !strings.HasPrefix(r.source, "rapidgen/") {
				t.Errorf("%s: row %s: no scenario %s", perturbTable, r.key(), r.source)
				continue
			}
			src = scriptSource(mustSeed(t, r.source))
		}
		if *perturbAll && !seen[r.key()] {
			t.Errorf("%s: row %s (%s) no longer happens anywhere", perturbTable, r.key(), r.what)
		}
		vs, _, err := judge(src, r.plan, behavior.Set{}, nil)
		if err != nil {
			t.Errorf("%s: row %s: %v", perturbTable, r.key(), err)
			continue
		}
		if _, ok := has(vs, r.check); !ok {
			t.Errorf("%s: row %s: %s %s no longer shows %s", perturbTable, r.key(), r.source, planCell(r.plan), r.check)
			continue
		}
		if !*perturbAll {
			// The sample checks the row's claim; the full run finds
			// the first correction that makes it go.
			if err := checkCorrection(src, r); err != nil {
				t.Errorf("%s: row %s: %v", perturbTable, r.key(), err)
			}
			continue
		}
		got, err := correctionFor(src, r)
		if err == nil {
			corrections[r.key()] = got
		}
		if err != nil {
			t.Errorf("%s: row %s: %v", perturbTable, r.key(), err)
		} else if got != r.correction {
			t.Errorf("%s: row %s: the correction that makes it go is %s, the table says %s", perturbTable, r.key(), got, r.correction)
		}
	}
	for _, r := range unknown {
		t.Errorf("not in %s: | %s | %s | %s | %s |", perturbTable, r.source, planCell(r.plan), r.check, r.what)
	}
	if *perturbRewrite {
		rewriteTable(t, rows, found, bySource, corrections)
	}
	for _, fig := range []string{"files", "rapidgen"} {
		r, v := runs[fig], violations[fig]
		t.Logf("%s: %d scenarios; runs: crash %d, stale %d, unobserved %d; violations: crash %d, stale %d, unobserved %d, unperturbed %d",
			fig, played[fig], r[perturb.Crash], r[perturb.Stale], r[perturb.Unobserved],
			v[perturb.Crash], v[perturb.Stale], v[perturb.Unobserved], v[perturb.None])
	}
	t.Logf("%d sources offered; %d behaviours, %d rows; %s", len(sources), len(found), len(rows), time.Since(start).Round(time.Second))
}

func mustSeed(t *testing.T, name string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(name, "rapidgen/"))
	if err != nil {
		t.Fatalf("%s: bad rapidgen scenario %q", perturbTable, name)
	}
	return n
}

// rewriteTable writes the table: the rows still found keep their text,
// and take the correction the run found for them (corrections, by row
// key); new ones get the violation's detail, to be explained by hand.
func rewriteTable(t *testing.T, rows []row, found map[string]row, bySource map[string]source, corrections map[string]string) {
	raw, err := os.ReadFile(perturbTable)
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(raw), "| scenario |")
	old := map[string]row{}
	for _, r := range rows {
		old[r.key()] = r
	}
	var out []row
	for k, r := range found {
		if o, ok := old[k]; ok && !strings.HasPrefix(o.what, "TODO") {
			r = o
			if c, ok := corrections[k]; ok {
				r.correction = c
			}
		} else {
			corr, err := correctionFor(bySource[r.source], r)
			if err != nil {
				t.Fatal(err)
			}
			r.correction = corr
			r.what = explain(bySource[r.source], r)
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key() < out[j].key() })
	var b strings.Builder
	b.WriteString(head)
	b.WriteString("| scenario | plan | check | what happens | correction |\n|---|---|---|---|---|\n")
	for _, r := range out {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", r.source, planCell(r.plan), r.check, r.what, r.correction)
	}
	if err := os.WriteFile(perturbTable, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// explain is a new row's text: where the plan struck, what follows from
// it for the class of run, and how the run ends.
func explain(src source, r row) string {
	run, _ := judged(src, r.plan, behavior.Set{}, nil)
	point := ""
	if run != nil {
		point = run.Point
	}
	var why string
	switch {
	case r.plan.Kind == perturb.Crash && r.correction == "finished-pods-on-add":
		why = "the crashed controller had taken the pod's finishing event off its queue; the relist adds the pod already finished, which raises PodPending, so the policy never runs"
	case r.plan.Kind == perturb.Crash && strings.HasPrefix(point, "after marking"):
		why = "the kill's out-of-sync mark is written, its deletes and status write are not; the relist's add of a marked pod raises OutOfSync, which no policy matches, so the action is never taken again"
	case r.plan.Kind == perturb.Crash && strings.HasPrefix(point, "after deleting"):
		why = "the kill's status write is never made; the new controller sees the pods go (OutOfSync, which no policy matches) and syncs, so the action's phase and retry count are lost"
	case r.plan.Kind == perturb.Crash:
		why = "what the step had decided goes with the controller; the new one syncs from the cluster as it is"
	case r.plan.Kind == perturb.Unobserved && r.correction == "finished-pods-on-add":
		why = "the relist shows the pod already finished as new (an add), which raises PodPending, so its failure or completion is never acted on"
	case r.plan.Kind == perturb.Unobserved:
		why = "the next change of the object, from the state before, raises another event than the lost state would have, so the policy that state triggers never runs"
	}
	if point != "" {
		point += ": "
	}
	out := point + why + "; " + r.what
	if run != nil && len(run.Notes()) > 0 {
		out += "; then the script cannot play " + strings.Join(run.Notes(), ", ") + " as written (no pod for it)"
	}
	return out
}
