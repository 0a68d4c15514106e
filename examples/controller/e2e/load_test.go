//go:build e2e

package e2e

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/examples/controller/internal/controller"
)

func loadJob(name string, replicas int) string {
	return fmt.Sprintf(`
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: %s
spec:
  minAvailable: %d
  tasks:
  - name: worker
    replicas: %d
    template:
      spec:
        containers:
        - name: c
          image: busybox
`, name, replicas, replicas)
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// TestLoad drives 50 jobs of 20 pods each to Completed at once with 4
// workers, and reports the wall time and the controller's CPU time per pod
// event, from the controller process's own getrusage accounting.
func TestLoad(t *testing.T) {
	jobs, pods := envInt("E2E_LOAD_JOBS", 50), envInt("E2E_LOAD_PODS", 20)
	qps := os.Getenv("E2E_LOAD_QPS")
	if qps == "" {
		qps = "200"
	}
	ns := newNamespace(t, "load")
	args := []string{"--workers=4", "--kube-api-qps=" + qps, "--kube-api-burst=400", "-v=0"}
	profile := os.Getenv("E2E_LOAD_PROFILE") // a file to write a 20 s CPU profile of the controller to
	if profile != "" {
		args = append(args, "--pprof")
	}
	ctrl := startController(t, "ctrl", args...)
	time.Sleep(time.Second) // informers synced; the namespace's leftovers are none
	sim.setMode(ns, mode{Admit: true, Bind: true, Start: true, Complete: true})
	before := ctrl.metrics()

	start := time.Now()
	if profile != "" {
		go func() {
			resp, err := http.Get("http://" + ctrl.addr + "/debug/pprof/profile?seconds=20")
			if err != nil {
				t.Logf("profile: %v", err)
				return
			}
			defer resp.Body.Close()
			data, _ := io.ReadAll(resp.Body)
			_ = os.WriteFile(profile, data, 0o644)
		}()
	}
	var wg sync.WaitGroup
	errs := make(chan error, jobs)
	for i := 0; i < jobs; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("load-%02d", i)
			if _, err := createJobE(ns, loadJob(name, pods)); err != nil {
				errs <- fmt.Errorf("%s: %w", name, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	var done map[string]bool
	deadline := time.Now().Add(8 * time.Minute)
	for {
		list, err := dyn.Resource(controller.JobsResource).Namespace(ns).List(bg, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		done = map[string]bool{}
		counts := map[vcjob.JobPhase]int{}
		for i := range list.Items {
			j, err := controller.JobFromUnstructured(&list.Items[i])
			if err != nil {
				t.Fatal(err)
			}
			counts[j.Status.State.Phase]++
			if j.Status.State.Phase == vcjob.Completed {
				done[j.Name] = true
			}
		}
		if len(done) == jobs {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s only %d of %d jobs Completed: %v", time.Since(start).Round(time.Second), len(done), jobs, counts)
		}
		time.Sleep(250 * time.Millisecond)
	}
	wall := time.Since(start)
	// Let the last kills (Completed -> PodGroup deleted) land before
	// reading the counters.
	eventually(t, time.Minute, "all PodGroups deleted", func() (bool, string) {
		l, err := dyn.Resource(controller.PodGroupsResource).Namespace(ns).List(bg, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		return len(l.Items) == 0, fmt.Sprintf("%d left", len(l.Items))
	})
	after := ctrl.metrics()

	all, err := kube.CoreV1().Pods(ns).List(bg, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	succeeded := 0
	for _, p := range all.Items {
		if p.Status.Phase == corev1.PodSucceeded {
			succeeded++
		}
	}
	if succeeded != jobs*pods || len(all.Items) != jobs*pods {
		t.Errorf("%d pods, %d Succeeded; want %d of each", len(all.Items), succeeded, jobs*pods)
	}

	d := func(name string) float64 { return sum(after, name) - sum(before, name) }
	podEvents := 0.0
	for k, v := range after {
		if strings.HasPrefix(k, controller.MetricInformerEvents+`{kind="pod"`) {
			podEvents += v - before[k]
		}
	}
	cpu := d(controller.MetricProcessCPU)
	requests := d(controller.MetricRequests)
	if created := d(controller.MetricPodsCreated); int(created) != jobs*pods {
		t.Errorf("controller created %v pods, want exactly %d (no job lost, none recreated)", created, jobs*pods)
	}
	if e := d(controller.MetricErrors); e > 0 {
		t.Logf("note: %v failed steps (requeued: %v)", e, d(controller.MetricRequeues))
	}
	if g := d(controller.MetricGiveUps); g > 0 {
		t.Errorf("%v requests given up", g)
	}
	t.Logf("LOAD %d jobs x %d pods, 4 workers, client qps %s: all Completed in %s", jobs, pods, qps, wall.Round(time.Millisecond))
	t.Logf("LOAD controller CPU %.2fs (user %.2fs, system %.2fs) for %.0f pod events = %.0f µs/pod event; %.0f requests processed = %.0f µs/request",
		cpu, d(controller.MetricProcessUserCPU), d(controller.MetricProcessSystemCPU), podEvents, cpu/podEvents*1e6, requests, cpu/requests*1e6)
	t.Logf("LOAD pods created %.0f, status writes %.0f, failed steps %.0f, requeues %.0f; simulated binds %d, starts %d, completions %d",
		d(controller.MetricPodsCreated), d(controller.MetricStatusWrites), d(controller.MetricErrors), d(controller.MetricRequeues),
		sim.binds.Load(), sim.starts.Load(), sim.completions.Load())
}
