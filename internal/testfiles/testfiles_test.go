package testfiles

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReadAndManifestSeeds(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"a.yaml": "a", "b.yaml": "b", "notes.txt": "n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub.yaml"), 0o700); err != nil {
		t.Fatal(err)
	}
	files := Manifests(t, dir)
	if len(files) != 2 || string(files["a.yaml"]) != "a" || string(files["b.yaml"]) != "b" {
		t.Errorf("Manifests: %q, want a.yaml and b.yaml only", files)
	}
	if seeds := ManifestSeeds(dir); len(seeds) != 3 {
		t.Errorf("ManifestSeeds: %q, want the three files", seeds)
	}
	if seeds := ManifestSeeds(filepath.Join(dir, "absent")); seeds != nil {
		t.Errorf("ManifestSeeds of an absent folder: %q", seeds)
	}
}

func TestMustRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := MustRead(path); got != "x" {
		t.Errorf("MustRead = %q", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("MustRead of a missing file did not panic")
		}
	}()
	MustRead(path + ".absent")
}
