package vcjob

import (
	"math"
	"testing"
)

// FuzzPodNameIndex: PodNameIndex reads back exactly the names PodName
// writes. For any name it accepts, PodName gives that name again; any index
// PodName writes, it reads back.
func FuzzPodNameIndex(f *testing.F) {
	for _, seed := range []struct {
		name, job, task string
		index           int
	}{
		{"j-w-0", "j", "w", 0}, {"j-w-01", "j", "w", 1}, {"j-w-", "j", "w", 12}, {"a-b-c-3", "a-b", "c", 3},
		{"a-b-c-3", "a", "b-c", 3}, {"j-w-99999999999", "j", "w", 1 << 30}, {"j-w-4294967296", "j", "w", 2147483647}, {"", "", "", 0}, {"--0", "", "", 0},
	} {
		f.Add(seed.name, seed.job, seed.task, seed.index)
	}
	f.Fuzz(func(t *testing.T, name, job, task string, index int) {
		if i, ok := PodNameIndex(name, job, task); ok {
			if got := PodName(job, task, i); got != name {
				t.Fatalf("PodNameIndex(%q, %q, %q) = %d, but PodName gives %q", name, job, task, i, got)
			}
		}
		if index < 0 {
			index = -index
		}
		if index < 0 || int64(index) > math.MaxInt32 {
			return
		}
		if i, ok := PodNameIndex(PodName(job, task, index), job, task); !ok || i != index {
			t.Fatalf("PodName(%q, %q, %d) reads back as %d, %v", job, task, index, i, ok)
		}
	})
}
