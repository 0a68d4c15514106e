package podgroup

import (
	"fmt"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"

	"github.com/vcjob/vcjob"
)

// podMarker is put in every generated pod's overhead, once per pod, so the
// number of pods MinResources counted can be read off its result.
const podMarker corev1.ResourceName = "example.com/pods"

var propertyClasses = map[string]int32{"a": 1, "b": 5, "c": -3}

// genJob draws a valid job (0 ≤ task minAvailable ≤ replicas) of 1–4
// tasks with mixed priorities, init containers and overheads, and a job
// minAvailable from 0 to a little above all replicas.
func genJob(t *rapid.T) *vcjob.Job {
	n := rapid.IntRange(1, 4).Draw(t, "tasks")
	var tasks []vcjob.TaskSpec
	var replicas int32
	for i := range n {
		r := rapid.Int32Range(0, 20).Draw(t, "replicas")
		replicas += r
		var minAv *int32
		if rapid.Bool().Draw(t, "minAvailableSet") {
			minAv = ptr(rapid.Int32Range(0, r).Draw(t, "minAvailable"))
		}
		req := fmt.Sprintf("cpu=%dm,memory=%dMi", rapid.IntRange(0, 4000).Draw(t, "cpu"), rapid.IntRange(0, 4096).Draw(t, "mem"))
		if rapid.Bool().Draw(t, "gpu") {
			req += ",nvidia.com/gpu=1"
		}
		tk := task(fmt.Sprintf("t%d", i), r, minAv, rapid.SampledFrom([]string{"", "a", "b", "c", "ghost"}).Draw(t, "class"), req)
		if rapid.Bool().Draw(t, "init") {
			tk.Template.Spec.InitContainers = []corev1.Container{
				container(fmt.Sprintf("cpu=%dm,ephemeral-storage=1Gi", rapid.IntRange(0, 6000).Draw(t, "initCPU"))),
			}
		}
		tk.Template.Spec.Overhead = corev1.ResourceList{podMarker: resource.MustParse("1")}
		if rapid.Bool().Draw(t, "overhead") {
			tk.Template.Spec.Overhead[corev1.ResourceCPU] = resource.MustParse("100m")
		}
		tasks = append(tasks, tk)
	}
	return job(rapid.Int32Range(0, replicas+3).Draw(t, "jobMinAvailable"), tasks...)
}

// referenceMinResources reads the minResources rule literally, one pod at
// a time.
func referenceMinResources(j *vcjob.Job, prios PriorityLookup) corev1.ResourceList {
	prio := func(tk *vcjob.TaskSpec) int32 {
		name := tk.Template.Spec.PriorityClassName
		if prios == nil || name == "" {
			return 0
		}
		v, _ := prios(name)
		return v
	}
	order := make([]*vcjob.TaskSpec, len(j.Spec.Tasks))
	for i := range j.Spec.Tasks {
		order[i] = &j.Spec.Tasks[i]
	}
	sort.SliceStable(order, func(a, b int) bool { return prio(order[a]) > prio(order[b]) })

	out := corev1.ResourceList{}
	addPod := func(tk *vcjob.TaskSpec) {
		for name, q := range PodRequest(&tk.Template.Spec) {
			have := out[name]
			have.Add(q)
			out[name] = have
		}
	}
	want := int(j.Spec.MinAvailable)
	total := 0
	for _, tk := range order {
		if tk.MinAvailable != nil {
			total += int(*tk.MinAvailable)
		} else {
			total += int(tk.Replicas)
		}
	}
	count := 0
	if want < total {
		for _, tk := range order {
			for i := 0; i < int(tk.Replicas) && count < want; i++ {
				addPod(tk)
				count++
			}
		}
		return out
	}
	for _, tk := range order {
		if tk.MinAvailable == nil {
			continue
		}
		for i := 0; i < int(*tk.MinAvailable) && count < want; i++ {
			addPod(tk)
			count++
		}
	}
	for _, tk := range order {
		spare := int(tk.Replicas)
		if tk.MinAvailable != nil {
			spare -= int(*tk.MinAvailable)
		}
		for i := 0; i < spare && count < want; i++ {
			addPod(tk)
			count++
		}
	}
	return out
}

// atMost reports whether every quantity of a is at most b's (a resource b
// lacks counts as 0 there).
func atMost(a, b corev1.ResourceList) (string, bool) {
	for name, q := range a {
		bound := b[name]
		if q.Cmp(bound) > 0 {
			return fmt.Sprintf("%s: %s > %s", name, q.String(), bound.String()), false
		}
	}
	return "", true
}

func allReplicas(j *vcjob.Job) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := range j.Spec.Tasks {
		tk := &j.Spec.Tasks[i]
		for range tk.Replicas {
			for name, q := range PodRequest(&tk.Template.Spec) {
				have := out[name]
				have.Add(q)
				out[name] = have
			}
		}
	}
	return out
}

func taskSum(j *vcjob.Job) int32 {
	var s int32
	for _, tk := range j.Spec.Tasks {
		if tk.MinAvailable != nil {
			s += *tk.MinAvailable
		} else {
			s += tk.Replicas
		}
	}
	return s
}

func TestMinResourcesProperties(t *testing.T) {
	prios := classes(propertyClasses)
	rapid.Check(t, func(t *rapid.T) {
		j := genJob(t)
		got := minReq(j, prios)

		// Equal to the one-pod-at-a-time reading of the rules.
		if d := diffResources(referenceMinResources(j, prios), got); d != "" {
			t.Fatalf("differs from the reference: %s", d)
		}

		// Never more than every replica of the job.
		if d, ok := atMost(got, allReplicas(j)); !ok {
			t.Fatalf("above all replicas: %s", d)
		}

		// It counts min(job minAvailable, all replicas) pods.
		var replicas int64
		for _, tk := range j.Spec.Tasks {
			replicas += int64(tk.Replicas)
		}
		marker := got[podMarker]
		if want := min(int64(j.Spec.MinAvailable), replicas); marker.Value() != want {
			t.Fatalf("counted %d pods, want %d", marker.Value(), want)
		}

		// Monotone in job minAvailable on each side of the task sum (across
		// it, Volcano's rules are not: see TestMinResourcesNotMonotoneAtTheTaskSum).
		sum := taskSum(j)
		lower := j.DeepCopy()
		if j.Spec.MinAvailable < sum {
			lower.Spec.MinAvailable = rapid.Int32Range(0, j.Spec.MinAvailable).Draw(t, "lower")
		} else {
			lower.Spec.MinAvailable = rapid.Int32Range(sum, j.Spec.MinAvailable).Draw(t, "lower")
		}
		if d, ok := atMost(minReq(lower, prios), got); !ok {
			t.Fatalf("minAvailable %d needs more than %d: %s", lower.Spec.MinAvailable, j.Spec.MinAvailable, d)
		}
	})
}

// With one task the two cases pick the same pods, so the floor is monotone
// in job minAvailable everywhere.
func TestMinResourcesMonotoneForOneTask(t *testing.T) {
	prios := classes(propertyClasses)
	rapid.Check(t, func(t *rapid.T) {
		j := genJob(t)
		j.Spec.Tasks = j.Spec.Tasks[:1]
		hi := rapid.Int32Range(0, j.Spec.Tasks[0].Replicas+3).Draw(t, "hi")
		lo := rapid.Int32Range(0, hi).Draw(t, "lo")
		a, b := j.DeepCopy(), j.DeepCopy()
		a.Spec.MinAvailable, b.Spec.MinAvailable = lo, hi
		if d, ok := atMost(minReq(a, prios), minReq(b, prios)); !ok {
			t.Fatalf("minAvailable %d needs more than %d: %s", lo, hi, d)
		}
	})
}
