package main

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcjob/vcjob/internal/testfiles"
)

// sharedConformance is where the project that records the vectors keeps
// them, beside the repository; the repository ships copies of its public
// files in testdata.
const sharedConformance = "../../../shared/conformance"

// TestCopiesMatchShared: each vectors file the repository ships is the
// recorded file, byte for byte once decompressed, where the recorded one
// is at hand. A clone without ../shared has only the copies.
func TestCopiesMatchShared(t *testing.T) {
	copies, err := filepath.Glob("testdata/*.jsonl.gz")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("testdata/*/*.jsonl.gz")
	copies = append(copies, more...)
	if len(copies) < 6 {
		t.Fatalf("testdata holds %d vectors files, want the six public ones", len(copies))
	}
	testfiles.Shared(t, sharedConformance, "the recorded conformance vectors")
	for _, c := range copies {
		rel := strings.TrimSuffix(strings.TrimPrefix(c, "testdata/"), ".gz")
		want, err := os.ReadFile(filepath.Join(sharedConformance, rel))
		if errors.Is(err, fs.ErrNotExist) {
			t.Logf("%s: no recorded file to compare with", rel)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		r, err := openVectors(c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s: refresh the copy (gzip -9 -n)", c, rel)
		}
	}
}
