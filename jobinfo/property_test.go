package jobinfo_test

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/jobinfo"
)

// TestCountsEqualARecount drives job infos through random pod changes, job
// changes (replicas, name, a job assigned directly), leases, releases and
// clones (of the cache-like original and of the copies themselves, which
// are changed too), and checks after every step that
//
//   - the counts and sets each keeps equal a recount from its pods, written
//     here as the plain loops a reader of Volcano's code would write;
//   - every job info still valid (not a released lease) holds exactly what
//     its own changes made of it, though the ones it shares maps with
//     change theirs in place whenever they may.
func TestCountsEqualARecount(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		job := genJob(t, "job")
		first, err := jobinfo.New(job)
		if err != nil {
			t.Fatal(err)
		}
		type live struct {
			ji     *jobinfo.Info
			want   contents
			leased bool
		}
		infos := []live{{ji: first, want: contentsOf(first)}}
		for i := range rapid.IntRange(1, 100).Draw(t, "steps") {
			label := fmt.Sprint("step", i)
			// Half the time the first, which plays the cache's job info.
			k := 0
			if rapid.Bool().Draw(t, label+".other") {
				k = rapid.IntRange(0, len(infos)-1).Draw(t, label+".which")
			}
			ji := infos[k].ji
			switch op := rapid.IntRange(0, 11).Draw(t, label); {
			case op < 5:
				if err := ji.AddPod(genPod(t, ji.Job, label)); err != nil {
					t.Fatalf("%s: AddPod: %v", label, err)
				}
			case op < 7:
				ji.DeletePod(genPod(t, ji.Job, label))
			case op == 7:
				next := changeJob(t, ji.Job, label)
				if rapid.IntRange(0, 3).Draw(t, label+".direct") == 0 {
					ji.Job = next // the documented slow path: readers recount
				} else {
					ji.SetJob(next)
				}
			case op == 8:
				l := ji.Lease()
				infos = append(infos, live{ji: l, want: contentsOf(l), leased: true})
			case op == 9:
				c := ji.Clone()
				infos = append(infos, live{ji: c, want: contentsOf(c)})
			default:
				if infos[k].leased {
					ji.Release()
					infos = slices.Delete(infos, k, k+1)
					ji = nil
				}
			}
			if ji != nil {
				infos[k].want = contentsOf(ji)
			}
			for li, l := range infos {
				if got := contentsOf(l.ji); !got.equal(l.want) {
					t.Fatalf("%s: job info %d (leased %v) changed though nobody changed it:\nwas %v\nnow %v", label, li, l.leased, l.want, got)
				}
				checkRecount(t, fmt.Sprintf("%s: job info %d", label, li), l.ji)
			}
		}
	})
}

// contents is what a JobInfo holds, pod objects by identity.
type contents struct {
	job    *vcjob.Job
	pods   map[string]map[string]*corev1.Pod
	counts map[string]jobinfo.TaskCounts
	n      int
}

func contentsOf(ji *jobinfo.Info) contents {
	c := contents{job: ji.Job, pods: map[string]map[string]*corev1.Pod{}, counts: map[string]jobinfo.TaskCounts{}, n: ji.PodCount()}
	for task, p := range ji.Pods() {
		if c.pods[task] == nil {
			c.pods[task] = map[string]*corev1.Pod{}
		}
		c.pods[task][p.Name] = p
	}
	for _, task := range ji.TaskNames() {
		c.counts[task] = ji.Task(task).Counts()
	}
	return c
}

func (c contents) equal(d contents) bool {
	if c.job != d.job || c.n != d.n || len(c.pods) != len(d.pods) || len(c.counts) != len(d.counts) {
		return false
	}
	for task, pods := range c.pods {
		if !maps.Equal(pods, d.pods[task]) {
			return false
		}
	}
	for task, tc := range c.counts {
		if !countsEqual(tc, d.counts[task]) {
			return false
		}
	}
	return true
}

func (c contents) String() string {
	var tasks []string
	for task, pods := range c.pods {
		tasks = append(tasks, fmt.Sprintf("%s:%d pods %+v", task, len(pods), c.counts[task]))
	}
	sort.Strings(tasks)
	return fmt.Sprint(c.n, " pods ", tasks)
}

func countsEqual(a, b jobinfo.TaskCounts) bool {
	pa, pb := a.Phases, b.Phases
	return a.InRange == b.InRange && a.Terminating == b.Terminating && a.Ready == b.Ready &&
		a.Succeeded == b.Succeeded && a.Restarts == b.Restarts &&
		pa.Pending == pb.Pending && pa.Running == pb.Running && pa.Succeeded == pb.Succeeded &&
		pa.Failed == pb.Failed && pa.Unknown == pb.Unknown && maps.Equal(pa.Other, pb.Other)
}

// checkRecount recounts every task of ji from its pods and compares.
func checkRecount(t *rapid.T, label string, ji *jobinfo.Info) {
	byTask := map[string][]*corev1.Pod{}
	total := 0
	for task, p := range ji.Pods() {
		byTask[task] = append(byTask[task], p)
		total++
	}
	if ji.PodCount() != total {
		t.Fatalf("%s: PodCount %d, but %d pods", label, ji.PodCount(), total)
	}
	names := slices.Sorted(maps.Keys(byTask))
	if got := ji.TaskNames(); !slices.Equal(got, names) {
		t.Fatalf("%s: TaskNames %v, pods are under %v", label, got, names)
	}
	// Tasks of the spec without pods read as empty too.
	if ji.Job != nil {
		for _, task := range ji.Job.Spec.Tasks {
			if _, ok := byTask[task.Name]; !ok {
				byTask[task.Name] = nil
			}
		}
	}
	for task, pods := range byTask {
		want := recount(ji.Job, task, pods)
		tp := ji.Task(task)
		if got := tp.Counts(); !countsEqual(got, want.counts) {
			t.Fatalf("%s: task %s: counts\n got %+v\nwant %+v", label, task, got, want.counts)
		}
		if got := podNames(tp.OutOfSync()); !slices.Equal(got, want.outOfSync) {
			t.Fatalf("%s: task %s: out of sync %v, want %v", label, task, got, want.outOfSync)
		}
		if got := podNames(tp.Excess()); !slices.Equal(got, want.excess) {
			t.Fatalf("%s: task %s: excess %v, want %v", label, task, got, want.excess)
		}
		for _, id := range []string{"", "0", "1", "2"} {
			if got := podNames(tp.Partition(id)); !slices.Equal(got, want.partitions[id]) {
				t.Fatalf("%s: task %s: partition %q holds %v, want %v", label, task, id, got, want.partitions[id])
			}
		}
		if got := tp.Missing(); !slices.Equal(got, want.missing) {
			t.Fatalf("%s: task %s: missing %v, want %v", label, task, got, want.missing)
		}
		if got := podNames(tp.Sorted()); !slices.Equal(got, podNames(sortedByName(pods))) {
			t.Fatalf("%s: task %s: Sorted %v, pods %v", label, task, got, podNames(pods))
		}
		for _, p := range pods {
			if tp.Get(p.Name) != p || ji.Pod(task, p.Name) != p {
				t.Fatalf("%s: task %s: Get(%s) is not the pod filed", label, task, p.Name)
			}
		}
	}
}

type recounted struct {
	counts            jobinfo.TaskCounts
	outOfSync, excess []string
	partitions        map[string][]string
	// missing: the indices in range without a pod, for a task with pods.
	missing []int
}

// recount is the oracle: a task's pods counted one by one, as Volcano's
// code counts them. A pod is in range when it is named <job>-<task>-<i> for an i below
// the replicas of the job's first task of that name.
func recount(job *vcjob.Job, task string, pods []*corev1.Pod) recounted {
	var r recounted
	r.partitions = map[string][]string{}
	replicas := -1
	if job != nil {
		if ts := job.Task(task); ts != nil {
			replicas = int(ts.Replicas)
		}
	}
	if len(pods) > 0 {
	next:
		for i := 0; i < replicas; i++ {
			for _, p := range pods {
				if p.Name == vcjob.PodName(job.Name, task, i) {
					continue next
				}
			}
			r.missing = append(r.missing, i)
		}
	}
	for _, p := range sortedByName(pods) {
		inRange := false
		for i := 0; i < replicas; i++ {
			if p.Name == vcjob.PodName(job.Name, task, i) {
				inRange = true
			}
		}
		phase := p.Status.Phase
		if phase == corev1.PodSucceeded {
			r.counts.Succeeded++
		}
		if phase == corev1.PodRunning || phase == corev1.PodPending {
			for _, cs := range p.Status.InitContainerStatuses {
				r.counts.Restarts += cs.RestartCount
			}
			for _, cs := range p.Status.ContainerStatuses {
				r.counts.Restarts += cs.RestartCount
			}
		}
		if id, ok := p.Labels[vcjob.PartitionIDKey]; ok && id != "" {
			r.partitions[id] = append(r.partitions[id], p.Name)
		}
		if !inRange {
			r.excess = append(r.excess, p.Name)
			continue
		}
		r.counts.InRange++
		ready := true
		for _, cs := range p.Status.ContainerStatuses {
			ready = ready && cs.Ready
		}
		if phase == corev1.PodSucceeded || phase == corev1.PodRunning && ready {
			r.counts.Ready++
		}
		if p.DeletionTimestamp != nil {
			r.counts.Terminating++
			continue
		}
		r.counts.Phases.Add(phase, 1)
		if p.Annotations[vcjob.PodOutOfSyncKey] == "true" {
			r.outOfSync = append(r.outOfSync, p.Name)
		}
	}
	return r
}

func sortedByName(pods []*corev1.Pod) []*corev1.Pod {
	out := slices.Clone(pods)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func podNames(pods []*corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}

// genJob draws a job of one to three tasks whose names invite confusion
// ("w" and "w-x" share a prefix, as do job names "job" and "job-w").
func genJob(t *rapid.T, name string) *vcjob.Job {
	job := &vcjob.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: "uid"}}
	for _, task := range rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"w", "ps", "w-x"}), 1, 3, rapid.ID[string]).Draw(t, "tasks") {
		job.Spec.Tasks = append(job.Spec.Tasks, vcjob.TaskSpec{Name: task, Replicas: rapid.Int32Range(0, 5).Draw(t, task+".replicas")})
	}
	return job
}

// changeJob draws the next version of job: replicas moved, renamed, a
// task added or dropped, or (rarely) no job at all.
func changeJob(t *rapid.T, job *vcjob.Job, label string) *vcjob.Job {
	if job == nil || rapid.IntRange(0, 9).Draw(t, label+".nil") == 0 {
		if job == nil {
			return genJob(t, "job")
		}
		return nil
	}
	next := job.DeepCopy()
	switch rapid.IntRange(0, 3).Draw(t, label+".change") {
	case 0:
		next.Name = rapid.SampledFrom([]string{"job", "job-w", "j"}).Draw(t, label+".name")
	case 1:
		next.Spec.Tasks = genJob(t, next.Name).Spec.Tasks
	default:
		i := rapid.IntRange(0, len(next.Spec.Tasks)-1).Draw(t, label+".task")
		next.Spec.Tasks[i].Replicas = rapid.Int32Range(0, 6).Draw(t, label+".replicas")
	}
	return next
}

// genPod draws a pod of some task: mostly named as the job names its pods,
// sometimes not quite (a leading zero, another job's name, no index),
// filed under a task the job may not have, in any phase (also an empty or
// unknown one), terminating or not, marked out of sync or not, with a
// partition label or not, and containers ready or restarted.
func genPod(t *rapid.T, job *vcjob.Job, label string) *corev1.Pod {
	jobName := "job"
	if job != nil {
		jobName = job.Name
	}
	task := rapid.SampledFrom([]string{"w", "ps", "w-x", "gone"}).Draw(t, label+".task")
	i := rapid.IntRange(0, 7).Draw(t, label+".index")
	name := vcjob.PodName(jobName, task, i)
	switch rapid.IntRange(0, 9).Draw(t, label+".oddName") {
	case 0:
		name = fmt.Sprintf("%s-%s-0%d", jobName, task, i)
	case 1:
		name = vcjob.PodName("job-w", task, i)
	case 2:
		name = jobName + "-" + task + "-"
	case 3:
		name = vcjob.PodName(jobName, "w", i) // filed under another task
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns",
		Annotations: map[string]string{vcjob.TaskSpecKey: task}, Labels: map[string]string{}}}
	p.Status.Phase = rapid.SampledFrom([]corev1.PodPhase{corev1.PodPending, corev1.PodRunning, corev1.PodRunning,
		corev1.PodSucceeded, corev1.PodFailed, corev1.PodUnknown, "", "Weird"}).Draw(t, label+".phase")
	for c := range rapid.IntRange(0, 2).Draw(t, label+".containers") {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{
			Name:         fmt.Sprint("c", c),
			Ready:        rapid.Bool().Draw(t, label+".ready"),
			RestartCount: rapid.Int32Range(0, 3).Draw(t, label+".restarts"),
		})
	}
	if rapid.IntRange(0, 3).Draw(t, label+".init") == 0 {
		p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "init", RestartCount: rapid.Int32Range(0, 2).Draw(t, label+".initRestarts")}}
	}
	if rapid.IntRange(0, 4).Draw(t, label+".terminating") == 0 {
		now := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		p.DeletionTimestamp = &now
	}
	if rapid.IntRange(0, 4).Draw(t, label+".outOfSync") == 0 {
		p.Annotations[vcjob.PodOutOfSyncKey] = "true"
	}
	if id := rapid.SampledFrom([]string{"none", "", "0", "1", "2"}).Draw(t, label+".partition"); id != "none" {
		p.Labels[vcjob.PartitionIDKey] = id
	}
	return p
}
