package docscheck

import (
	"errors"
	"fmt"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// section is the heading of a package's file map.
const section = "Where things are"

// maxFiles is the most Go files a package may have without a file map.
const maxFiles = 8

// pending are the packages, by directory from the module root, whose
// file maps are still being written: they are not checked yet, and one
// that passes must leave the list.
var pending = map[string]bool{
	".":          true, // map pending
	"validation": true, // map pending
}

func TestFileMaps(t *testing.T) {
	root := moduleRoot(t)
	big := map[string]bool{}
	err := filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if dir != root {
			if skipDir(d.Name()) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		files, err := goFiles(dir)
		if err != nil {
			return err
		}
		if len(files) <= maxFiles {
			return nil
		}
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		big[rel] = true
		problems := checkMap(dir, files)
		if pending[rel] {
			if len(problems) == 0 {
				t.Errorf("%s: its file map is complete: take it off the pending list", rel)
			}
			return nil
		}
		for _, p := range problems {
			t.Errorf("%s: %s", rel, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(big) == 0 {
		t.Fatalf("no package of more than %d Go files under %s: the walk found nothing", maxFiles, root)
	}
	for rel := range pending {
		if !big[rel] {
			t.Errorf("%s is on the pending list but is no package of more than %d Go files", rel, maxFiles)
		}
	}
}

// TestCheckMapCatches: the check finds a missing section, a file the map
// leaves out, a name that is no file, and a pattern that matches none.
func TestCheckMapCatches(t *testing.T) {
	for _, tc := range []struct {
		name  string
		doc   string // the package comment's lines, without "// "
		files []string
		want  []string // a substring of each problem, in order
	}{
		{
			name:  "complete",
			doc:   "Package p.\n\n# Where things are\n\n\ta.go        A\n\tb.go        B\n\t*_test.go   tests\n",
			files: []string{"a.go", "b.go", "a_test.go"},
		},
		{
			name:  "no section",
			doc:   "Package p.\n",
			files: []string{"a.go"},
			want:  []string{`no "# Where things are" section`},
		},
		{
			name:  "a file left out, a stale name, a pattern matching nothing",
			doc:   "Package p.\n\n# Where things are\n\n\ta.go        A\n\tgone.go     G\n\t*_fuzz.go   F\n",
			files: []string{"a.go", "b.go"},
			want:  []string{"gone.go, which does not exist", "*_fuzz.go, which matches no file", "b.go is not in"},
		},
		{
			name:  "a continuation line names nothing; a later section is not the map",
			doc:   "Package p.\n\n# Where things are\n\n\ta.go        A,\n\t            and more\n\n# Other\n\n\tb.go        B\n",
			files: []string{"a.go", "b.go"},
			want:  []string{"b.go is not in"},
		},
		{
			name:  "a file named twice",
			doc:   "Package p.\n\n# Where things are\n\n\ta.go   A\n\ta.go   A again\n",
			files: []string{"a.go"},
			want:  []string{"names a.go twice"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var src strings.Builder
			for _, line := range strings.Split(strings.TrimSuffix(tc.doc, "\n"), "\n") {
				src.WriteString(strings.TrimRight("// "+line, " ") + "\n")
			}
			src.WriteString("package p\n")
			write(t, filepath.Join(dir, "doc.go"), src.String())
			for _, f := range tc.files {
				write(t, filepath.Join(dir, f), "package p\n")
			}
			files, err := goFiles(dir)
			if err != nil {
				t.Fatal(err)
			}
			got := checkMap(dir, files)
			if len(got) != len(tc.want) {
				t.Fatalf("problems %q, want %d matching %q", got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d is %q, want one holding %q", i, got[i], w)
				}
			}
		})
	}
}

func write(t *testing.T, name, text string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// moduleRoot is the directory of the go.mod nearest above the test's.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// skipDir reports whether the walk leaves a directory out, as the go
// command does: testdata, and names beginning with "." or "_".
func skipDir(name string) bool {
	return name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// goFiles are the names of the Go files in dir, test files included.
func goFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".go") {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// checkMap returns what is wrong with the file map in dir's doc.go, given
// the Go files of dir: nothing when the map is complete and true.
func checkMap(dir string, files []string) []string {
	entries, err := mapEntries(filepath.Join(dir, "doc.go"))
	if err != nil {
		return []string{err.Error()}
	}
	var problems []string
	named := map[string]bool{}
	var globs []string
	for _, name := range entries {
		if named[name] {
			problems = append(problems, fmt.Sprintf("the file map names %s twice", name))
			continue
		}
		named[name] = true
		if strings.ContainsAny(name, "*?[") {
			matches, err := filepath.Glob(filepath.Join(dir, filepath.FromSlash(name)))
			if err != nil || len(matches) == 0 {
				problems = append(problems, fmt.Sprintf("the file map names %s, which matches no file", name))
			}
			globs = append(globs, name)
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			problems = append(problems, fmt.Sprintf("the file map names %s, which does not exist", name))
		}
	}
	covered := func(f string) bool {
		// A pattern (verb_*.go: one file per verb) names every file it
		// matches, as one line of the map.
		for _, g := range globs {
			if ok, _ := filepath.Match(g, f); ok {
				return true
			}
		}
		return named[f]
	}
	for _, f := range files {
		if f != "doc.go" && !strings.HasSuffix(f, "_test.go") && !covered(f) {
			problems = append(problems, fmt.Sprintf("%s is not in the file map of doc.go", f))
		}
	}
	return problems
}

// mapEntries are the names the "# Where things are" section of a doc.go's
// package comment gives, in order: the first word of each line of its
// code blocks that does not begin with a space (a line that does
// continues the one before).
func mapEntries(docGo string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), docGo, nil, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil {
		return nil, err
	}
	if f.Doc == nil {
		return nil, errors.New("doc.go holds no package comment")
	}
	var p comment.Parser
	doc := p.Parse(f.Doc.Text())
	start := slices.IndexFunc(doc.Content, func(b comment.Block) bool {
		h, ok := b.(*comment.Heading)
		return ok && plain(h.Text) == section
	})
	if start < 0 {
		return nil, fmt.Errorf("doc.go has no %q section", "# "+section)
	}
	var names []string
	for _, b := range doc.Content[start+1:] {
		if _, ok := b.(*comment.Heading); ok {
			break
		}
		code, ok := b.(*comment.Code)
		if !ok {
			continue
		}
		for _, line := range strings.Split(code.Text, "\n") {
			if line == "" || strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
				continue
			}
			names = append(names, path.Clean(strings.Fields(line)[0]))
		}
	}
	return names, nil
}

// plain is the text of a heading without its markup.
func plain(text []comment.Text) string {
	var b strings.Builder
	for _, t := range text {
		switch t := t.(type) {
		case comment.Plain:
			b.WriteString(string(t))
		case comment.Italic:
			b.WriteString(string(t))
		case *comment.Link:
			b.WriteString(plain(t.Text))
		case *comment.DocLink:
			b.WriteString(plain(t.Text))
		}
	}
	return b.String()
}
