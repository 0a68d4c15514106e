package testfiles

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rootModule is the module whose go.mod marks the repository's root.
const rootModule = "github.com/vcjob/vcjob"

// Shared returns path, a file or folder that tests find in ../shared
// beside the repository, when it exists. When it does not, the test skips
// with a message naming what, the path as the test gives it, and where
// that is expected relative to the repository's root and on this machine.
// Any other error reading it fails the test.
func Shared(t testing.TB, path, what string) string {
	t.Helper()
	_, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skip(MissingMessage(path, what))
	}
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// MissingMessage is the skip message of Shared: what is missing and where
// it is expected.
func MissingMessage(path, what string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Sprintf("skipped: %s not found at %s", what, path)
	}
	where := abs
	// Named from the root when it is in the root's folder or beside it.
	if root, ok := repositoryRoot(); ok {
		if rel, err := filepath.Rel(root, abs); err == nil && !strings.HasPrefix(filepath.ToSlash(rel)+"/", "../../") {
			where = fmt.Sprintf("%s relative to the repository's root (%s)", filepath.ToSlash(rel), abs)
		}
	}
	return fmt.Sprintf("skipped: %s not found: expected at %s; the project that checks vcjob against Volcano keeps ../shared beside the repository", what, where)
}

// repositoryRoot is the nearest folder at or above the working directory
// (a test's package folder) whose go.mod declares the root module; ok is
// false when there is none.
func repositoryRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if moduleOf(filepath.Join(dir, "go.mod")) == rootModule {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// moduleOf is the module path a go.mod declares, "" when it cannot be read.
func moduleOf(goMod string) string {
	f, err := os.Open(goMod)
	if err != nil {
		return ""
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(scanner.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// Manifests returns the .yaml files of dir, a folder of Volcano's own
// example manifests in ../shared, by name. The test skips as Shared says
// when dir is absent, and fails when it holds no manifest.
func Manifests(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(Shared(t, dir, "Volcano's own example manifests"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, entry := range entries {
		if entry.IsDir() || !strings.HasSuffix(entry.Name(), ".yaml") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, entry.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[entry.Name()] = data
	}
	if len(files) == 0 {
		t.Fatalf("no manifests in %s", dir)
	}
	return files
}

// ManifestSeeds returns the contents of every file of dir that can be read, for a
// fuzz corpus: none when dir is absent.
func ManifestSeeds(dir string) [][]byte {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out [][]byte
	for _, entry := range entries {
		if data, err := os.ReadFile(filepath.Join(dir, entry.Name())); err == nil {
			out = append(out, data)
		}
	}
	return out
}

// MustRead is the file at path, which a test cannot do without: it panics
// when the file cannot be read, so that a fixture can be a package-level
// variable.
func MustRead(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return string(data)
}
