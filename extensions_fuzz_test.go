package vcjob_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vcjob/vcjob"
)

// The policy-extension document never panics the decoder or the
// validator, and a decoded document's exit-code rules answer every code.
func FuzzDecodeExtensions(f *testing.F) {
	for _, seed := range []string{
		"exitCodes: [{operator: In, values: ['1', '128-255'], action: RestartPod}]",
		"deadline: {after: 1h}\nrestartBackoff: {base: 1s, max: 1m, jitterPercent: 50}",
		"retryBudget: {restarts: 2, window: 10m}\nescalation: {restartPod: 1, restartTask: 1}",
		"disruptions: {action: RestartTask}",
		"exitCodes: [{operator: NotIn, values: ['-5--1', '2147483647']}]",
		"{}", "", "[", "exitCodes: 7",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ext, err := vcjob.DecodeExtensions(data)
		if err != nil {
			return
		}
		_ = vcjob.ValidateExtensions(ext, nil, field.NewPath("ext"))
		for _, r := range ext.ExitCodes {
			for _, code := range []int32{-1, 0, 1, 137, 255, 1 << 30} {
				_ = r.Matches("worker", code)
			}
		}
		if b := ext.RestartBackoff; b != nil {
			prev := b.Wait(1, "uid")
			for n := int32(2); n < 80; n++ {
				w := b.Wait(n, "uid")
				if w < prev || (b.Base.Duration > 0 && b.Max.Duration >= b.Base.Duration && w > b.Max.Duration) {
					t.Fatalf("wait %d = %v after %v (max %v)", n, w, prev, b.Max.Duration)
				}
				prev = w
			}
		}
	})
}

// ParseSemantics never panics, and what it reads prints back to itself.
func FuzzParseSemantics(f *testing.F) {
	for _, seed := range []string{"corrected", "volcano", "corrected,-delays-by-pod-uid", " leave-finished-jobs ,", "-", "x"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		s, err := vcjob.ParseSemantics(vcjob.Semantics{}, value)
		if err != nil {
			return
		}
		back, err := vcjob.ParseSemantics(vcjob.Semantics{}, s.String())
		if err != nil || back != s {
			t.Fatalf("%q -> %q -> %+v, %v", value, s.String(), back, err)
		}
	})
}
