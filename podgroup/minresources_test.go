package podgroup

import (
	"fmt"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/vcjob/vcjob"
)

func TestMinResources(t *testing.T) {
	prios := classes(map[string]int32{"high": 100, "low": 10, "neg": -5})

	withInit := func(tk vcjob.TaskSpec, req string) vcjob.TaskSpec {
		tk.Template.Spec.InitContainers = []corev1.Container{container(req)}
		return tk
	}
	withOverhead := func(tk vcjob.TaskSpec, oh string) vcjob.TaskSpec {
		tk.Template.Spec.Overhead = rl(oh)
		return tk
	}
	twoContainers := func(tk vcjob.TaskSpec) vcjob.TaskSpec {
		tk.Template.Spec.Containers = append(tk.Template.Spec.Containers, container("cpu=1"))
		return tk
	}

	tests := []struct {
		name  string
		job   *vcjob.Job
		prios PriorityLookup
		want  string
	}{
		// Job minAvailable below the task sum: the first n pods in order.
		{"equal priorities keep the job's order", job(3,
			task("a", 2, ptr[int32](2), "low", "cpu=1"),
			task("b", 2, ptr[int32](2), "low", "cpu=10"),
		), prios, "cpu=12"},
		{"distinct priorities: highest first", job(3,
			task("a", 2, ptr[int32](2), "low", "cpu=1"),
			task("b", 2, ptr[int32](2), "high", "cpu=10"),
		), prios, "cpu=21"},
		{"a missing class counts 0: after a positive one", job(3,
			task("a", 2, ptr[int32](2), "ghost", "cpu=1"),
			task("b", 2, ptr[int32](2), "low", "cpu=10"),
		), prios, "cpu=21"},
		{"a missing class counts 0: before a negative one", job(3,
			task("a", 2, ptr[int32](2), "neg", "cpu=1"),
			task("b", 2, ptr[int32](2), "ghost", "cpu=10"),
		), prios, "cpu=21"},
		{"no lookup: every task counts 0", job(3,
			task("a", 2, ptr[int32](2), "low", "cpu=1"),
			task("b", 2, ptr[int32](2), "high", "cpu=10"),
		), nil, "cpu=12"},
		{"below: takes replicas beyond a task's minAvailable", job(3,
			task("a", 4, ptr[int32](1), "high", "cpu=1"),
			task("b", 4, ptr[int32](4), "low", "cpu=10"),
		), prios, "cpu=3"},
		{"below: job minAvailable 0 adds nothing", job(0,
			task("a", 2, ptr[int32](2), "", "cpu=1"),
		), prios, ""},

		// Equal to the task sum: every task's minAvailable.
		{"equal: each task's minAvailable", job(3,
			task("a", 4, ptr[int32](2), "", "cpu=1"),
			task("b", 3, ptr[int32](1), "", "cpu=10"),
		), prios, "cpu=12"},

		// Above the task sum: minAvailable, then spare replicas in order.
		{"above: spare replicas in job order", job(6,
			task("a", 4, ptr[int32](2), "", "cpu=1"),
			task("b", 3, ptr[int32](1), "", "cpu=10"),
		), prios, "cpu=24"}, // 2a+1b, then 2a, then 1b
		{"above: spare replicas in priority order", job(6,
			task("a", 4, ptr[int32](2), "low", "cpu=1"),
			task("b", 3, ptr[int32](1), "high", "cpu=10"),
		), prios, "cpu=33"}, // 1b+2a, then 2b, then 1a
		{"above: a task with minAvailable = replicas has no spare", job(4,
			task("a", 2, ptr[int32](2), "high", "cpu=100"),
			task("b", 3, ptr[int32](1), "low", "cpu=1"),
		), prios, "cpu=202"},
		{"above: more than every replica stops at the replicas", job(50,
			task("a", 2, ptr[int32](1), "", "cpu=1"),
			task("b", 3, ptr[int32](1), "", "cpu=10"),
		), prios, "cpu=32"},

		// A task whose minAvailable is nil: its replicas in the sum, no
		// pods in the first pass, all its replicas are spare.
		{"minAvailable nil, job at the sum", job(4,
			task("a", 3, nil, "low", "cpu=1"),
			task("b", 2, ptr[int32](1), "high", "cpu=10"),
		), prios, "cpu=22"}, // 1b; then 1 spare b, 2 of a
		{"minAvailable nil, job below the sum", job(2,
			task("a", 3, nil, "high", "cpu=1"),
			task("b", 2, ptr[int32](1), "low", "cpu=10"),
		), prios, "cpu=2"},

		// Pod requests.
		{"init container larger than the container sum", job(2,
			twoContainers(withInit(task("a", 2, ptr[int32](2), "", "cpu=1,memory=1Gi"), "cpu=3")),
		), prios, "cpu=6,memory=2Gi"},
		{"init container smaller than the container sum", job(2,
			twoContainers(withInit(task("a", 2, ptr[int32](2), "", "cpu=1,memory=1Gi"), "cpu=1500m,memory=512Mi")),
		), prios, "cpu=4,memory=2Gi"},
		{"overhead counts per pod", job(3,
			withOverhead(task("a", 3, ptr[int32](3), "", "cpu=1,memory=1Gi"), "cpu=250m,memory=100Mi"),
		), prios, "cpu=3750m,memory=3372Mi"},
		{"milli quantities multiply exactly", job(3,
			task("a", 3, ptr[int32](3), "", "cpu=333m,nvidia.com/gpu=1"),
		), prios, "cpu=999m,nvidia.com/gpu=3"},

		// Zero replicas and empty jobs.
		{"a task of zero replicas adds no resource name", job(2,
			task("a", 0, ptr[int32](0), "high", "memory=1Gi"),
			task("b", 2, ptr[int32](2), "low", "cpu=10"),
		), prios, "cpu=20"},
		{"no tasks", job(0), prios, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.job.DeepCopy()
			got := minReq(tt.job, tt.prios)
			if got == nil {
				t.Fatal("nil result")
			}
			sameResources(t, rl(tt.want), got)
			// The literal one-pod-at-a-time reading of the rules agrees.
			sameResources(t, got, referenceMinResources(tt.job, tt.prios))
			if !equality.Semantic.DeepEqual(before, tt.job) {
				t.Fatal("MinResources modified the job")
			}
		})
	}
}

func TestMinResourcesNilJob(t *testing.T) {
	if got := minReq(nil, nil); got == nil || len(got) != 0 {
		t.Fatalf("got %v", got)
	}
}

// Volcano's lookup is never asked about an empty class name.
func TestMinResourcesSkipsEmptyClassName(t *testing.T) {
	var asked []string
	lookup := func(name string) (int32, bool) {
		asked = append(asked, name)
		return 7, true
	}
	j := job(2, task("a", 1, ptr[int32](1), "", "cpu=1"), task("b", 1, ptr[int32](1), "x", "cpu=10"))
	sameResources(t, rl("cpu=11"), minReq(j, lookup))
	if len(asked) != 1 || asked[0] != "x" {
		t.Fatalf("lookup asked %q", asked)
	}
}

// Volcano's rules are not monotone across the boundary between its two
// cases: one pod fewer than the task sum may need more of a resource than
// the task sum itself. Kept on purpose: Volcano does it.
func TestMinResourcesNotMonotoneAtTheTaskSum(t *testing.T) {
	j := job(0,
		task("a", 10, ptr[int32](1), "high", "memory=100Mi"),
		task("b", 2, ptr[int32](2), "low", "cpu=100"),
	)
	j.Spec.MinAvailable = 2 // below the sum 3: two pods of a
	sameResources(t, rl("memory=200Mi"), minReq(j, classes(map[string]int32{"high": 1})))
	j.Spec.MinAvailable = 3 // at the sum: one of a, two of b
	sameResources(t, rl("memory=100Mi,cpu=200"), minReq(j, classes(map[string]int32{"high": 1})))
}

// 3 tasks × 10,000 replicas: the cost must not depend on replica counts.
func BenchmarkMinResources(b *testing.B) {
	j := job(25000,
		withSidecar(task("ps", 10000, ptr[int32](5000), "high", "cpu=2,memory=4Gi")),
		task("worker", 10000, ptr[int32](8000), "low", "cpu=500m,memory=1Gi,nvidia.com/gpu=1"),
		task("eval", 10000, nil, "", "cpu=250m,memory=512Mi"),
	)
	prios := classes(map[string]int32{"high": 100, "low": 10})
	b.ReportAllocs()
	for b.Loop() {
		_ = minReq(j, prios)
	}
}

func withSidecar(tk vcjob.TaskSpec) vcjob.TaskSpec {
	c := container("cpu=100m,memory=128Mi")
	c.RestartPolicy = ptr(corev1.ContainerRestartPolicyAlways)
	tk.Template.Spec.InitContainers = []corev1.Container{c}
	tk.Template.Spec.Overhead = rl("cpu=50m")
	return tk
}

func TestTimes(t *testing.T) {
	tests := []struct {
		q    string
		n    int64
		want string
	}{
		{"1", 1, "1"},
		{"2", 3, "6"},
		{"250m", 3, "750m"},
		{"1.5", 4, "6"},
		{"0", 5, "0"},
		{"3Gi", 10000, "30000Gi"},
		{"1u", 1000, "1m"},
		{"7n", 3, "21n"},
		{"9223372036854775807", 2, "18446744073709551614"},
		{"9223372036854775807m", 3, "27670116110564327421m"},
		{"-2", 3, "-6"},
	}
	for _, tt := range tests {
		t.Run(tt.q+"×"+strconv.FormatInt(tt.n, 10), func(t *testing.T) {
			q := resource.MustParse(tt.q)
			before := q.DeepCopy()
			got := times(q, tt.n)
			if want := resource.MustParse(tt.want); got.Cmp(want) != 0 {
				t.Fatalf("got %s, want %s", got.String(), want.String())
			}
			if got.Format != q.Format {
				t.Fatalf("format %s, want %s", got.Format, q.Format)
			}
			if q.Cmp(before) != 0 || q.String() != before.String() {
				t.Fatalf("input changed to %s", q.String())
			}
		})
	}
}

// Equal priorities keep the job's order however many tasks there are (an
// unstable sort would reorder long runs of equals).
func TestMinResourcesStableOrder(t *testing.T) {
	var tasks []vcjob.TaskSpec
	want := corev1.ResourceList{}
	for i := range 40 {
		res := fmt.Sprintf("example.com/t%02d", i)
		pc := "low"
		if i%3 == 0 {
			pc = "high"
		}
		tasks = append(tasks, task(fmt.Sprintf("t%02d", i), 1, ptr[int32](1), pc, res+"=1"))
		if pc == "high" || i < 11 { // 14 high tasks first, then low ones in job order
			want[corev1.ResourceName(res)] = resource.MustParse("1")
		}
	}
	// 14 high tasks (0, 3, …, 39), then the first 7 low ones: 1, 2, 4, 5, 7, 8, 10.
	got := minReq(job(21, tasks...), classes(map[string]int32{"high": 2, "low": 1}))
	sameResources(t, want, got)
}
