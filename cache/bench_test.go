package cache_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/delay"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
	"github.com/vcjob/vcjob/worker"
)

var benchNow = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// benchWorld is one job in an in-memory cluster, a cache fed from it, and
// a processing step: the pipeline a controller runs per event.
type benchWorld struct {
	cluster *memcluster.Cluster
	cache   *cache.Cache
	step    *worker.Step
	job     *vcjob.Job
	rv      int
}

func newBenchWorld(b *testing.B, replicas int) *benchWorld {
	b.Helper()
	job := &vcjob.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "big", Namespace: "ns", UID: "uid-big", ResourceVersion: "1"},
		Spec: vcjob.JobSpec{MinAvailable: int32(replicas), MaxRetry: 3, Queue: "default", SchedulerName: "volcano",
			Tasks: []vcjob.TaskSpec{{Name: "worker", Replicas: int32(replicas), MaxRetry: -1,
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "busybox"}}}}}}},
	}
	w := &benchWorld{cluster: memcluster.New(metav1.NewTime(benchNow)), cache: cache.New(), job: job}
	w.step = &worker.Step{Jobs: w.cache, Delays: delay.New(), Cluster: &statemachine.Applied{Applier: w.cluster}}
	w.cluster.PutJob(job)
	req, ok, err := w.cache.OnJobAdd(job)
	if err != nil {
		b.Fatal(err)
	}
	w.feed(b, req, ok)
	return w
}

// feed runs a request through the step and keeps the cache in step with
// what the step wrote (the informer's job update).
func (w *benchWorld) feed(b *testing.B, req vcjob.Request, ok bool) {
	if !ok {
		return
	}
	rec := w.step.Process(req, benchNow)
	if rec.Err != nil {
		b.Fatal(rec.Err)
	}
	if rec.Effects.StatusWritten {
		old := w.job
		w.job = w.cluster.Job("ns", "big")
		w.rv++
		w.job.ResourceVersion = strconv.Itoa(1 + w.rv)
		if _, _, err := w.cache.OnJobUpdate(old, w.job); err != nil {
			b.Fatal(err)
		}
	}
	for _, name := range rec.Effects.Created {
		p := w.cluster.Pod("ns", name)
		p.ResourceVersion = "1"
		w.cluster.PutPod(p)
		req, ok := w.cache.OnPodAdd(p)
		w.feed(b, req, ok)
	}
}

// update changes a pod as the kubelet would and runs its event.
func (w *benchWorld) update(b *testing.B, name string, change func(*corev1.Pod)) {
	old := w.cluster.Pod("ns", name)
	p := old.DeepCopy()
	rv, _ := strconv.Atoi(p.ResourceVersion)
	p.ResourceVersion = strconv.Itoa(rv + 1)
	change(p)
	w.cluster.PutPod(p)
	req, ok := w.cache.OnPodUpdate(old, p)
	w.feed(b, req, ok)
}

func running(p *corev1.Pod) {
	p.Status.Phase = corev1.PodRunning
	p.Spec.NodeName = "node-0"
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", Ready: true}}
}

// bringUp admits the gang and starts every pod, one event at a time.
func (w *benchWorld) bringUp(b *testing.B, replicas int) {
	w.cluster.SetPodGroupPhase("ns", podgroup.Name(w.job), podgroup.PhaseRunning)
	w.feed(b, vcjob.Request{Namespace: "ns", JobName: "big"}, true)
	for i := 0; i < replicas; i++ {
		w.update(b, vcjob.PodName("big", "worker", i), running)
	}
	if got := w.cluster.Job("ns", "big").Status.State.Phase; got != vcjob.Running {
		b.Fatalf("after bring-up the job is %s", got)
	}
}

// BenchmarkPodEvent: one steady-state pod event on a running job of N
// pods: a container restart or a readiness change, derived into a request
// and run through the processing step.
func BenchmarkPodEvent(b *testing.B) {
	// The testing package calls each sub-benchmark several times with a
	// growing b.N; the running job is built once per size and reused, since
	// its steady state is what is measured.
	worlds := map[int]*benchWorld{}
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			w := worlds[n]
			if w == nil {
				w = newBenchWorld(b, n)
				w.bringUp(b, n)
				worlds[n] = w
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				name := vcjob.PodName("big", "worker", i%n)
				if i%2 == 0 {
					w.update(b, name, func(p *corev1.Pod) { p.Status.ContainerStatuses[0].RestartCount++ })
				} else {
					w.update(b, name, func(p *corev1.Pod) { p.Status.ContainerStatuses[0].Ready = !p.Status.ContainerStatuses[0].Ready })
				}
			}
		})
	}
}

// BenchmarkBringUp: from job creation to Running, every pod created and
// then started one event at a time; one iteration is the whole bring-up.
func BenchmarkBringUp(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				w := newBenchWorld(b, n)
				w.bringUp(b, n)
			}
		})
	}
}
