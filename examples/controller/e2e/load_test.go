//go:build e2e

package e2e

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"

	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
	"github.com/vcjob/vcjob/examples/controller/pkg/metrics"
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

// loadShape is one load: jobs jobs of pods pods each.
type loadShape struct{ jobs, pods int }

func (s loadShape) String() string { return fmt.Sprintf("%dx%d", s.jobs, s.pods) }

// loadShapes are the shapes TestLoad runs: E2E_LOAD_JOBS / E2E_LOAD_PODS
// name one; else E2E_LOAD_SHAPES ("50x20,10x200"); else the three shapes
// the controller is compared with Volcano's on.
func loadShapes(t *testing.T) []loadShape {
	if os.Getenv("E2E_LOAD_JOBS") != "" || os.Getenv("E2E_LOAD_PODS") != "" {
		return []loadShape{{envInt("E2E_LOAD_JOBS", 50), envInt("E2E_LOAD_PODS", 20)}}
	}
	spec := os.Getenv("E2E_LOAD_SHAPES")
	if spec == "" {
		spec = "50x20,10x200,2x1000"
	}
	var out []loadShape
	for _, f := range strings.Split(spec, ",") {
		var s loadShape
		if _, err := fmt.Sscanf(strings.TrimSpace(f), "%dx%d", &s.jobs, &s.pods); err != nil || s.jobs <= 0 || s.pods <= 0 {
			t.Fatalf("E2E_LOAD_SHAPES: %q is not <jobs>x<pods>", f)
		}
		out = append(out, s)
	}
	return out
}

// loadFlags are the controller's own options in the load test:
// E2E_LOAD_FLAGS, split on spaces, when it is set (set and empty runs the
// controller with its defaults, Volcano's behaviour); else vcjob's
// cheaper status writes and in-order retries, both off by default, on:
// the cost compared with Volcano's is with them.
func loadFlags() []string {
	if v, ok := os.LookupEnv("E2E_LOAD_FLAGS"); ok {
		return strings.Fields(v)
	}
	return []string{"--coalesce-status", "--ordered-retries"}
}

// loadResult is what one shape measured.
type loadResult struct {
	shape                 loadShape
	wall, quiet           time.Duration
	cpu, podEvents        float64
	allocBytes            float64 // what the controller allocated, which unlike CPU time does not grow with a busy machine
	requests, statusWrite float64
	byVerb                map[string]float64 // "verb resource" -> count
}

// TestLoad drives each shape's jobs to Completed at once with 4 workers, a
// fresh controller per shape, and reports per shape: the wall time until
// every job is Completed, the controller's CPU time per pod event (from
// /proc/<pid>/stat, until its last request), the API requests it sent by verb and
// resource, and its status writes per job. Counting runs until the
// controller goes quiet (no request for 2 s after the last PodGroup is
// gone).
func TestLoad(t *testing.T) {
	qps := os.Getenv("E2E_LOAD_QPS")
	if qps == "" {
		qps = "200"
	}
	var results []loadResult
	for _, shape := range loadShapes(t) {
		t.Run(shape.String(), func(t *testing.T) {
			if r, ok := runLoad(t, controllerArm{}, shape, qps); ok {
				results = append(results, r)
			}
		})
	}
	t.Logf("LOAD summary, client qps %s, 4 workers, controller flags %q:", qps, loadFlags())
	t.Logf("LOAD %-9s %8s %8s %12s %9s %12s %14s %12s", "shape", "wall", "quiet", "CPU/pod ev", "requests", "req/job", "status w/job", "alloc/pod ev")
	for _, r := range results {
		t.Logf("LOAD %-9s %7.1fs %7.1fs %10.0fµs %9.0f %12.1f %14.1f %10.1fKB", r.shape, r.wall.Seconds(), r.quiet.Seconds(),
			r.cpu/r.podEvents*1e6, r.requests, r.requests/float64(r.shape.jobs), r.statusWrite/float64(r.shape.jobs), r.allocBytes/r.podEvents/1e3)
	}
}

func runLoad(t *testing.T, arm controllerArm, shape loadShape, qps string) (loadResult, bool) {
	jobs, pods := shape.jobs, shape.pods
	ns := newNamespace(t, "load")
	args := append([]string{"--workers=4", "--kube-api-qps=" + qps, "--kube-api-burst=400", "-v=0"}, loadFlags()...)
	if v := os.Getenv("E2E_LOAD_V"); v != "" {
		args = append(args, "-v="+v) // the controller's log level (0 by default)
	}
	profile := os.Getenv("E2E_LOAD_PROFILE") // a file to write a 20 s CPU profile of the controller to (and its allocations, to …-allocs.prof)
	if profile != "" {
		args = append(args, "--pprof")
	}
	ctrl := startArm(t, arm, "ctrl", kubeconfigPath, args...)
	time.Sleep(time.Second) // informers synced; the namespace's leftovers are none
	sim.setMode(ns, mode{Admit: true, Bind: true, Start: true, Complete: true})
	before := ctrl.metrics()
	cpuBefore := ctrl.cpu()

	start := time.Now()
	var profiled sync.WaitGroup
	if profile != "" {
		profiled.Add(1)
		go func() {
			defer profiled.Done()
			resp, err := http.Get("http://" + ctrl.addr + "/debug/pprof/profile?seconds=20")
			if err != nil {
				t.Logf("profile: %v", err)
				return
			}
			defer resp.Body.Close()
			data, _ := io.ReadAll(resp.Body)
			_ = os.WriteFile(strings.TrimSuffix(profile, ".prof")+"-"+shape.String()+".prof", data, 0o644)
		}()
	}
	var wg sync.WaitGroup
	errs := make(chan error, jobs)
	for i := 0; i < jobs; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("load-%03d", i)
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
		list, err := dyn.Resource(clients.JobsResource).Namespace(ns).List(bg, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		done = map[string]bool{}
		counts := map[vcjob.JobPhase]int{}
		for i := range list.Items {
			j, err := jobFromUnstructured(&list.Items[i])
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
	// Let the last kills (Completed -> PodGroup deleted) land, then wait
	// until the controller sends nothing for 2 s, before reading the
	// counters.
	eventually(t, time.Minute, "all PodGroups deleted", func() (bool, string) {
		l, err := dyn.Resource(clients.PodGroupsResource).Namespace(ns).List(bg, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		return len(l.Items) == 0, fmt.Sprintf("%d left", len(l.Items))
	})
	// The controller's CPU time is read from /proc when its request count
	// last moved: the scrapes that wait for quiet after that (each costs
	// the controller milliseconds: the process collector reads a dozen
	// files) are not its work.
	last, lastChange, cpuAtLast := -1.0, time.Now(), procCPU{}
	for quietBy := time.Now().Add(time.Minute); time.Now().Before(quietBy); time.Sleep(250 * time.Millisecond) {
		cpuNow := ctrl.cpu()
		n := sum(ctrl.metrics(metrics.APIRequests), metrics.APIRequests)
		if n != last {
			last, lastChange, cpuAtLast = n, time.Now(), cpuNow
			continue
		}
		if time.Since(lastChange) >= 2*time.Second {
			break
		}
	}
	quiet := lastChange.Sub(start)
	after := ctrl.metrics()
	profiled.Wait() // the profile covers the whole run: the controller stays up until it is written
	if profile != "" {
		// And what the run allocated, by where.
		if resp, err := http.Get("http://" + ctrl.addr + "/debug/pprof/allocs"); err == nil {
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			_ = os.WriteFile(strings.TrimSuffix(profile, ".prof")+"-"+shape.String()+"-allocs.prof", data, 0o644)
		}
	}

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
		if strings.HasPrefix(k, metrics.InformerEvents+"{") && strings.Contains(k, `kind="pod"`) {
			podEvents += v - before[k]
		}
	}
	byVerb := map[string]float64{}
	for k, v := range after {
		if !strings.HasPrefix(k, metrics.APIRequests+"{") {
			continue
		}
		if n := v - before[k]; n > 0 {
			byVerb[label(k, "verb")+" "+label(k, "resource")+" "+label(k, "code")] += n
		}
	}
	used := cpuAtLast.sub(cpuBefore)
	cpu := used.total().Seconds()
	requests := d(metrics.Requests)
	if created := d(metrics.PodsCreated); int(created) != jobs*pods {
		t.Errorf("controller created %v pods, want exactly %d (no job lost, none recreated)", created, jobs*pods)
	}
	if e := d(metrics.RequestErrors); e > 0 {
		t.Logf("note: %v failed steps (requeued: %v)", e, d(metrics.Requeues))
	}
	if g := d(metrics.GivenUp); g > 0 {
		t.Errorf("%v requests given up", g)
	}
	apiRequests := d(metrics.APIRequests)
	t.Logf("LOAD %d jobs x %d pods, 4 workers, client qps %s: all Completed in %s, quiet after %s", jobs, pods, qps,
		wall.Round(time.Millisecond), quiet.Round(time.Millisecond))
	t.Logf("LOAD controller CPU %.2fs (user %.2fs, system %.2fs) for %.0f pod events = %.0f µs/pod event; %.0f requests processed = %.0f µs/request",
		cpu, used.user.Seconds(), used.system.Seconds(), podEvents, cpu/podEvents*1e6, requests, cpu/requests*1e6)
	// Allocation is nearly deterministic for the same work, so it
	// compares two builds where the noisy CPU figure cannot.
	allocBytes := d("go_memstats_alloc_bytes_total")
	t.Logf("LOAD controller allocated %.1f MB in %.0f objects = %.1f KB and %.0f objects per pod event",
		allocBytes/1e6, d("go_memstats_mallocs_total"), allocBytes/podEvents/1e3, d("go_memstats_mallocs_total")/podEvents)
	t.Logf("LOAD pods created %.0f, status writes %.0f (%.1f per job; %.0f unchanged ones not sent, %.0f held back and sent with a later one), failed steps %.0f, requeues %.0f; simulated binds %d, starts %d, completions %d",
		d(metrics.PodsCreated), d(metrics.StatusWrites), d(metrics.StatusWrites)/float64(jobs), d(metrics.StatusWritesSkipped), d(metrics.StatusWritesDeferred),
		d(metrics.RequestErrors), d(metrics.Requeues), sim.binds.Load(), sim.starts.Load(), sim.completions.Load())
	// Kubernetes Events (--record-events, on by default): a job that runs
	// to completion without a restart or a Command records none.
	t.Logf("LOAD Kubernetes Events recorded %.0f", d(metrics.Events))
	keys := make([]string, 0, len(byVerb))
	for k := range byVerb {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t.Logf("LOAD API requests %.0f (%.1f per job), by verb, resource and code:", apiRequests, apiRequests/float64(jobs))
	for _, k := range keys {
		t.Logf("LOAD   %-40s %7.0f  %7.2f/job", k, byVerb[k], byVerb[k]/float64(jobs))
	}
	return loadResult{shape: shape, wall: wall, quiet: quiet, cpu: cpu, podEvents: podEvents, allocBytes: allocBytes,
		requests: apiRequests, statusWrite: d(metrics.StatusWrites), byVerb: byVerb}, !t.Failed()
}

// label reads one label's value out of a scraped series name{a="b",...}.
func label(series, name string) string {
	i := strings.Index(series, name+`="`)
	if i < 0 {
		return ""
	}
	rest := series[i+len(name)+2:]
	if j := strings.IndexByte(rest, '"'); j >= 0 {
		return rest[:j]
	}
	return rest
}

// TestLoadAB compares two builds of the controller, or one build in two
// environments, on a noisy machine: E2E_LOAD_AB="A,B" names the arms,
// each a binary path ("." for the one this suite built) with optional
// NAME=value words for its environment and flags for the controller
// ("., GOMAXPROCS=1 ." or "., --kube-api-qps=5000 ."). Every
// round runs each shape once per arm, the arms' order alternating between
// rounds (E2E_LOAD_ROUNDS, default 6), so both meet the same moments of
// the machine. It logs each pair and, per shape, each arm's median CPU
// and allocation per pod event and the median of the pairs' CPU ratios
// B/A, the figure that survives the machine's drift.
func TestLoadAB(t *testing.T) {
	spec := os.Getenv("E2E_LOAD_AB")
	if spec == "" {
		t.Skip("E2E_LOAD_AB is not set")
	}
	parts := strings.Split(spec, ",")
	if len(parts) != 2 {
		t.Fatalf("E2E_LOAD_AB: want two arms separated by a comma, got %q", spec)
	}
	var arms [2]controllerArm
	for i, p := range parts {
		for _, w := range strings.Fields(p) {
			switch {
			case strings.HasPrefix(w, "-"):
				arms[i].args = append(arms[i].args, w)
			case strings.Contains(w, "="):
				arms[i].env = append(arms[i].env, w)
			case w == ".":
			default:
				arms[i].bin = w
			}
		}
		if arms[i].env == nil {
			arms[i].env = []string{} // not nil: E2E_CONTROLLER_ENV is not added
		}
	}
	qps := os.Getenv("E2E_LOAD_QPS")
	if qps == "" {
		qps = "200"
	}
	rounds := envInt("E2E_LOAD_ROUNDS", 6)
	type pair struct{ a, b loadResult }
	byShape := map[string][]pair{}
	shapes := loadShapes(t)
	for r := 0; r < rounds; r++ {
		for _, shape := range shapes {
			var got [2]loadResult
			ok := true
			for k := 0; k < 2; k++ {
				i := k
				if r%2 == 1 {
					i = 1 - k
				}
				t.Run(fmt.Sprintf("%s/round%d/%c", shape, r, 'A'+i), func(t *testing.T) {
					got[i], ok = runLoad(t, arms[i], shape, qps)
				})
				if !ok {
					break
				}
			}
			if !ok {
				continue
			}
			byShape[shape.String()] = append(byShape[shape.String()], pair{got[0], got[1]})
			perEv := func(r loadResult) float64 { return r.cpu / r.podEvents * 1e6 }
			t.Logf("AB %s round %d: A %.0fµs %.1fKB, B %.0fµs %.1fKB, B/A %.3f", shape, r,
				perEv(got[0]), got[0].allocBytes/got[0].podEvents/1e3, perEv(got[1]), got[1].allocBytes/got[1].podEvents/1e3, perEv(got[1])/perEv(got[0]))
		}
	}
	median := func(xs []float64) float64 {
		sort.Float64s(xs)
		n := len(xs)
		if n == 0 {
			return 0
		}
		if n%2 == 1 {
			return xs[n/2]
		}
		return (xs[n/2-1] + xs[n/2]) / 2
	}
	t.Logf("AB A = %q, B = %q, client qps %s, %d rounds", parts[0], parts[1], qps, rounds)
	t.Logf("AB %-9s %6s %10s %10s %9s %9s %10s %8s", "shape", "pairs", "A CPU/ev", "B CPU/ev", "A alloc", "B alloc", "B/A CPU", "B<A")
	for _, shape := range shapes {
		ps := byShape[shape.String()]
		var ca, cb, aa, ab, ratio []float64
		wins := 0
		for _, p := range ps {
			a, b := p.a.cpu/p.a.podEvents*1e6, p.b.cpu/p.b.podEvents*1e6
			ca, cb, ratio = append(ca, a), append(cb, b), append(ratio, b/a)
			aa, ab = append(aa, p.a.allocBytes/p.a.podEvents/1e3), append(ab, p.b.allocBytes/p.b.podEvents/1e3)
			if b < a {
				wins++
			}
		}
		t.Logf("AB %-9s %6d %8.0fµs %8.0fµs %7.1fKB %7.1fKB %10.3f %5d/%d", shape, len(ps), median(ca), median(cb), median(aa), median(ab), median(ratio), wins, len(ps))
	}
}
