package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob/lint"
)

// invalidExamples are the codes whose example only exists as a job
// validation refuses: the linter reports the finding and exits 2.
var invalidExamples = []string{
	lint.CodeUnknownEvent, lint.CodeUnknownAction, lint.CodePolicyWithoutTrigger, lint.CodeExitCodeZero,
}

// TestEveryCheckHasAnExample runs the linter on testdata/CODE.yaml for each
// code: the finding is reported, and the exit status is 2 for the invalid
// examples, 1 for errors, 0 for warnings and infos (each example holds no
// other error).
func TestEveryCheckHasAnExample(t *testing.T) {
	for _, c := range lint.Checks() {
		t.Run(c.Code, func(t *testing.T) {
			path := filepath.Join("testdata", c.Code+".yaml")
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("no example manifest: %v", err)
			}
			var out, errOut bytes.Buffer
			status := run([]string{path}, &out, &errOut)
			if !strings.Contains(out.String(), "["+c.Code+"]") {
				t.Fatalf("output lacks [%s]:\n%s%s", c.Code, out.String(), errOut.String())
			}
			want := exitOK
			switch {
			case slices.Contains(invalidExamples, c.Code):
				want = exitInput
				if !strings.Contains(out.String(), "  refused by Volcano's admission") {
					t.Errorf("an invalid example should say so:\n%s", out.String())
				}
			case c.Severity == lint.SeverityError:
				want = exitFinding
			}
			if status != want {
				t.Fatalf("exit status %d, want %d:\n%s%s", status, want, out.String(), errOut.String())
			}
		})
	}
}

func TestCleanJob(t *testing.T) {
	var out, errOut bytes.Buffer
	if status := run([]string{"testdata/clean.yaml"}, &out, &errOut); status != exitOK {
		t.Fatalf("exit %d:\n%s%s", status, out.String(), errOut.String())
	}
	// Columns are aligned with runs of blanks: compare words.
	text := strings.Join(strings.Fields(out.String()), " ")
	for _, want := range []string{
		"testdata/clean.yaml: job ml/mnist-ddp (document 1), as written",
		`Volcano's webhook defaults: spec.schedulerName: "" -> "volcano"; spec.minAvailable: 0 -> 3; spec.tasks[0].minAvailable: unset -> 1;`,
		"no findings",
		"worker PodEvicted RestartJob - job job policy 0 (event)",
		`worker PodPending AbortJob 10m0s job task "worker" policy 1 (event) runs unless the pod leaves Pending first`,
		`worker PodFailed 137 RestartPod - the pod task "worker" policy 0 (exit code)`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}

func TestSeveralJobsAndFiles(t *testing.T) {
	var out, errOut bytes.Buffer
	status := run([]string{"-explain=false", "testdata/multi.yaml", "testdata/missing.yaml", "testdata/clean.yaml"}, &out, &errOut)
	if status != exitInput {
		t.Fatalf("a missing file: exit %d, want %d", status, exitInput)
	}
	if !strings.Contains(errOut.String(), "missing.yaml") {
		t.Errorf("stderr does not name the missing file: %s", errOut.String())
	}
	text := out.String()
	for _, want := range []string{"job ml/mnist-ddp (document 1)", "job ml/mnist-ddp-short (document 2)", "[max-retry-one]"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "what each event resolves to") {
		t.Error("-explain=false printed the table")
	}
}

func TestUnreadableInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{bad}, {}, {"-o", "xml", "testdata/clean.yaml"}} {
		var out, errOut bytes.Buffer
		if status := run(args, &out, &errOut); status != exitInput {
			t.Errorf("%v: exit %d, want %d", args, status, exitInput)
		}
	}
}

func TestJSON(t *testing.T) {
	var out, errOut bytes.Buffer
	if status := run([]string{"-o", "json", "testdata/max-retry-one.yaml"}, &out, &errOut); status != exitOK {
		t.Fatalf("exit %d: %s", status, errOut.String())
	}
	var r struct {
		Job      string         `json:"job"`
		Findings []lint.Finding `json:"findings"`
		Explain  struct {
			Rows []map[string]any `json:"rows"`
		} `json:"explain"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	if r.Job != "ml/mnist-ddp" || len(r.Findings) != 1 || r.Findings[0].Code != lint.CodeMaxRetryOne || len(r.Explain.Rows) == 0 {
		t.Fatalf("%+v", r)
	}
	if r.Explain.Rows[0]["ruleText"] == nil {
		t.Errorf("rows lack ruleText: %v", r.Explain.Rows[0])
	}
}

// A plugin argument Volcano does not know is reported, not refused: the
// job runs, with the flags after it unread.
func TestPluginArgumentWarning(t *testing.T) {
	var out, errOut bytes.Buffer
	if status := run([]string{"-explain=false", "testdata/plugin-argument.yaml"}, &out, &errOut); status != exitOK {
		t.Fatalf("exit %d:\n%s%s", status, out.String(), errOut.String())
	}
	want := `plugin argument ignored (Volcano logs it and reads no flag after it): plugin "ssh": argument "--no-root=true"`
	if !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
}

// Strict decoding refuses a field the types lack and points at
// -allow-unknown-fields, which drops it as the API server would and says
// so.
func TestAllowUnknownFields(t *testing.T) {
	var out, errOut bytes.Buffer
	if status := run([]string{"-explain=false", "testdata/unknown-field.yaml"}, &out, &errOut); status != exitInput {
		t.Fatalf("strict: exit %d, want %d", status, exitInput)
	}
	for _, want := range []string{`spec.tasks[0].template.spec.priorityClass: unknown field`, "-allow-unknown-fields"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}
	out.Reset()
	errOut.Reset()
	if status := run([]string{"-explain=false", "-allow-unknown-fields", "testdata/unknown-field.yaml"}, &out, &errOut); status != exitOK {
		t.Fatalf("lenient: exit %d:\n%s%s", status, out.String(), errOut.String())
	}
	if want := "dropped unknown fields (-allow-unknown-fields): spec.tasks[0].template.spec.priorityClass"; !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
}

func TestCronJob(t *testing.T) {
	var out, errOut bytes.Buffer
	status := run([]string{"-explain=false", "testdata/cronjob-and-job.yaml"}, &out, &errOut)
	if status != exitOK {
		t.Fatalf("exit %d:\n%s%s", status, out.String(), errOut.String())
	}
	for _, want := range []string{
		"cronjob ml/nightly (document 1), its job template as written",
		"spec.jobTemplate.spec.maxRetry: maxRetry 1",
		"spec.jobTemplate.spec.tasks[0].minAvailable: unset -> 2",
		"job ml/plain (document 2), as written",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// JSON keeps "->" as it is.
func TestJSONIsReadable(t *testing.T) {
	var out, errOut bytes.Buffer
	run([]string{"-o", "json", "testdata/clean.yaml"}, &out, &errOut)
	if strings.Contains(out.String(), `\u003e`) {
		t.Errorf("JSON escapes '>':\n%s", out.String())
	}
	if !strings.Contains(out.String(), `(->`) {
		t.Errorf("JSON lacks the note with '->':\n%s", out.String())
	}
}

func TestSemanticsDifferences(t *testing.T) {
	var out, errOut bytes.Buffer
	if status := run([]string{"-explain=false", "-semantics", "corrected", "testdata/clean.yaml"}, &out, &errOut); status != exitOK {
		t.Fatalf("exit %d:\n%s%s", status, out.String(), errOut.String())
	}
	for _, want := range []string{"where the chosen semantics decide otherwise than Volcano", "[delays-by-pod-uid]", "[leave-finished-jobs]"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	run([]string{"-explain=false", "testdata/clean.yaml"}, &out, &errOut)
	if strings.Contains(out.String(), "otherwise than Volcano") {
		t.Errorf("without -semantics, no differences:\n%s", out.String())
	}
	if status := run([]string{"-semantics", "strict", "testdata/clean.yaml"}, &out, &errOut); status != exitInput {
		t.Errorf("a bad -semantics: exit %d", status)
	}
}

// TestRefusedJobIsNotSaidToBeFine: a job Volcano's admission refuses is
// not also reported with a bare "no findings".
func TestRefusedJobIsNotSaidToBeFine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "refused.yaml")
	manifest := "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: ok}\n" +
		"spec:\n  tasks: [{name: a, replicas: 1, template: {spec: {containers: []}}}]\n"
	if err := os.WriteFile(path, []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if status := run([]string{path}, &out, &errOut); status != exitInput {
		t.Fatalf("exit status %d, want %d", status, exitInput)
	}
	text := out.String()
	for _, want := range []string{"job ok (document 1)", "refused by Volcano's admission", "spec.tasks[0].template.spec.containers: Required value", "lint: no findings besides the refusal"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "\n  lint: no findings\n") {
		t.Errorf("a refused job is said to have no findings:\n%s", text)
	}
}

// TestHelpExitsZero: -help is a request, not a mistake.
func TestHelpExitsZero(t *testing.T) {
	var out, errOut bytes.Buffer
	if status := run([]string{"-help"}, &out, &errOut); status != exitOK {
		t.Fatalf("exit status %d, want %d", status, exitOK)
	}
	if !strings.Contains(errOut.String(), "finding codes:") {
		t.Errorf("-help prints no usage:\n%s", errOut.String())
	}
}

func TestDisplayName(t *testing.T) {
	for _, tc := range []struct {
		meta metav1.ObjectMeta
		want string
	}{
		{metav1.ObjectMeta{Name: "a"}, "a"},
		{metav1.ObjectMeta{Name: "a", Namespace: "ml"}, "ml/a"},
		{metav1.ObjectMeta{GenerateName: "train-"}, "train-… (generateName)"},
		{metav1.ObjectMeta{}, "(no name)"},
	} {
		if got := displayName(tc.meta); got != tc.want {
			t.Errorf("displayName(%+v) = %q, want %q", tc.meta, got, tc.want)
		}
	}
}
