package realmanifests

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReadAndSeeds(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"a.yaml": "a", "b.yaml": "b", "notes.txt": "n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub.yaml"), 0o700); err != nil {
		t.Fatal(err)
	}
	files := Read(t, dir)
	if len(files) != 2 || string(files["a.yaml"]) != "a" || string(files["b.yaml"]) != "b" {
		t.Errorf("Read: %q, want a.yaml and b.yaml only", files)
	}
	if seeds := Seeds(dir); len(seeds) != 3 {
		t.Errorf("Seeds: %q, want the three files", seeds)
	}
	if seeds := Seeds(filepath.Join(dir, "absent")); seeds != nil {
		t.Errorf("Seeds of an absent folder: %q", seeds)
	}
}
