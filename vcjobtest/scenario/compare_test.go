package scenario

import (
	"strings"
	"testing"

	"github.com/vcjob/vcjob/behavior"
)

// Compare under Volcano's own semantics compares with the corrected
// ones, as the simulator's -compare with no -semantics does: Volcano
// against itself would show nothing.
func TestCompareVolcanoMeansCorrected(t *testing.T) {
	s, err := readScenario("testdata/semantics/abort-while-restarting.txt")
	if err != nil {
		t.Fatal(err)
	}
	script, err := Parse(strings.NewReader(s.sections["script"]))
	if err != nil {
		t.Fatal(err)
	}
	job, err := Load([]byte(s.sections["job.yaml"]), "")
	if err != nil {
		t.Fatal(err)
	}
	got, want := Compare(job, script, behavior.Set{}), Compare(job, script, behavior.Corrected())
	if got != want {
		t.Errorf("Compare under Volcano's semantics:\n%s\nwant the report against the corrected ones:\n%s", got, want)
	}
	if !strings.Contains(got, "== corrected\n") {
		t.Errorf("no corrected transcript in:\n%s", got)
	}
}
