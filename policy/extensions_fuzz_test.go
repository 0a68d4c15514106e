package policy_test

import (
	"testing"

	"github.com/vcjob/vcjob/policy"
	"k8s.io/apimachinery/pkg/util/validation/field"
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
		ext, err := policy.DecodeExtensions(data)
		if err != nil {
			return
		}
		_ = policy.ValidateExtensions(ext, nil, field.NewPath("ext"))
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
