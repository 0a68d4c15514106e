//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/vcjob/vcjob"

	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
	"github.com/vcjob/vcjob/examples/controller/pkg/metrics"
)

// faultKinds are the faults the proxy injects into mutating requests.
var faultKinds = []string{"conflict", "throttle", "error", "timeout", "lost"}

// faultProxy sits on loopback between the controller and the API server.
// It forwards everything with the controller user's credentials, and for
// a seeded share of mutating requests answers instead: 409 Conflict, 429
// with Retry-After, 500, a connection dropped after a delay (a timeout),
// or the request applied by the API server with the response lost (the
// connection dropped after the server answered). Watches are cut after a
// few seconds.
type faultProxy struct {
	target *url.URL
	rt     http.RoundTripper
	share  float64

	mu  sync.Mutex
	rng *rand.Rand

	injected map[string]*atomic.Int64
	enabled  atomic.Bool
	ln       net.Listener
	srv      *http.Server
}

func newFaultProxy(t *testing.T, seed uint64, share float64) *faultProxy {
	t.Helper()
	target, err := url.Parse(controllerConfig.Host)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := rest.TransportFor(controllerConfig)
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{target: target, rt: rt, share: share, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		injected: map[string]*atomic.Int64{}}
	for _, k := range append([]string{"watch-cut"}, faultKinds...) {
		p.injected[k] = &atomic.Int64{}
	}
	p.ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = p.srv.Serve(p.ln) }()
	t.Cleanup(func() { _ = p.srv.Close() })
	return p
}

// kubeconfig writes a kubeconfig that reaches the API server through the
// proxy (plain HTTP on loopback; the proxy authenticates upstream).
func (p *faultProxy) kubeconfig(t *testing.T) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["proxy"] = &clientcmdapi.Cluster{Server: "http://" + p.ln.Addr().String()}
	cfg.AuthInfos["proxy"] = &clientcmdapi.AuthInfo{}
	cfg.Contexts["proxy"] = &clientcmdapi.Context{Cluster: "proxy", AuthInfo: "proxy"}
	cfg.CurrentContext = "proxy"
	path := filepath.Join(workDir, fmt.Sprintf("kubeconfig-proxy-%d", time.Now().UnixNano()))
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func (p *faultProxy) roll() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rng.Float64()
}

func (p *faultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rp := &httputil.ReverseProxy{
		Rewrite:       func(pr *httputil.ProxyRequest) { pr.SetURL(p.target); pr.Out.Host = p.target.Host },
		Transport:     p.rt,
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0), // cut watches are expected
	}
	if !p.enabled.Load() {
		rp.ServeHTTP(w, r)
		return
	}
	if r.Method == http.MethodGet && r.URL.Query().Get("watch") == "true" {
		cut := 2*time.Second + time.Duration(p.roll()*float64(4*time.Second))
		ctx, cancel := context.WithTimeout(r.Context(), cut)
		defer cancel()
		defer func() { // also when the proxy aborts the cut stream
			if ctx.Err() == context.DeadlineExceeded {
				p.injected["watch-cut"].Add(1)
			}
		}()
		rp.ServeHTTP(w, r.WithContext(ctx))
		return
	}
	mutating := r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch || r.Method == http.MethodDelete
	if !mutating || p.roll() >= p.share {
		rp.ServeHTTP(w, r)
		return
	}
	kind := faultKinds[int(p.roll()*float64(len(faultKinds)))]
	p.injected[kind].Add(1)
	status := func(code int, reason metav1.StatusReason) {
		w.Header().Set("Content-Type", "application/json")
		if code == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "1")
		}
		w.WriteHeader(code)
		_, _ = fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"injected %s","reason":%q,"code":%d}`, kind, reason, code)
	}
	switch kind {
	case "conflict":
		status(http.StatusConflict, metav1.StatusReasonConflict)
	case "throttle":
		status(http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests)
	case "error":
		status(http.StatusInternalServerError, metav1.StatusReasonInternalError)
	case "timeout":
		time.Sleep(time.Second)
		panic(http.ErrAbortHandler) // the connection drops; the client sees no answer
	case "lost":
		out := r.Clone(r.Context())
		out.URL.Scheme, out.URL.Host, out.Host, out.RequestURI = p.target.Scheme, p.target.Host, p.target.Host, ""
		if resp, err := p.rt.RoundTrip(out); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		panic(http.ErrAbortHandler) // applied, but the answer never arrives
	}
}

// faultRecord watches a namespace's jobs and pods (directly, not through
// the proxy) and checks, event by event, what must hold whatever fails:
// status.version and retryCount never go down; retryCount never over the
// job's maxRetry; never two live pods of one job version with the same
// task index; no pod created once its job is in a terminal phase (by etcd
// revision, which orders all of one etcd).
type faultRecord struct {
	mu         sync.Mutex
	restarting map[string]bool // jobs seen Restarting
	version    map[string]int32
	retries    map[string]int32
	terminalRV map[string]int64 // job -> revision of its first terminal status
	live       map[string]string
	podAdds    []podAdd
	violations []string
	final      map[string]*vcjob.Job
}

type podAdd struct {
	job string
	rv  int64
	pod string
}

func terminal(p vcjob.JobPhase) bool {
	switch p {
	case vcjob.Completed, vcjob.Failed, vcjob.Terminated, vcjob.Aborted:
		return true
	}
	return false
}

func recordFaults(t *testing.T, ns string) *faultRecord {
	t.Helper()
	rec := &faultRecord{version: map[string]int32{}, retries: map[string]int32{}, terminalRV: map[string]int64{},
		live: map[string]string{}, final: map[string]*vcjob.Job{}, restarting: map[string]bool{}}
	ctx, cancel := context.WithCancel(bg)
	t.Cleanup(cancel)
	jobs := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, ns, nil).ForResource(clients.JobsResource).Informer()
	onJob := func(obj any) {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return
		}
		j, err := jobFromUnstructured(u)
		if err != nil {
			return
		}
		rv, _ := strconv.ParseInt(j.ResourceVersion, 10, 64)
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if v := rec.version[j.Name]; j.Status.Version < v {
			rec.violations = append(rec.violations, fmt.Sprintf("job %s: status.version went from %d to %d", j.Name, v, j.Status.Version))
		}
		if r := rec.retries[j.Name]; j.Status.RetryCount < r {
			rec.violations = append(rec.violations, fmt.Sprintf("job %s: retryCount went from %d to %d", j.Name, r, j.Status.RetryCount))
		}
		limit := j.Spec.MaxRetry
		if limit == 0 {
			limit = vcjob.DefaultMaxRetry
		}
		if j.Status.RetryCount > limit { // the restart limit: Restarting at maxRetry fails the job instead
			rec.violations = append(rec.violations, fmt.Sprintf("job %s: retryCount %d over maxRetry %d", j.Name, j.Status.RetryCount, limit))
		}
		rec.version[j.Name], rec.retries[j.Name] = j.Status.Version, j.Status.RetryCount
		if j.Status.State.Phase == vcjob.Restarting {
			rec.restarting[j.Name] = true
		}
		if _, seen := rec.terminalRV[j.Name]; !seen && terminal(j.Status.State.Phase) {
			rec.terminalRV[j.Name] = rv
		}
		rec.final[j.Name] = j
	}
	_, _ = jobs.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: onJob, UpdateFunc: func(_, n any) { onJob(n) }})
	pods := informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithNamespace(ns)).Core().V1().Pods().Informer()
	slot := func(p *corev1.Pod) string {
		return p.Annotations[vcjob.JobNameKey] + "/v" + p.Annotations[vcjob.JobVersionKey] + "/" + p.Annotations[vcjob.TaskSpecKey] + "/" + p.Annotations[vcjob.TaskIndexKey]
	}
	liveUntil := func(p *corev1.Pod) bool {
		return p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
	}
	onPod := func(old, p *corev1.Pod) {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		k := slot(p)
		if old == nil {
			rv, _ := strconv.ParseInt(p.ResourceVersion, 10, 64)
			rec.podAdds = append(rec.podAdds, podAdd{job: p.Annotations[vcjob.JobNameKey], rv: rv, pod: p.Name})
			if other, ok := rec.live[k]; ok && other != string(p.UID) {
				rec.violations = append(rec.violations, fmt.Sprintf("two live pods for %s", k))
			}
		}
		if liveUntil(p) {
			rec.live[k] = string(p.UID)
		} else if rec.live[k] == string(p.UID) {
			delete(rec.live, k)
		}
	}
	_, _ = pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { onPod(nil, o.(*corev1.Pod)) },
		UpdateFunc: func(o, n any) { onPod(o.(*corev1.Pod), n.(*corev1.Pod)) },
		DeleteFunc: func(o any) {
			if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
				o = t.Obj
			}
			p := o.(*corev1.Pod)
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if k := slot(p); rec.live[k] == string(p.UID) {
				delete(rec.live, k)
			}
		},
	})
	go jobs.Run(ctx.Done())
	go pods.Run(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), jobs.HasSynced, pods.HasSynced) {
		t.Fatal("fault recorder did not sync")
	}
	return rec
}

// check finishes the per-event checks with the pods created after their
// job's terminal status.
func (r *faultRecord) check() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]string(nil), r.violations...)
	for _, a := range r.podAdds {
		if trv, ok := r.terminalRV[a.job]; ok && a.rv > trv {
			out = append(out, fmt.Sprintf("pod %s created (revision %d) after job %s went terminal (revision %d)", a.pod, a.rv, a.job, trv))
		}
	}
	return out
}

// faultJob is TestLoad's job with a restart: a pod that fails with exit
// code 3 restarts the whole job (on the job's first try the simulator
// fails task index 0 while the other pods keep running), so every job
// goes Running, Restarting, Pending, Running, Completed, and ends with
// retryCount 1.
func faultJob(name string, replicas int) string {
	return loadJob(name, replicas) + `  policies:
  - exitCode: 3
    action: RestartJob
`
}

// faultSemantics is the controller's --semantics in TestFaults: the two
// corrections for what a lost watch or a controller restart hides
// (finished-pods-on-add, podgroup-phase-on-add), or E2E_FAULT_SEMANTICS
// ("volcano" shows the jobs that never restart).
func faultSemantics() string {
	if s := os.Getenv("E2E_FAULT_SEMANTICS"); s != "" {
		return s
	}
	return "finished-pods-on-add,podgroup-phase-on-add"
}

// faultRun drives faultJob's workload in a fresh namespace, with the
// controller behind the proxy when p is not nil, killed with SIGKILL and
// started again once killAt of the jobs have been seen Restarting (a wave
// of restarts is being killed), and kube-apiserver restarted (etcd keeps
// its data) once restartAt × jobs × pods pods have been created (every
// job creates its pods twice).
func faultRun(t *testing.T, shape loadShape, p *faultProxy, killAt, restartAt float64) (map[string]*vcjob.Job, []string, float64) {
	ns := newNamespace(t, "fault")
	rec := recordFaults(t, ns)
	kc := kubeconfigPath
	if p != nil {
		kc = p.kubeconfig(t)
	}
	// A pod of index 0 that fails while the controller is down (killed)
	// or between a cut watch and its relist is first seen Failed: under
	// Volcano's semantics that raises PodPending, the restart never
	// happens and the job runs on forever. The finished-pods-on-add
	// correction raises the PodFailed its failing would have.
	// --ordered-retries: a restart whose pod delete failed is not
	// overtaken by a sync that judges the half-killed job (Failed).
	// -v=3 logs every step, so a run that goes wrong explains itself
	// (E2E_FAULT_V to change it).
	v := os.Getenv("E2E_FAULT_V")
	if v == "" {
		v = "3"
	}
	args := []string{"--workers=4", "--kube-api-qps=200", "--kube-api-burst=400", "-v=" + v, "--semantics=" + faultSemantics(),
		"--coalesce-status", "--ordered-retries", "--pprof"}
	if p != nil {
		p.enabled.Store(true) // the informers' first lists and watches meet faults too
		defer p.enabled.Store(false)
	}
	ctrl := startControllerWith(t, "ctrl", kc, args...)
	time.Sleep(time.Second)
	sim.setMode(ns, mode{Admit: true, Bind: true, Start: true, Complete: true, FailFirstTry: true})
	for i := 0; i < shape.jobs; i++ {
		if _, err := createJobE(ns, faultJob(fmt.Sprintf("load-%03d", i), shape.pods)); err != nil {
			t.Fatal(err)
		}
	}
	givenUp, seenLate := 0.0, 0.0
	if killAt > 0 {
		want := max(1, int(killAt*float64(shape.jobs)))
		eventually(t, 5*time.Minute, "jobs Restarting before the kill", func() (bool, string) {
			rec.mu.Lock()
			defer rec.mu.Unlock()
			n, done := len(rec.restarting), 0
			for _, j := range rec.final {
				if terminal(j.Status.State.Phase) {
					done++
				}
			}
			if done == shape.jobs {
				t.Errorf("every job ended before %d of them had been seen Restarting (%d were)", want, n)
				return true, ""
			}
			return n >= want, fmt.Sprintf("%d of %d", n, want)
		})
		m := ctrl.metrics()
		givenUp += sum(m, metrics.GivenUp)
		seenLate += sum(m, metrics.PodGroupsSeenLate)
		_ = ctrl.cmd.Process.Kill()
		<-ctrl.done
		t.Logf("FAULTS controller SIGKILLed once %d jobs had been seen Restarting; starting another", want)
		ctrl = startControllerWith(t, "ctrl-2", kc, args...)
	}
	if restartAt > 0 {
		want := int(restartAt * float64(shape.jobs*shape.pods))
		eventually(t, 5*time.Minute, "pods created before the API server restart", func() (bool, string) {
			rec.mu.Lock()
			n := len(rec.podAdds)
			rec.mu.Unlock()
			return n >= want, fmt.Sprintf("%d of %d", n, want)
		})
		start := time.Now()
		if err := apiServer.Stop(); err != nil {
			// Open watches can hold a graceful stop past its timeout;
			// the process is then SIGKILLed, a harder restart still.
			t.Logf("FAULTS stopping kube-apiserver: %v", err)
		}
		if err := apiServer.Start(); err != nil {
			t.Fatalf("starting kube-apiserver again: %v", err)
		}
		t.Logf("FAULTS kube-apiserver restarted (etcd kept) after %d pods created, down %s", want, time.Since(start).Round(time.Millisecond))
	}
	// Every job in a terminal phase; one that never gets there is named,
	// with the controller's view of it (--pprof serves it).
	for deadline := time.Now().Add(8 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		rec.mu.Lock()
		n := 0
		var open, names []string
		for name, j := range rec.final {
			if terminal(j.Status.State.Phase) {
				n++
			} else {
				names = append(names, name)
				open = append(open, fmt.Sprintf("%s %s (retryCount %d, version %d)", name, j.Status.State.Phase, j.Status.RetryCount, j.Status.Version))
			}
		}
		rec.mu.Unlock()
		if n == shape.jobs {
			break
		}
		if time.Now().After(deadline) {
			sort.Strings(names)
			for _, name := range names {
				t.Logf("FAULTS the controller's view of %s: %s", name, ctrl.get("/debug/vcjob/job?job="+ns+"/"+name))
			}
			sort.Strings(open)
			t.Fatalf("timed out after 8m waiting for every job in a terminal phase: %d of %d; not yet: %s", n, shape.jobs, strings.Join(open, ", "))
		}
	}
	m := ctrl.metrics()
	givenUp += sum(m, metrics.GivenUp)
	seenLate += sum(m, metrics.PodGroupsSeenLate)
	// A relist's PodGroup add that synced its job: what a watch lost and
	// Volcano's controller would have lost with it.
	t.Logf("FAULTS PodGroups first seen in a phase after a relist (their jobs synced): %v", seenLate)
	time.Sleep(2 * time.Second) // late pod creates would show now
	rec.mu.Lock()
	final := map[string]*vcjob.Job{}
	for k, v := range rec.final {
		final[k] = v
	}
	rec.mu.Unlock()
	return final, rec.check(), givenUp
}

// TestFaults runs TestLoad's workload twice, fault-free and then with the
// controller behind the fault-injecting proxy (seeded; E2E_FAULT_SEED,
// E2E_FAULT_SHARE of mutating requests, default 0.1), SIGKILLed once
// mid-run and kube-apiserver restarted later, and checks that every job ends in the same phase with the same
// retryCount, no request was given up, and the watch logs show no
// violation.
func TestFaults(t *testing.T) {
	shape := loadShape{jobs: envInt("E2E_FAULT_JOBS", 20), pods: envInt("E2E_FAULT_PODS", 10)}
	seed := uint64(envInt("E2E_FAULT_SEED", 15))
	share := 0.1
	if v, err := strconv.ParseFloat(os.Getenv("E2E_FAULT_SHARE"), 64); err == nil && v >= 0 && v < 1 {
		share = v
	}
	// Each run in a subtest of its own, so its namespace is gone before the
	// next starts (the controllers watch every namespace).
	var clean, faulty map[string]*vcjob.Job
	var violations []string
	var givenUp float64
	t.Run("fault-free", func(t *testing.T) {
		var v []string
		clean, v, _ = faultRun(t, shape, nil, 0, 0)
		if len(v) > 0 {
			t.Fatalf("fault-free run: %v", v)
		}
	})
	p := newFaultProxy(t, seed, share)
	t.Run("faults", func(t *testing.T) {
		faulty, violations, givenUp = faultRun(t, shape, p, 0.25, 1.4)
	})
	if clean == nil || faulty == nil {
		t.Fatal("a run did not finish")
	}

	names := make([]string, 0, len(clean))
	for n := range clean {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c, f := clean[n], faulty[n]
		if f == nil {
			violations = append(violations, fmt.Sprintf("job %s missing in the fault run", n))
			continue
		}
		if c.Status.State.Phase != f.Status.State.Phase || c.Status.RetryCount != f.Status.RetryCount {
			violations = append(violations, fmt.Sprintf("job %s: fault-free %s retryCount %d, with faults %s retryCount %d",
				n, c.Status.State.Phase, c.Status.RetryCount, f.Status.State.Phase, f.Status.RetryCount))
		}
	}
	if givenUp > 0 {
		violations = append(violations, fmt.Sprintf("%v requests given up (requeue limit reached)", givenUp))
	}
	var injected []string
	for _, k := range append([]string{"watch-cut"}, faultKinds...) {
		injected = append(injected, fmt.Sprintf("%s %d", k, p.injected[k].Load()))
	}
	restarted := 0
	for _, j := range faulty {
		if j.Status.RetryCount > 0 {
			restarted++
		}
	}
	t.Logf("FAULTS seed %d, share %.2f of mutating requests, %dx%d, every job restarted once (%d with retryCount > 0), controller SIGKILLed once mid-wave, kube-apiserver restarted once: injected %v",
		seed, share, shape.jobs, shape.pods, restarted, injected)
	t.Logf("FAULTS jobs checked %d, violations %d", len(names), len(violations))
	for _, v := range violations {
		t.Error(v)
	}
}
