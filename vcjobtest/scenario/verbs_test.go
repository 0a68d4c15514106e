package scenario

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestExtraCommandErrors(t *testing.T) {
	for script, want := range map[string]string{
		"update\n":                    `line 1: "update": update takes 1 to 1024 arguments, got 0; usage:` + "\n  update FIELD=N...",
		"update minAvailable=x\n":     `line 1: "update minAvailable=x": update: want FIELD=N, got "minAvailable=x"`,
		"update worker.image=2\n":     `line 1: "update worker.image=2": update: unknown field "worker.image"`,
		"release\n":                   `line 1: "release": release takes 1 to 1024 arguments, got 0`,
		"create now\n":                `line 1: "create now": create takes no argument, got 1`,
		"unschedulable\nfrobnicate\n": `line 2: "frobnicate": unknown command "frobnicate"`,
	} {
		_, err := Parse(strings.NewReader(script))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: error %v, want it to start with %s", script, err, want)
		}
	}
}

func TestExtraCommandsRunErrors(t *testing.T) {
	for script, want := range map[string]string{
		"create\n":            `line 1: "create": the job exists: "delete" it first`,
		"delete\nstart all\n": `line 2: "start all": the job is gone: line 1 deleted it ("create" creates it again)`,
		"delete worker-9\n":   `line 1: "delete worker-9": no pod worker-9 to hold`,
		"podgroup Inqueue\nupdate worker.replicas=-1\n": `line 2: "update worker.replicas=-1": the API server would refuse the update`,
	} {
		script, err := Parse(strings.NewReader(script))
		if err != nil {
			t.Fatal(err)
		}
		err = run([]byte(firstContact), script, NewText(&bytes.Buffer{}))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %s", err, want)
		}
	}
}

// After a delete the job can be created again; the pod the delete held
// stays, being deleted, until released.
func TestDeleteHoldReleaseCreate(t *testing.T) {
	script, err := Parse(strings.NewReader("podgroup Inqueue\nstart all\ndelete worker-0\ncreate\nrelease worker-0\n"))
	if err != nil {
		t.Fatal(err)
	}
	job, err := Load([]byte(firstContact), "")
	if err != nil {
		t.Fatal(err)
	}
	tr, _, err := Trace(job, script, NewText(&bytes.Buffer{}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	held := tr.Snapshots[3]
	if held.Job != nil || len(held.Pods) != 1 || held.Pods[0].DeletionTimestamp == nil {
		t.Fatalf("after the delete: job %v, pods %d", held.Job, len(held.Pods))
	}
	again := tr.Snapshots[4]
	if again.Job == nil || again.Job.UID == "uid-fc" {
		t.Fatalf("after create: %v", again.Job)
	}
	if pods := tr.Snapshots[5].Pods; len(pods) != 0 {
		t.Fatalf("after release: %d pods, want none (the PodGroup is not admitted yet)", len(pods))
	}
}

// TestVerbTable: every verb of the table is whole: a unique name, help
// whose forms start with it, an example that parses to it, a parse, a
// play in a file verb_*.go, and a group when it takes pods; and every
// verb_*.go file holds a verb.
func TestVerbTable(t *testing.T) {
	seen, files := map[string]bool{}, map[string]bool{}
	for _, v := range verbs() {
		if v.name == "" || seen[v.name] {
			t.Errorf("verb %q: no name, or a name twice", v.name)
		}
		seen[v.name] = true
		if v.parse == nil || v.play == nil || len(v.help) == 0 || v.example == "" {
			t.Errorf("verb %q: no parse, play, help or example", v.name)
			continue
		}
		for _, u := range v.help {
			if u.synopsis != v.name && !strings.HasPrefix(u.synopsis, v.name+" ") {
				t.Errorf("verb %q: a form %q of another verb", v.name, u.synopsis)
			}
		}
		cmds, err := Parse(strings.NewReader(v.example))
		switch {
		case err != nil || len(cmds) != 1:
			t.Errorf("verb %q: example %q: %v", v.name, v.example, err)
		case cmds[0].verb != v.name || cmds[0].op == nil || cmds[0].op.name != v.name:
			t.Errorf("verb %q: example %q parses to %q", v.name, v.example, cmds[0].verb)
		case cmds[0].pods != "" && v.group == nil:
			t.Errorf("verb %q takes pods but has no group for all and TASK-*", v.name)
		}
		file := verbFile(v)
		if !strings.HasPrefix(file, "verb_") {
			t.Errorf("verb %q plays in %s, not in a file verb_*.go", v.name, file)
		}
		files[file] = true
	}
	names, err := filepath.Glob("verb_*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if !strings.HasSuffix(name, "_test.go") && !files[name] {
			t.Errorf("%s holds no verb of the table", name)
		}
	}
}

// verbFile is the file that holds the verb: its play's.
func verbFile(v verb) string {
	f := runtime.FuncForPC(reflect.ValueOf(v.play).Pointer())
	if f == nil {
		return ""
	}
	file, _ := f.FileLine(f.Entry())
	return filepath.Base(file)
}

// Once the job is deleted, by a "delete" or by the garbage collector,
// only some verbs still play (their table lines say afterDelete,
// afterGC); the others are refused, and the error says what deleted the
// job.
func TestVerbsAfterTheJobIsGone(t *testing.T) {
	ttlJob := strings.Replace(firstContact, "spec:\n", "spec:\n  ttlSecondsAfterFinished: 60\n", 1)
	for _, gone := range []struct {
		name, job, script, refusal string
		plays                      []string
	}{
		{"delete", firstContact, "podgroup Inqueue\nstart all\ndelete\n", `the job is gone: line 3 deleted it ("create" creates it again)`,
			[]string{"release", "create", "controller", "advance"}},
		{"gc", ttlJob, "podgroup Inqueue\nstart all\nsucceed all\nadvance 2m\n", "the job is gone: the garbage collector deleted it at +1m0s",
			[]string{"advance"}},
	} {
		for _, v := range verbs() {
			script, err := Parse(strings.NewReader(gone.script + v.example + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			job, err := Load([]byte(gone.job), "")
			if err != nil {
				t.Fatal(err)
			}
			err = Run(job, script, NewText(&bytes.Buffer{}))
			refused := err != nil && strings.Contains(err.Error(), "the job is gone")
			if plays := slices.Contains(gone.plays, v.name); refused == plays {
				t.Errorf("after %s, %q: error %v, want it to play: %v", gone.name, v.example, err, plays)
			}
			if want := fmt.Sprintf("line %d: %q: %s", len(script), v.example, gone.refusal); refused && err.Error() != want {
				t.Errorf("after %s, %q: error %v, want %s", gone.name, v.example, err, want)
			}
		}
	}
}

// TestDocListsVerbs: the verb list of doc.go is the table's, each verb
// with its file; go test -rewrite rewrites it.
func TestDocListsVerbs(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, v := range verbs() {
		want = append(want, fmt.Sprintf("//\t%-14s %s", v.name, verbFile(v)))
	}
	lines := strings.Split(string(doc), "\n")
	start, end := docBlock(lines, "// # Verbs")
	if start == end {
		t.Fatal("doc.go has no verb list after its heading \"# Verbs\"")
	}
	if slices.Equal(lines[start:end], want) {
		return
	}
	if *rewrite {
		lines = slices.Concat(lines[:start], want, lines[end:])
		if err := os.WriteFile("doc.go", []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("doc.go lists the verbs otherwise than the table (go test -rewrite rewrites the list):\n%s\nwant:\n%s",
		strings.Join(lines[start:end], "\n"), strings.Join(want, "\n"))
}

// docBlock is where the first code block after the heading is in lines.
func docBlock(lines []string, heading string) (start, end int) {
	i := slices.Index(lines, heading)
	if i < 0 {
		return 0, 0
	}
	for start = i + 1; start < len(lines) && !strings.HasPrefix(lines[start], "//\t"); start++ {
	}
	for end = start; end < len(lines) && strings.HasPrefix(lines[end], "//\t"); end++ {
	}
	return start, end
}

// TestDocMapsFiles: the file map of doc.go ("Where things are") names
// each file and folder of the package, and nothing that is not there.
func TestDocMapsFiles(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(doc), "\n")
	from, to := slices.Index(lines, "// # Where things are"), slices.Index(lines, "// # Verbs")
	if from < 0 || to < from {
		t.Fatal("doc.go has no \"# Where things are\" before \"# Verbs\"")
	}
	var entries []string
	for _, line := range lines[from:to] {
		if f := strings.Fields(strings.TrimPrefix(line, "//\t")); strings.HasPrefix(line, "//\t") && len(f) > 0 {
			entries = append(entries, f[0])
		}
	}
	dir, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range dir {
		switch {
		case e.IsDir():
			names = append(names, e.Name()+"/")
		case strings.HasSuffix(e.Name(), ".go"):
			names = append(names, e.Name())
		}
	}
	matches := func(entry, name string) bool { ok, _ := path.Match(entry, name); return ok }
	for _, name := range names {
		if name != "doc.go" && !slices.ContainsFunc(entries, func(e string) bool { return matches(e, name) }) {
			t.Errorf("doc.go's file map does not name %s", name)
		}
	}
	for _, e := range entries {
		if !slices.ContainsFunc(names, func(name string) bool { return matches(e, name) }) {
			t.Errorf("doc.go's file map names %s, which is not here", e)
		}
	}
}
