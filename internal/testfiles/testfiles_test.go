package testfiles

import (
	"os"
	"path/filepath"
	"strings"
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

// skips reports whether fn, run as a subtest, skipped.
func skips(t *testing.T, fn func(t *testing.T)) bool {
	t.Helper()
	skipped := false
	t.Run("sub", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		fn(t)
	})
	return skipped
}

func TestSharedSkipsWhenAbsent(t *testing.T) {
	dir := t.TempDir()
	if skips(t, func(t *testing.T) {
		if got := Shared(t, dir, "a folder"); got != dir {
			t.Errorf("Shared = %q, want %q", got, dir)
		}
	}) {
		t.Error("Shared skipped on a folder that exists")
	}
	if !skips(t, func(t *testing.T) {
		Shared(t, filepath.Join(dir, "absent"), "a folder")
		t.Error("Shared went on past an absent path")
	}) {
		t.Error("Shared did not skip on an absent path")
	}
	if !skips(t, func(t *testing.T) {
		Manifests(t, filepath.Join(dir, "absent"))
		t.Error("Manifests went on past an absent folder")
	}) {
		t.Error("Manifests did not skip on an absent folder")
	}
}

func TestMissingMessageSaysWhatAndWhere(t *testing.T) {
	// From this package's folder, ../../../shared is ../shared from the
	// repository's root.
	rel := "../../../shared/manifests/nowhere"
	abs, err := filepath.Abs(rel)
	if err != nil {
		t.Fatal(err)
	}
	msg := MissingMessage(rel, "Volcano's own example manifests")
	for _, want := range []string{
		"Volcano's own example manifests not found",
		"../shared/manifests/nowhere relative to the repository's root",
		abs,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("MissingMessage = %q, want it to say %q", msg, want)
		}
	}
	// Outside any checkout of the repository, the path alone says where.
	outside := filepath.Join(t.TempDir(), "shared", "x")
	msg = MissingMessage(outside, "x")
	if !strings.Contains(msg, "expected at "+outside+";") {
		t.Errorf("MissingMessage outside the repository = %q, want the absolute path", msg)
	}
}
