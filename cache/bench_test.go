package cache_test

import (
	"context"
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
	"github.com/vcjob/vcjob/request"
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
	// pods are the latest pod objects, as an informer holds them: shared
	// and never changed in place.
	pods map[string]*corev1.Pod
	// versions are resourceVersions ready to hand out, so that naming a
	// version costs the measured loop nothing.
	versions []string
}

func newBenchWorld(b *testing.B, replicas int) *benchWorld {
	b.Helper()
	job := &vcjob.Job{
		// Generation 1, as the API server sets on creation.
		ObjectMeta: metav1.ObjectMeta{Name: "big", Namespace: "ns", UID: "uid-big", ResourceVersion: "1", Generation: 1},
		Spec: vcjob.JobSpec{MinAvailable: int32(replicas), MaxRetry: 3, Queue: "default", SchedulerName: "volcano",
			Tasks: []vcjob.TaskSpec{{Name: "worker", Replicas: int32(replicas), MaxRetry: -1,
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "busybox"}}}}}}},
	}
	w := &benchWorld{cluster: memcluster.New(metav1.NewTime(benchNow)), cache: cache.New(), job: job, pods: map[string]*corev1.Pod{}}
	w.step = &worker.Step{Jobs: w.cache, Delays: delay.New(), Cluster: &statemachine.Applied{Applier: w.cluster}}
	w.cluster.PutJob(job)
	req, ok, err := w.cache.OnJobAdd(job)
	if err != nil {
		b.Fatal(err)
	}
	w.feed(b, req, ok)
	return w
}

// version returns resourceVersion n.
func (w *benchWorld) version(n int) string {
	for len(w.versions) <= n {
		w.versions = append(w.versions, strconv.Itoa(len(w.versions)))
	}
	return w.versions[n]
}

// feed runs a request through the step and keeps the cache in step with
// what the step wrote, as the informers would: the job's status update,
// then the created pods. The informers deliver every created pod before
// the worker gets to their requests, as they do in a controller whose
// queue lags its informers.
func (w *benchWorld) feed(b *testing.B, req request.Request, ok bool) {
	if !ok {
		return
	}
	rec := w.step.Process(context.Background(), req, benchNow)
	if rec.Err != nil {
		b.Fatal(rec.Err)
	}
	if rec.Effects.StatusWritten {
		old := w.job
		job := *w.cluster.StoredJob("ns", "big")
		w.rv++
		job.ResourceVersion = w.version(1 + w.rv)
		w.job = &job
		if _, _, err := w.cache.OnJobUpdate(old, w.job); err != nil {
			b.Fatal(err)
		}
	}
	var reqs []request.Request
	for _, name := range rec.Effects.Created {
		p := *w.cluster.StoredPod("ns", name)
		p.ResourceVersion = w.version(1)
		w.cluster.StorePod(&p)
		w.pods[name] = &p
		if req, ok := w.cache.OnPodAdd(&p); ok {
			reqs = append(reqs, req)
		}
	}
	for _, req := range reqs {
		w.feed(b, req, true)
	}
}

// podChange is one pod update: the object before and after.
type podChange struct{ old, new *corev1.Pod }

// change makes a pod's next version as the kubelet would: a new object,
// sharing what did not change with the old one, with the next
// resourceVersion.
func (w *benchWorld) change(name string, change func(*corev1.Pod)) podChange {
	old := w.pods[name]
	p := new(corev1.Pod)
	*p = *old
	p.Status.ContainerStatuses = append([]corev1.ContainerStatus(nil), old.Status.ContainerStatuses...)
	rv, _ := strconv.Atoi(p.ResourceVersion)
	p.ResourceVersion = w.version(rv + 1)
	change(p)
	w.pods[name] = p
	return podChange{old, p}
}

// apply stores the new version in the cluster and runs its event through
// the cache and the step.
func (w *benchWorld) apply(b *testing.B, c podChange) {
	w.cluster.StorePod(c.new)
	req, ok := w.cache.OnPodUpdate(c.old, c.new)
	w.feed(b, req, ok)
}

func (w *benchWorld) update(b *testing.B, name string, change func(*corev1.Pod)) {
	w.apply(b, w.change(name, change))
}

func running(p *corev1.Pod) {
	p.Status.Phase = corev1.PodRunning
	p.Spec.NodeName = "node-0"
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", Ready: true}}
}

// bringUp admits the gang and starts every pod, one event at a time.
func (w *benchWorld) bringUp(b *testing.B, replicas int) {
	w.cluster.SetPodGroupPhase("ns", podgroup.Name(w.job), podgroup.PhaseRunning)
	w.feed(b, request.Request{Namespace: "ns", JobName: "big"}, true)
	for i := 0; i < replicas; i++ {
		w.update(b, vcjob.PodName("big", "worker", i), running)
	}
	if got := w.cluster.Job("ns", "big").Status.State.Phase; got != vcjob.Running {
		b.Fatalf("after bring-up the job is %s", got)
	}
	if n := len(w.pods); n != replicas {
		b.Fatalf("after bring-up the job has %d pods, want %d", n, replicas)
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
			restart := func(p *corev1.Pod) { p.Status.ContainerStatuses[0].RestartCount++ }
			toggle := func(p *corev1.Pod) { p.Status.ContainerStatuses[0].Ready = !p.Status.ContainerStatuses[0].Ready }
			names := make([]string, n)
			for i := range names {
				names[i] = vcjob.PodName("big", "worker", i)
			}
			// The kubelet's new pod objects are made outside the timer, a
			// batch at a time: making them is the API server's and the
			// informer's work, not the controller's.
			const batch = 1024
			changes := make([]podChange, 0, batch)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%batch == 0 {
					b.StopTimer()
					changes = changes[:0]
					for j := i; j < i+batch && j < b.N; j++ {
						if j%2 == 0 {
							changes = append(changes, w.change(names[j%n], restart))
						} else {
							changes = append(changes, w.change(names[j%n], toggle))
						}
					}
					b.StartTimer()
				}
				w.apply(b, changes[i%batch])
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
