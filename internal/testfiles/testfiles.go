// Package testfiles reads the files tests are built on, so that packages
// sharing a fixture read it the same way: the repository's testdata, and
// Volcano's own example manifests, kept beside the repository (in
// ../shared, not part of it), whose decoding the root package checks and
// whose verdicts validation does.
package testfiles

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Manifests returns the .yaml files of dir by name. The test skips when dir is
// absent, and fails when it holds no manifest.
func Manifests(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s is absent: no real manifests to check", dir)
	}
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
