package scenario

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcjob/vcjob/behavior"
)

// The scenarios of testdata/semantics each run under Volcano's semantics
// and under a correction (its -- semantics -- section, "corrected" when
// absent), and pin the report of -compare in their -- compare -- section:
// where the two first diverge, and both transcripts.
func TestSemanticsScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/semantics/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no scenarios in testdata/semantics")
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			s, err := readScenario(path)
			if err != nil {
				t.Fatal(err)
			}
			word := strings.TrimSpace(s.sections["semantics"])
			if word == "" {
				word = "corrected"
			}
			sem, err := behavior.Parse(behavior.Set{}, word)
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
			got := Compare(job, script, sem)
			if *rewrite {
				var b strings.Builder
				for _, name := range s.order {
					if name != "compare" {
						fmt.Fprintf(&b, "-- %s --\n%s", name, s.sections[name])
					}
				}
				fmt.Fprintf(&b, "-- compare --\n%s", got)
				if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if strings.HasPrefix(got, "== volcano and") {
				t.Errorf("the profiles agree: the scenario shows no correction")
			}
			if want := s.sections["compare"]; got != want {
				t.Errorf("compare differs (run go test ./vcjobtest/scenario -rewrite to accept):\n%s", lineDiff(want, got))
			}
		})
	}
}
