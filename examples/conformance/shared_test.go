package main

import (
	"os"
	"testing"

	"github.com/vcjob/vcjob/internal/testnote"
)

// TestMain says, in the output of a plain go test ./..., when the replay of
// the recorded vectors skips.
func TestMain(m *testing.M) {
	if _, err := os.Stat(publicVectors); err != nil {
		testnote.Say("vcjob/examples/conformance: " + publicVectors + " is missing (the steps recorded from Volcano's controller): the conformance replay skips")
	}
	if _, err := os.Stat(publicTTLVectors); err != nil {
		testnote.Say("vcjob/examples/conformance: " + publicTTLVectors + " is missing (the decisions recorded from Volcano's garbage collector): the TTL replay skips")
	}
	os.Exit(m.Run())
}
