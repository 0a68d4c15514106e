package semantics_test

import (
	"testing"

	"github.com/vcjob/vcjob/semantics"
)

// ParseSemantics never panics, and what it reads prints back to itself.
func FuzzParseSemantics(f *testing.F) {
	for _, seed := range []string{"corrected", "volcano", "corrected,-delays-by-pod-uid", " leave-finished-jobs ,", "-", "x"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		s, err := semantics.Parse(semantics.Profile{}, value)
		if err != nil {
			return
		}
		back, err := semantics.Parse(semantics.Profile{}, s.String())
		if err != nil || back != s {
			t.Fatalf("%q -> %q -> %+v, %v", value, s.String(), back, err)
		}
	})
}
