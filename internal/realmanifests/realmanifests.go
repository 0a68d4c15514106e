// Package realmanifests reads Volcano's own example manifests, kept beside
// the repository (in ../shared, not part of it), for the tests that check
// real manifests: how the root package decodes them and what validation
// says of them.
package realmanifests

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Read returns the .yaml files of dir by name. The test skips when dir is
// absent, and fails when it holds no manifest.
func Read(t testing.TB, dir string) map[string][]byte {
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

// Seeds returns the contents of every file of dir that can be read, for a
// fuzz corpus: none when dir is absent.
func Seeds(dir string) [][]byte {
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
