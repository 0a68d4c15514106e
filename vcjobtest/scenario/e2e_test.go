package scenario

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcjob/vcjob/vcjobtest/scenario/expect"
)

// TestVolcanoE2E plays the translations of Volcano's own end-to-end cases
// (testdata/e2e, one file per It: the case, the job, the script of what
// the cluster does, what Volcano's test waits for, and the transcript):
// each transcript is pinned as in TestScenarios (-rewrite regenerates
// them), each expectation must hold, and each expectation the file lists
// as not met must fail, so a change that meets it shows.
func TestVolcanoE2E(t *testing.T) {
	files, err := filepath.Glob("testdata/e2e/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no cases in testdata/e2e")
	}
	doc, err := os.ReadFile("../../docs/e2e.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		if !strings.Contains(string(doc), "`"+filepath.Base(path)+"`") {
			t.Errorf("docs/e2e.md does not list %s", filepath.Base(path))
		}
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			playE2E(t, path)
		})
	}
}

func playE2E(t *testing.T, path string) {
	s, err := readScenario(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parseCase(s.sections["case"]); err != nil {
		t.Fatalf("-- case --: %v", err)
	}
	exps, err := expect.Parse(s.sections["expect"])
	if err != nil {
		t.Fatal(err)
	}
	notMet, err := expect.Parse(s.sections["not met"])
	if err != nil {
		t.Fatal(err)
	}
	if len(exps) == 0 {
		t.Fatal("no -- expect -- section, or an empty one")
	}
	script, err := Parse(strings.NewReader(s.sections["script"]))
	if err != nil {
		t.Fatal(err)
	}
	job, err := Load([]byte(s.sections["job.yaml"]), "")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	tr, _, runErr := Trace(job, script, NewText(&out), Options{Claims: strings.Fields(s.sections["claims"])})
	result, body := "transcript", out.String()
	if runErr != nil {
		result, body = "error", runErr.Error()+"\n"
	}
	if *rewrite {
		if err := s.write(result, body); err != nil {
			t.Fatal(err)
		}
	} else if want, ok := s.sections[result]; !ok {
		t.Fatalf("the simulator gave %s, the file expects otherwise:\n%s\n(run go test ./vcjobtest/scenario -rewrite to accept)", result, body)
	} else if body != want {
		t.Errorf("%s differs (run go test ./vcjobtest/scenario -rewrite to accept):\n%s", result, lineDiff(want, body))
	}
	if runErr != nil {
		t.Fatalf("the script did not run through: %v", runErr)
	}
	for _, err := range expect.Check(exps, tr) {
		t.Errorf("not met: %v", err)
	}
	for _, e := range notMet {
		if err := e.Check(tr); err == nil {
			t.Errorf("-- not met -- line %d %q holds now: move it to -- expect -- and say so in docs/e2e.md", e.Line, e.Text)
		}
	}
}

// e2eCase is a file's -- case -- section: which Volcano It it translates.
type e2eCase struct {
	Suite, ID, It, Source string
}

// parseCase reads "key: value" lines: suite, id, it, source (the
// Volcano file), all required.
func parseCase(text string) (e2eCase, error) {
	var c e2eCase
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			return c, fmt.Errorf("want key: value, got %q", line)
		}
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "suite":
			c.Suite = v
		case "id":
			c.ID = v
		case "it":
			c.It = v
		case "source":
			c.Source = v
		default:
			return c, fmt.Errorf("unknown key %q", k)
		}
	}
	if c.Suite == "" || c.ID == "" || c.It == "" || c.Source == "" {
		return c, fmt.Errorf("suite, id, it and source are required: %+v", c)
	}
	return c, nil
}
