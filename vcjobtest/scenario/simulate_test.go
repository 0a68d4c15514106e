package scenario

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the transcripts (or errors) of testdata/*.txt from the simulator")

// A scenario file holds sections, each opened by a line "-- NAME --":
// job.yaml (the manifest), script (the commands), and either transcript
// (the expected text output) or error (the expected error).
type scenario struct {
	path     string
	order    []string
	sections map[string]string
}

func readScenario(path string) (*scenario, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s := &scenario{path: path, sections: map[string]string{}}
	name := ""
	for _, line := range strings.SplitAfter(string(raw), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") {
			name = strings.TrimSuffix(strings.TrimPrefix(trimmed, "-- "), " --")
			s.order = append(s.order, name)
			continue
		}
		if name == "" {
			if trimmed != "" && !strings.HasPrefix(trimmed, "#") {
				return nil, fmt.Errorf("%s: text before the first section: %q", path, trimmed)
			}
			continue
		}
		s.sections[name] += line
	}
	for _, need := range []string{"job.yaml", "script"} {
		if _, ok := s.sections[need]; !ok {
			return nil, fmt.Errorf("%s: no -- %s -- section", path, need)
		}
	}
	return s, nil
}

func (s *scenario) write(result, body string) error {
	var b strings.Builder
	for _, name := range s.order {
		if name == "transcript" || name == "error" {
			continue
		}
		fmt.Fprintf(&b, "-- %s --\n%s", name, s.sections[name])
	}
	fmt.Fprintf(&b, "-- %s --\n%s", result, body)
	return os.WriteFile(s.path, []byte(b.String()), 0o644)
}

// run simulates the scenario and returns its transcript, or the error.
func (s *scenario) run() (string, error) {
	script, err := Parse(strings.NewReader(s.sections["script"]))
	if err != nil {
		return "", err
	}
	job, err := Load([]byte(s.sections["job.yaml"]), "")
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	err = Run(job, script, NewText(&out))
	return out.String(), err
}

func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no scenarios in testdata")
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			s, err := readScenario(path)
			if err != nil {
				t.Fatal(err)
			}
			got, runErr := s.run()
			result, body := "transcript", got
			if runErr != nil {
				result, body = "error", runErr.Error()+"\n"
			}
			if *rewrite {
				if err := s.write(result, body); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, ok := s.sections[result]
			if !ok {
				t.Fatalf("the simulator gave %s, the file expects otherwise:\n%s\n(run go test ./vcjobtest/scenario -rewrite to accept)", result, body)
			}
			if body != want {
				t.Errorf("%s differs (run go test ./vcjobtest/scenario -rewrite to accept):\n%s", result, lineDiff(want, body))
			}
		})
	}
}

// lineDiff shows the first differing line with some context.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			from := max(0, i-3)
			return fmt.Sprintf("line %d:\n  want: %q\n  got:  %q\ncontext (got):\n%s", i+1, wl, gl, strings.Join(g[from:min(len(g), i+3)], "\n"))
		}
	}
	return ""
}

func TestScriptErrorsNameTheLine(t *testing.T) {
	for script, want := range map[string]string{
		"start all\nfrobnicate worker-0\n": `line 2: "frobnicate worker-0": unknown command "frobnicate"`,
		"advance soon\n":                   `line 1: "advance soon": advance: bad duration "soon"`,
		"advance -5m\n":                    `line 1: "advance -5m": advance: bad duration "-5m"`,
		"fail worker-0 x\n":                `line 1: "fail worker-0 x": fail: bad number "x"`,
		"podgroup Sleeping\n":              `line 1: "podgroup Sleeping": unknown PodGroup phase "Sleeping"`,
		"podgroup Inqueue lost\n":          `line 1: "podgroup Inqueue lost": podgroup: unknown word "lost" after the phase (only "relisted"); usage:` + "\n  podgroup PHASE  ",
		"podgroup Inqueue relisted now\n":  `line 1: "podgroup Inqueue relisted now": podgroup takes 1 to 2 arguments, got 3; usage:`,
		"command Explode\n":                `line 1: "command Explode": unknown action "Explode"`,
		"start\n":                          `line 1: "start": start takes one argument, got 0; usage:`,
		"advance 10 minutes\n":             `line 1: "advance 10 minutes": advance takes one argument, got 2; usage:` + "\n  advance DURATION",
		"controller\n":                     `line 1: "controller": controller takes 1 to 2 arguments, got 0; usage:` + "\n  controller restart [held]",
		"controller stop\n":                `line 1: "controller stop": controller: unknown word "stop" (only "restart"); usage:`,
		"controller restart later\n":       `line 1: "controller restart later": controller restart: unknown word "later" (only "held"); usage:`,
	} {
		_, err := Parse(strings.NewReader(script))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: error %v, want it to start with %s", script, err, want)
		}
	}
}

// "controller restart [held]" parses into the verb and its held flag.
func TestParseControllerRestart(t *testing.T) {
	cmds, err := Parse(strings.NewReader("controller restart\ncontroller restart held # a pod fails as it starts\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) != 2 {
		t.Fatalf("%d commands", len(cmds))
	}
	for i, want := range []bool{false, true} {
		if c := cmds[i]; c.verb != "controller" || c.word != "restart" || c.held != want {
			t.Errorf("line %d: %+v, want controller restart held=%v", c.Line, c, want)
		}
	}
}

func TestUnknownPodNamesTheLine(t *testing.T) {
	manifest, err := os.ReadFile("../../examples/quickstart/pytorch-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	script, err := Parse(strings.NewReader("podgroup Inqueue\n\nfail worker-9 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = run(manifest, script, NewText(&bytes.Buffer{}))
	if err == nil || !strings.Contains(err.Error(), `line 3: "fail worker-9 1": no pod matches "worker-9"`) {
		t.Fatalf("error %v", err)
	}
}

func TestJSONOutput(t *testing.T) {
	manifest, err := os.ReadFile("../../examples/quickstart/pytorch-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	script, _ := Parse(strings.NewReader("podgroup Inqueue\nstart all\nfail worker-1 137\n"))
	var out bytes.Buffer
	if err := run(manifest, script, NewJSON(&out)); err != nil {
		t.Fatal(err)
	}
	var sawRestartPod bool
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("not JSON: %q: %v", line, err)
		}
		if rec, ok := v["record"].(map[string]any); ok && rec["action"] == "RestartPod" {
			sawRestartPod = true
		}
	}
	if !sawRestartPod {
		t.Fatalf("no RestartPod record in:\n%s", out.String())
	}
}

// TestJSONCarriesEvents: the JSON Lines carry each record's Events, the
// command handler's on a line of their own, and each requeue.
func TestJSONCarriesEvents(t *testing.T) {
	manifest, err := os.ReadFile("../../examples/quickstart/pytorch-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	script, _ := Parse(strings.NewReader("podgroup Inqueue\nstart all\nfail worker-1 137\ncommand AbortJob\n"))
	var out bytes.Buffer
	if err := run(manifest, script, NewJSON(&out)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"events":[{"type":"Normal","reason":"ExecuteAction","message":"Start to execute action RestartPod "}]`,
		`{"events":[{"type":"Normal","reason":"CommandIssued","message":"Start to execute command AbortJob, and clean it up to make sure executed not more than once."}],"time":`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %s in:\n%s", want, out.String())
		}
	}
	missing, err := os.ReadFile("testdata/missing-claim.yaml")
	if err != nil {
		t.Fatal(err)
	}
	script, _ = Parse(strings.NewReader("advance 1ms\n"))
	out.Reset()
	if err := run(missing, script, NewJSON(&out)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"reason":"PVCError"`, `{"due":"2026-01-01T00:00:00.005Z","requeued":{`, `"requeues":1}`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %s in:\n%s", want, out.String())
		}
	}
}

// run loads the manifest's only job and runs the script on it.
func run(manifest []byte, script []Command, o Observer) error {
	job, err := Load(manifest, "")
	if err != nil {
		return err
	}
	return Run(job, script, o)
}

// Before the PodGroup is admitted there are no pods: the error says what
// to do instead of listing no pods.
func TestStartBeforeAdmissionSaysWhatToDo(t *testing.T) {
	manifest, err := os.ReadFile("../../examples/quickstart/pytorch-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	script, _ := Parse(strings.NewReader("start all\n"))
	err = run(manifest, script, NewText(&bytes.Buffer{}))
	if err == nil || !strings.Contains(err.Error(), `line 1: "start all": the job has no pods yet`) || !strings.Contains(err.Error(), `put "podgroup Inqueue" before this line`) {
		t.Fatalf("error %v", err)
	}
}

func TestLoadPicksAJob(t *testing.T) {
	two, err := os.ReadFile("testdata/two-jobs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Load(two, ""); err == nil || err.Error() != "the manifest holds 2 jobs (a, b): name the one to simulate (simulate -name)" {
		t.Errorf("no name: %v", err)
	}
	if job, err := Load(two, "b"); err != nil || job.Name != "b" {
		t.Errorf("name b: %v %v", job, err)
	}
	if _, err := Load(two, "c"); err == nil || !strings.Contains(err.Error(), `no job named "c" here (jobs: a, b)`) {
		t.Errorf("name c: %v", err)
	}
}

// JSON names a kill's target level instead of a number.
func TestJSONNamesTheTargetLevel(t *testing.T) {
	manifest, err := os.ReadFile("../../examples/quickstart/pytorch-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	script, _ := Parse(strings.NewReader("podgroup Inqueue\nstart all\nfail worker-1 137\n"))
	var out bytes.Buffer
	if err := run(manifest, script, NewJSON(&out)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"target":{"level":"pod"`) || strings.Contains(out.String(), `"level":0`) || strings.Contains(out.String(), `\u003e`) {
		t.Errorf("JSON:\n%s", out.String())
	}
}

// firstContact is a one-task job whose task restarts failed containers in
// place, with no namespace, as most real manifests are written.
const firstContact = `apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: fc}
spec:
  minAvailable: 2
  policies: [{event: PodEvicted, action: RestartJob}]
  tasks:
  - name: worker
    replicas: 2
    template:
      spec:
        restartPolicy: OnFailure
        containers: [{name: c, image: busybox}]
`

// Failing a pod a kubelet would restart in place is played, with a note
// that says so and what to write instead.
func TestFailOnFailurePodNotes(t *testing.T) {
	script, err := Parse(strings.NewReader("podgroup Inqueue\nstart all\nfail worker-0 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run([]byte(firstContact), script, NewText(&out)); err != nil {
		t.Fatal(err)
	}
	want := `note     fc-worker-0 has restartPolicy OnFailure: a kubelet restarts a container that exits 3 in place and the pod stays Running (write "restart worker-0")`
	if !strings.Contains(out.String(), want) {
		t.Errorf("no note %q in:\n%s", want, out.String())
	}
}

// After a restart deleted the pods, a pod command says what happened and
// what to write, rather than that the job never had pods.
func TestPodCommandAfterRestartSaysWhatHappened(t *testing.T) {
	script, err := Parse(strings.NewReader("podgroup Inqueue\nstart all\nevict worker-1\nfinish\nstart all\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = run([]byte(firstContact), script, NewText(&bytes.Buffer{}))
	if err == nil || !strings.Contains(err.Error(), `line 5: "start all": the job has no pods now: the last kill deleted them`) ||
		!strings.Contains(err.Error(), `put "podgroup Inqueue" before this line`) {
		t.Fatalf("error %v", err)
	}
}
