package scenario

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcjob/vcjob/behavior"
)

// Every scenario of testdata also runs under the corrected semantics
// without the pipeline failing to settle. A script written for Volcano's
// course may stop where the corrected job took another (a PodGroup a job
// that aborted no longer has): that is logged, not failed.
func TestScenariosRunCorrected(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		s, err := readScenario(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, expectsError := s.sections["error"]; expectsError {
			continue
		}
		script, err := Parse(strings.NewReader(s.sections["script"]))
		if err != nil {
			t.Fatal(err)
		}
		job, err := Load([]byte(s.sections["job.yaml"]), "")
		if err != nil {
			t.Fatal(err)
		}
		report := Compare(job, script, behavior.Corrected())
		if i := strings.Index(report, "\nerror: "); i >= 0 {
			line := strings.SplitN(report[i+1:], "\n", 2)[0]
			if strings.Contains(line, "did not settle") {
				t.Errorf("%s: under the corrected semantics: %s", path, line)
			} else {
				t.Logf("%s: the script stops under the corrected semantics: %s", path, line)
			}
		}
	}
}
