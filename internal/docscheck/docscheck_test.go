package docscheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// root is the repository's root, from this package's folder.
const root = "../.."

// pagesToSkip are the pages the check does not hold yet, each with why.
func pagesToSkip() map[string]string {
	return map[string]string{
		// TODO(lead): remove once README.md names the paths after the move
		// into cmd/ and vcjobtest/.
		"README.md": "README.md still names paths from before the move into cmd/ and vcjobtest/",
	}
}

// TestDocsNameWhatExists: every repository path, package identifier and
// test the documentation names exists.
func TestDocsNameWhatExists(t *testing.T) {
	repo := readRepository(t, root)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("no pages in docs/")
	}
	pages = append(pages, filepath.Join(root, "README.md"))
	for _, page := range pages {
		rel, err := filepath.Rel(root, page)
		if err != nil {
			t.Fatal(err)
		}
		rel = filepath.ToSlash(rel)
		t.Run(rel, func(t *testing.T) {
			if why, ok := pagesToSkip()[rel]; ok {
				t.Skip(why)
			}
			text, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			for _, problem := range repo.check(rel, string(text)) {
				t.Error(problem)
			}
		})
	}
}

// TestCheckFindsStaleNames: the check reports each kind of name that does
// not exist, and none of those that do or that it leaves alone.
func TestCheckFindsStaleNames(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"docs/a.md":                  "",
		"docs/b.md":                  "",
		"README.md":                  "",
		"cmd/tool/main.go":           "package main\n\nfunc main() {}\n",
		"pkg/sub/testdata/x.txt":     "",
		"pkg/sub/sub.go":             "package sub\n\ntype Here struct{}\n\nfunc (Here) Method() {}\n\nconst (\n\tA, B = 1, 2\n)\n\nfunc unexported() {}\n",
		"pkg/sub/sub_test.go":        "package sub\n\nfunc TestHere(t *testing.T) {}\n\nfunc FuzzHere(f *testing.F) {}\n",
		"pkg/sub/testdata/gone.go":   "package sub\n\nfunc Gone() {}\n",
		"pkg/sub/testdata/x_test.go": "package sub\n\nfunc TestGone(t *testing.T) {}\n",
	}
	for f, content := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	page := "# A\n" +
		"Run `go run ./cmd/tool` or `go run ./cmd/gone -x`; see [b](b.md), [gone](gone.md#x),\n" +
		"[up](../README.md#top), [web](https://example.com/cmd/nope) and `cmd/tool/main.go`.\n" +
		"Files: `sub/testdata/x.txt`, `sub/testdata/y.txt`, `pkg/sub`, `pkg/other/`, `kubernetes.io/hostname`.\n" +
		"Beside it: `../shared/manifests`; flags: `-o json`; `worker-*`.\n" +
		"```sh\n" +
		"go test ./pkg/... # ./nothing in a comment\n" +
		"cd pkg && go test ./sub/... ./missing\n" +
		"go test ./old/... -run 'TestHe|TestNo'\n" +
		"```\n" +
		"```go\n" +
		"x := f(\"./not/checked\", sub.Here{}, sub.Gone(), sub.unexported, other.Gone)\n" +
		"```\n" +
		"Go: `sub.Here.Method`, `sub.Method`, `sub.A`, `sub.B`, `sub.Gone`; sub.Gone outside code is prose.\n" +
		"Tests: TestHere, `FuzzHere`, TestGone, `BenchmarkGone/x`, Tests, `Example`, `sub.TestHere`, `sub.FuzzGone`.\n"
	got := readRepository(t, dir).check("docs/a.md", page)
	want := []string{
		"docs/a.md:2: ./cmd/gone does not exist",
		"docs/a.md:2: link gone.md#x: docs/gone.md does not exist",
		"docs/a.md:4: sub/testdata/y.txt is no repository file's path",
		"docs/a.md:4: pkg/other/ does not exist",
		"docs/a.md:8: ./missing does not exist (in pkg)",
		"docs/a.md:9: TestNo is no test of the repository",
		"docs/a.md:9: ./old/... does not exist",
		"docs/a.md:12: sub.Gone: package sub has no Gone",
		"docs/a.md:14: sub.Gone: package sub has no Gone",
		"docs/a.md:15: TestGone is no test of the repository",
		"docs/a.md:15: BenchmarkGone is no test of the repository",
		"docs/a.md:15: FuzzGone is no test of the repository",
		"docs/a.md:15: sub.FuzzGone: package sub has no FuzzGone",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// repository is what the check reads of the repository: its root, the
// names at its root, every file's slash-separated path, the exported
// top-level identifiers of each package name, and the test functions.
type repository struct {
	root    string
	top     map[string]bool
	files   []string
	exports map[string]map[string]bool
	tests   map[string]bool
}

func readRepository(t *testing.T, root string) repository {
	t.Helper()
	r := repository{root: root, top: map[string]bool{}, exports: map[string]map[string]bool{}, tests: map[string]bool{}}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		r.top[e.Name()] = true
	}
	// Packages of the modules nested in the repository (the example
	// controller, the browser and pod-validation tests) have names a page
	// uses for variables too (job): only the main module's are checked.
	var nested []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil && p != root {
				nested = append(nested, p+string(filepath.Separator))
			}
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		r.files = append(r.files, rel)
		inNested := slices.ContainsFunc(nested, func(dir string) bool { return strings.HasPrefix(p, dir) })
		if strings.HasSuffix(rel, ".go") && !strings.Contains("/"+rel, "/testdata/") {
			return r.readGo(p, inNested)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// readGo records a Go file's test functions, or its package's exported
// top-level identifiers and methods; a test counts as its package's too.
func (r repository) readGo(file string, testsOnly bool) error {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	if testsOnly {
		// A nested module's tests may be named; its packages' names
		// are not taken for packages (see readRepository).
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && testName.MatchString(fn.Name.Name) && strings.HasSuffix(file, "_test.go") {
				r.tests[fn.Name.Name] = true
			}
		}
		return nil
	}
	pkg := strings.TrimSuffix(f.Name.Name, "_test")
	names := r.exports[pkg]
	if names == nil {
		names = map[string]bool{}
		r.exports[pkg] = names
	}
	if strings.HasSuffix(file, "_test.go") {
		// A page may name a test as pkg.TestX.
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && testName.MatchString(fn.Name.Name) {
				r.tests[fn.Name.Name] = true
				names[fn.Name.Name] = true
			}
		}
		return nil
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			// A method counts too: pages write cache.OnPodGroupAdd for
			// the method of cache.Cache.
			names[d.Name.Name] = true
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					names[s.Name.Name] = true
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names[n.Name] = true
					}
				}
			}
		}
	}
	return nil
}

var (
	fence    = regexp.MustCompile("^\\s*```\\s*(\\S*)")
	codeSpan = regexp.MustCompile("`([^`]+)`")
	link     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// fileExt: a name with one of these endings is a file's.
	fileExt = regexp.MustCompile(`\.(go|md|txt|yaml|yml|json|jsonl|gz|scenario|sh|html)$`)
	// qualified: a package's exported identifier, as pkg.Name.
	qualified = regexp.MustCompile(`(^|[^\w.])([a-z][a-z0-9]*)\.([A-Z]\w*)`)
	// testName: a test, fuzz target, benchmark or example function.
	testName = regexp.MustCompile(`^(Test|Fuzz|Benchmark|Example)[A-Z0-9_]\w*$`)
	testWord = regexp.MustCompile(`\b(?:Test|Fuzz|Benchmark|Example)[A-Z0-9_]\w*`)
)

// shellLangs are the fenced blocks whose lines are commands.
var shellLangs = map[string]bool{"sh": true, "bash": true, "shell": true, "console": true}

// check lists, as "page:line: problem", every name page gives that does
// not exist.
func (r repository) check(page, text string) []string {
	var out []string
	inFence, lang := false, ""
	for i, line := range strings.Split(text, "\n") {
		at := func(problems ...string) {
			for _, p := range problems {
				out = append(out, page+":"+strconv.Itoa(i+1)+": "+p)
			}
		}
		if m := fence.FindStringSubmatch(line); m != nil {
			inFence = !inFence
			lang = m[1]
			continue
		}
		at(r.checkTests(line, inFence && shellLangs[lang])...)
		switch {
		case inFence && shellLangs[lang]:
			if c, _, ok := strings.Cut(line, " #"); ok {
				line = c
			}
			at(r.checkCommand(line)...)
		case inFence && lang == "go":
			at(r.checkIdentifiers(line)...)
		case inFence:
		default:
			for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
				at(r.checkCommand(m[1])...)
				at(r.checkIdentifiers(m[1])...)
			}
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				if problem := r.checkLink(page, m[1]); problem != "" {
					at(problem)
				}
			}
		}
	}
	return out
}

// checkCommand checks the names of a code span or a shell line, following
// `cd DIR &&`.
func (r repository) checkCommand(cmd string) []string {
	var out []string
	fields := strings.Fields(cmd)
	dir := "."
	for i := 0; i < len(fields); i++ {
		if fields[i] == "cd" && i+2 < len(fields) && fields[i+2] == "&&" {
			dir = path.Join(dir, fields[i+1])
			if problem := r.checkName(fields[i+1], "."); problem != "" {
				out = append(out, problem)
			}
			i += 2
			continue
		}
		if problem := r.checkName(fields[i], dir); problem != "" {
			out = append(out, problem)
		}
	}
	return out
}

// checkName says what is wrong with name, read relative to dir (a
// slash-separated folder of the repository), or "" when it exists or is
// not a repository path.
func (r repository) checkName(name, dir string) string {
	name = strings.Trim(name, `"'(),;:`)
	if name == "" || strings.HasPrefix(name, "-") || strings.Contains(name, "://") ||
		strings.ContainsAny(name, "*?<>{}$|=~\\[") {
		return ""
	}
	relative := strings.HasPrefix(name, "./") || strings.HasPrefix(name, "../")
	first, _, hasSlash := strings.Cut(name, "/")
	switch {
	case relative:
	case hasSlash && r.top[first] && dir == ".":
	case hasSlash && !strings.HasPrefix(name, "/") && fileExt.MatchString(name):
		for _, f := range r.files {
			if strings.HasSuffix("/"+f, "/"+name) {
				return ""
			}
		}
		return name + " is no repository file's path"
	default:
		return ""
	}
	p := path.Join(dir, strings.TrimSuffix(strings.TrimSuffix(name, "..."), "/"))
	if p == ".." || strings.HasPrefix(p, "../") {
		return "" // beside the repository, not in it
	}
	if _, err := os.Stat(filepath.Join(r.root, filepath.FromSlash(p))); err != nil {
		if dir != "." {
			return name + " does not exist (in " + dir + ")"
		}
		return name + " does not exist"
	}
	return ""
}

// checkLink checks a markdown link's target, relative to its page.
func (r repository) checkLink(page, target string) string {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
		return ""
	}
	file, _, _ := strings.Cut(target, "#")
	p := path.Join(path.Dir(page), file)
	if p == ".." || strings.HasPrefix(p, "../") {
		return "link " + target + " leaves the repository"
	}
	if _, err := os.Stat(filepath.Join(r.root, filepath.FromSlash(p))); err != nil {
		return "link " + target + ": " + p + " does not exist"
	}
	return ""
}

// checkIdentifiers checks each pkg.Name whose pkg is the name of one of
// the repository's packages: some package of that name has Name, exported
// at its top level or as a method.
func (r repository) checkIdentifiers(code string) []string {
	var out []string
	for _, m := range qualified.FindAllStringSubmatch(code, -1) {
		pkg, name := m[2], m[3]
		if names, ok := r.exports[pkg]; ok && !names[name] {
			out = append(out, pkg+"."+name+": package "+pkg+" has no "+name)
		}
	}
	return out
}

// checkTests checks each test, fuzz target, benchmark or example function
// a line names, in code or in prose. In a shell line a name may be a
// pattern (-run TestVolcano): some test must start with it.
func (r repository) checkTests(line string, shell bool) []string {
	var out []string
	for _, name := range testWord.FindAllString(line, -1) {
		if !r.tests[name] && (!shell || !r.testStartingWith(name)) {
			out = append(out, name+" is no test of the repository")
		}
	}
	return out
}

func (r repository) testStartingWith(prefix string) bool {
	for name := range r.tests {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}
