package behavior_test

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vcjob/vcjob/behavior"
)

var update = flag.Bool("update", false, "rewrite docs/differences.md from the registry")

// root is the repository's root, from this package's directory.
const root = ".."

func TestRegistryEntries(t *testing.T) {
	names, ids := map[string]bool{}, map[behavior.ID]bool{}
	for _, e := range behavior.Registry() {
		assert.NotZero(t, e.ID, e.Name)
		assert.Less(t, int(e.ID), 64, "%s: a Set holds 64 differences", e.Name)
		assert.False(t, ids[e.ID], "%s: id %d taken twice", e.Name, e.ID)
		assert.False(t, names[e.Name], "%s: name taken twice", e.Name)
		ids[e.ID], names[e.Name] = true, true
		assert.Equal(t, e.Name, e.ID.String())
		id, ok := behavior.Lookup(e.Name)
		assert.True(t, ok)
		assert.Equal(t, e.ID, id)
		assert.NotEmpty(t, e.Volcano, e.Name)
		assert.NotEmpty(t, e.With, e.Name)
		assert.NotEmpty(t, e.Owner, e.Name)
		assert.NotEmpty(t, e.Tests, e.Name)
		switch e.Kind {
		case behavior.Correction:
			assert.Empty(t, e.Enable, "%s: a correction is asked for by its name", e.Name)
		case behavior.Extension, behavior.Choice:
			assert.NotEmpty(t, e.Enable, "%s: say how to ask for it", e.Name)
		default:
			t.Errorf("%s: unknown kind %q", e.Name, e.Kind)
		}
		if e.Upstream != "" {
			assert.Regexp(t, `^volcano#[0-9]+$`, e.Upstream, e.Name)
		}
	}
}

// TestRegistryOwnersExist fails when the code an entry names as its owner,
// or a test it names, is renamed, moved or deleted: the registry is where
// a reader goes from a difference to its code, and it must not lie.
func TestRegistryOwnersExist(t *testing.T) {
	src := newSources(t)
	for _, e := range behavior.Registry() {
		assert.NoError(t, src.find(e.Owner, false), "%s: owner", e.Name)
		for _, test := range e.Tests {
			assert.NoError(t, src.find(test, true), "%s: test", e.Name)
		}
	}
}

// TestRegistryFindsRenamedOwner shows the check above at work: an owner
// or test that does not exist is an error naming it.
func TestRegistryFindsRenamedOwner(t *testing.T) {
	src := newSources(t)
	for _, ref := range []string{
		"statemachine.(*KillPlan).StatusFirstRenamed",
		"cache.firstFailedContainerExitCodeRenamed",
		"cronjob.Options.NoSuchOption",
		"nosuchpackage.Thing",
		"statemachine.TestNoSuchTest",
		"vcjobtest/scenario/testdata/semantics/no-such-file.txt",
	} {
		err := src.find(ref, strings.Contains(ref, "Test") || strings.HasSuffix(ref, ".txt"))
		assert.Error(t, err, ref)
	}
	assert.NoError(t, src.find("statemachine.(*KillPlan).StatusFirst", false))
	assert.NoError(t, src.find("cronjob.Options.AdoptExistingJob", false))
}

func TestDifferencesPageIsGenerated(t *testing.T) {
	path := filepath.Join(root, "docs", "differences.md")
	want := page()
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(want), 0o644))
	}
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, want, string(got), "docs/differences.md is generated from the registry: go test ./behavior -run TestDifferencesPageIsGenerated -update")
}

func TestParseAndString(t *testing.T) {
	all := behavior.Corrected()
	for _, tc := range []struct {
		base  behavior.Set
		value string
		want  behavior.Set
		err   bool
	}{
		{value: "", want: behavior.Set{}},
		{value: "volcano", want: behavior.Set{}},
		{value: "corrected", want: all},
		{value: " corrected , -delays-by-pod-uid", want: all.Without(behavior.DelaysByPodUID)},
		{value: "resume-keeps-retries", want: behavior.Of(behavior.ResumeKeepsRetries)},
		{value: "exit-code-first-failed-container", want: behavior.Of(behavior.ExitCodeFirstFailedContainer)},
		{base: all, value: "volcano,leave-finished-jobs", want: behavior.Of(behavior.LeaveFinishedJobs)},
		{base: behavior.Of(behavior.AbortWhileRestarting), value: "out-of-sync-counted-once", want: behavior.Of(behavior.AbortWhileRestarting, behavior.OutOfSyncCountedOnce)},
		{base: all, value: "strict", want: all, err: true},
		{value: "retry-budget", err: true},              // an extension is asked for by the policy annotation
		{value: "deterministic-claim-names", err: true}, // a choice is the embedder's option
		{value: "-", err: true},
	} {
		got, err := behavior.Parse(tc.base, tc.value)
		if tc.err {
			assert.Error(t, err, tc.value)
		} else {
			assert.NoError(t, err, tc.value)
		}
		assert.Equal(t, tc.want, got, tc.value)
	}
	for _, id := range all.Corrections() {
		one := behavior.Of(id)
		assert.Equal(t, id.String(), one.String())
		back, err := behavior.Parse(behavior.Set{}, one.String())
		require.NoError(t, err)
		assert.Equal(t, one, back)
		text, err := one.MarshalText()
		require.NoError(t, err)
		var read behavior.Set
		require.NoError(t, read.UnmarshalText(text))
		assert.Equal(t, one, read)
	}
	assert.Equal(t, "volcano", behavior.Set{}.String())
	assert.Equal(t, "corrected", all.String())
	assert.True(t, behavior.Set{}.IsVolcano())
	assert.False(t, all.IsVolcano())
	assert.Len(t, all.Corrections(), 13)
}

// sources finds symbols and tests in the repository's Go files.
type sources struct {
	t    *testing.T
	fset *token.FileSet
	pkgs map[string][]*ast.File
}

func newSources(t *testing.T) *sources {
	return &sources{t: t, fset: token.NewFileSet(), pkgs: map[string][]*ast.File{}}
}

func (s *sources) files(dir string) ([]*ast.File, error) {
	if files, ok := s.pkgs[dir]; ok {
		return files, nil
	}
	paths, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
	if err != nil || len(paths) == 0 {
		return nil, fmt.Errorf("no Go files in %s", dir)
	}
	var files []*ast.File
	for _, p := range paths {
		f, err := parser.ParseFile(s.fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	s.pkgs[dir] = files
	return files, nil
}

// find checks that ref names something that exists: a repository file
// (a path with an extension other than a Go symbol's), or a symbol of a
// package directory, "<dir>.<Name>", "<dir>.<Type>.<Member>",
// "<dir>.(*<Type>).<Method>"; a test when test is set.
func (s *sources) find(ref string, test bool) error {
	if strings.HasSuffix(ref, ".txt") || strings.HasSuffix(ref, ".md") || strings.HasSuffix(ref, ".yaml") {
		if _, err := os.Stat(filepath.Join(root, ref)); err != nil {
			return fmt.Errorf("%s: %w", ref, err)
		}
		return nil
	}
	slash := strings.LastIndex(ref, "/")
	dot := strings.Index(ref[slash+1:], ".")
	if dot < 0 {
		return fmt.Errorf("%s: want <package dir>.<symbol>", ref)
	}
	dir, sym := ref[:slash+1+dot], ref[slash+1+dot+1:]
	files, err := s.files(dir)
	if err != nil {
		return fmt.Errorf("%s: %w", ref, err)
	}
	typ, member := "", sym
	if rest, ok := strings.CutPrefix(sym, "(*"); ok {
		typ, member, _ = strings.Cut(rest, ").")
	} else if t, m, ok := strings.Cut(sym, "."); ok {
		typ, member = t, m
	}
	for _, f := range files {
		if test != strings.HasSuffix(s.fset.Position(f.Pos()).Filename, "_test.go") {
			continue
		}
		if declares(f, typ, member) {
			return nil
		}
	}
	return fmt.Errorf("%s: not found in %s", ref, dir)
}

// declares reports whether f declares member (a function, type, variable
// or constant), or, with typ, a method or field member of typ.
func declares(f *ast.File, typ, member string) bool {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.Name != member {
				continue
			}
			if typ == "" && d.Recv == nil {
				return true
			}
			if typ != "" && d.Recv != nil && len(d.Recv.List) == 1 && receiverType(d.Recv.List[0].Type) == typ {
				return true
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch spec := spec.(type) {
				case *ast.TypeSpec:
					if typ == "" && spec.Name.Name == member {
						return true
					}
					if typ == spec.Name.Name && hasField(spec, member) {
						return true
					}
				case *ast.ValueSpec:
					for _, n := range spec.Names {
						if typ == "" && n.Name == member {
							return true
						}
					}
				}
			}
		}
	}
	return false
}

func receiverType(e ast.Expr) string {
	if star, ok := e.(*ast.StarExpr); ok {
		e = star.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

func hasField(spec *ast.TypeSpec, name string) bool {
	st, ok := spec.Type.(*ast.StructType)
	if !ok {
		return false
	}
	for _, f := range st.Fields.List {
		for _, n := range f.Names {
			if n.Name == name {
				return true
			}
		}
	}
	return false
}
