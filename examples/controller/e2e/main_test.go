//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/yaml"
)

// The suite's shared state, set up once in TestMain.
var (
	restConfig     *rest.Config
	kube           kubernetes.Interface
	dyn            dynamic.Interface
	kubeconfigPath string
	// controllerConfig is the controller user's client config; workDir
	// holds the suite's files.
	controllerConfig *rest.Config
	workDir          string
	apiServer        *envtest.APIServer
	controllerBin    string
	artifacts        string
	sim              *cluster
)

func TestMain(m *testing.M) {
	ctrllog.SetLogger(klog.NewKlogr()) // envtest's own log lines, through klog
	os.Exit(run(m))
}

func run(m *testing.M) int {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		if abs, err := filepath.Abs("../bin"); err == nil {
			if _, err := os.Stat(filepath.Join(abs, "kube-apiserver")); err == nil {
				assets = abs
			}
		}
	}
	if assets == "" {
		fmt.Println("e2e: KUBEBUILDER_ASSETS is unset and ../bin has no kube-apiserver; skipping (run hack/e2e.sh)")
		return 0
	}
	work, err := os.MkdirTemp("", "vcjob-e2e-")
	if err != nil {
		fmt.Println(err)
		return 1
	}
	defer os.RemoveAll(work)
	artifacts = os.Getenv("E2E_ARTIFACTS")
	if artifacts == "" {
		artifacts = work
	}
	_ = os.MkdirAll(artifacts, 0o755)

	start := time.Now()
	controllerBin = filepath.Join(work, "vcjob-controller")
	buildArgs := []string{"build", "-o", controllerBin}
	if os.Getenv("E2E_RACE") != "" {
		buildArgs = append(buildArgs, "-race") // the controller under the race detector
	}
	if bin := os.Getenv("E2E_CONTROLLER_BIN"); bin != "" { // a prebuilt controller, to compare two builds
		controllerBin = bin
	} else {
		build := exec.Command("go", append(buildArgs, ".")...)
		build.Dir = ".."
		build.Stdout, build.Stderr = os.Stdout, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Println("e2e: building the controller:", err)
			return 1
		}
		fmt.Printf("e2e: controller built in %s\n", time.Since(start).Round(time.Millisecond))
	}

	start = time.Now()
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{"../config/crd"},
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: assets,
		// A stop waits this long for kube-apiserver (open watches hold
		// it), then kills it: TestFaults restarts it mid-run.
		ControlPlaneStopTimeout: 5 * time.Second,
	}
	// A fixed certificate directory lets TestFaults restart the API server
	// with the same serving certificate, so every client keeps working.
	apiServer = env.ControlPlane.GetAPIServer()
	apiServer.CertDir = filepath.Join(work, "apiserver")
	if err := os.MkdirAll(apiServer.CertDir, 0o700); err != nil {
		fmt.Println(err)
		return 1
	}
	restConfig, err = env.Start()
	if err != nil {
		fmt.Println("e2e: starting kube-apiserver and etcd:", err)
		return 1
	}
	defer func() {
		if err := env.Stop(); err != nil {
			fmt.Println("e2e: stopping the control plane:", err)
		}
	}()
	fmt.Printf("e2e: etcd + kube-apiserver + CRDs up in %s (%s)\n", time.Since(start).Round(time.Millisecond), assets)

	restConfig.QPS, restConfig.Burst = 1000, 2000
	kube = kubernetes.NewForConfigOrDie(restConfig)
	dyn = dynamic.NewForConfigOrDie(restConfig)

	// The controller runs as its own user with only the rules of
	// config/rbac/role.yaml, so the tests also check that role.
	if err := grantControllerRole(); err != nil {
		fmt.Println("e2e: RBAC:", err)
		return 1
	}
	user, err := env.AddUser(envtest.User{Name: controllerUser}, nil)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	controllerConfig = user.Config()
	kc, err := user.KubeConfig()
	if err != nil {
		fmt.Println(err)
		return 1
	}
	workDir = work
	kubeconfigPath = filepath.Join(work, "kubeconfig")
	if err := os.WriteFile(kubeconfigPath, kc, 0o600); err != nil {
		fmt.Println(err)
		return 1
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sim = newCluster(kube, dyn)
	if err := sim.start(ctx); err != nil {
		fmt.Println("e2e: starting the simulated scheduler and kubelet:", err)
		return 1
	}
	return m.Run()
}

const controllerUser = "vcjob-controller"

func grantControllerRole() error {
	data, err := os.ReadFile("../config/rbac/role.yaml")
	if err != nil {
		return err
	}
	role := &rbacv1.ClusterRole{}
	if err := yaml.UnmarshalStrict(data, role); err != nil {
		return err
	}
	ctx := context.Background()
	if _, err := kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		return err
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: controllerUser}},
	}
	_, err = kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{})
	return err
}

// controllerProc is the controller running as its own process: its CPU
// accounting is its own, SIGTERM tests its shutdown, and a restart is a
// real restart.
type controllerProc struct {
	t       *testing.T
	cmd     *exec.Cmd
	addr    string
	logPath string
	done    chan struct{} // closed when the process has exited
	waitErr error
}

// startController runs the controller with the suite's kubeconfig and
// extra flags, and waits for its /healthz.
func startController(t *testing.T, name string, args ...string) *controllerProc {
	t.Helper()
	return startControllerWith(t, name, kubeconfigPath, args...)
}

// startControllerWith runs the controller with the given kubeconfig.
func startControllerWith(t *testing.T, name, kubeconfig string, args ...string) *controllerProc {
	t.Helper()
	return startArm(t, controllerArm{}, name, kubeconfig, args...)
}

// controllerArm is one build of the controller and the environment it
// runs in: TestLoadAB alternates two. The zero value is the suite's
// controller with E2E_CONTROLLER_ENV.
type controllerArm struct {
	bin  string   // empty: the suite's controller
	env  []string // NAME=value added to the environment
	args []string // flags after the test's own (the last of a flag wins)
}

// startArm runs arm's controller with the given kubeconfig and waits
// for its /healthz.
func startArm(t *testing.T, arm controllerArm, name, kubeconfig string, args ...string) *controllerProc {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	logPath := filepath.Join(artifacts, strings.ReplaceAll(t.Name(), "/", "_")+"-"+name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	all := append(append([]string{"--kubeconfig", kubeconfig, "--metrics-addr", addr, "-v=2"}, args...), arm.args...)
	bin, env := arm.bin, arm.env
	if bin == "" {
		bin = controllerBin
	}
	if arm.bin == "" && arm.env == nil {
		env = strings.Fields(os.Getenv("E2E_CONTROLLER_ENV")) // e.g. "GOGC=400 GOMAXPROCS=1", to measure runtime settings
	}
	cmd := exec.Command(bin, all...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &controllerProc{t: t, cmd: cmd, addr: addr, logPath: logPath, done: make(chan struct{})}
	go func() { p.waitErr = cmd.Wait(); logFile.Close(); close(p.done) }()
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			p.dumpLog(80)
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			p.dumpLog(50)
			t.Fatalf("controller %s did not come up: %v", name, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return p
}

// stop sends SIGTERM and waits for a clean exit; it reports how long the
// shutdown took. A second call is a no-op.
func (p *controllerProc) stop() time.Duration {
	select {
	case <-p.done:
		return 0
	default:
	}
	start := time.Now()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		if p.waitErr != nil {
			p.t.Errorf("controller exited with %v after SIGTERM", p.waitErr)
		}
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
		p.t.Error("controller did not stop within 30s of SIGTERM; killed")
	}
	return time.Since(start)
}

func (p *controllerProc) dumpLog(lines int) {
	data, err := os.ReadFile(p.logPath)
	if err != nil {
		return
	}
	all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	p.t.Logf("last %d lines of %s:\n%s", len(all), p.logPath, strings.Join(all, "\n"))
}

// get returns the body the controller's metrics address serves at path
// (or the error, as text: it is only logged).
func (p *controllerProc) get(path string) string {
	resp, err := http.Get("http://" + p.addr + path)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err.Error()
	}
	return string(body)
}

// metrics scrapes /metrics into name{labels} -> value: every metric, or
// only those named (the controller's own, collected without the process
// and Go collectors' milliseconds).
func (p *controllerProc) metrics(names ...string) map[string]float64 {
	p.t.Helper()
	q := url.Values{"name[]": names}
	// Uncompressed: TestLoad scrapes four times a second while it waits
	// for quiet, and gzip would be CPU the controller spends on the test.
	req, err := http.NewRequest(http.MethodGet, "http://"+p.addr+"/metrics?"+q.Encode(), nil)
	if err != nil {
		p.t.Fatalf("scrape: %v", err)
	}
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			continue
		}
		out[line[:i]] = v
	}
	return out
}

// sum adds up every series of a metric.
func sum(m map[string]float64, name string) float64 {
	var s float64
	for k, v := range m {
		if k == name || strings.HasPrefix(k, name+"{") {
			s += v
		}
	}
	return s
}

// procCPU is a process's user and system CPU time.
type procCPU struct{ user, system time.Duration }

func (a procCPU) sub(b procCPU) procCPU {
	return procCPU{user: a.user - b.user, system: a.system - b.system}
}

func (a procCPU) total() time.Duration { return a.user + a.system }

// cpu reads the controller's CPU time from /proc/<pid>/stat (utime and
// stime, in clock ticks of 10 ms), as the process collector does, but
// without asking the controller, so reading it costs the controller
// nothing.
func (p *controllerProc) cpu() procCPU {
	p.t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		p.t.Fatalf("controller CPU time: %v", err)
	}
	// The command name (field 2) may hold spaces; fields after it are
	// plain. utime and stime are fields 14 and 15.
	rest := string(data[strings.LastIndexByte(string(data), ')')+2:])
	f := strings.Fields(rest)
	if len(f) < 13 {
		p.t.Fatalf("controller CPU time: short /proc stat %q", data)
	}
	ticks := func(s string) time.Duration {
		n, _ := strconv.ParseInt(s, 10, 64)
		return time.Duration(n) * 10 * time.Millisecond // USER_HZ is 100 on Linux
	}
	return procCPU{user: ticks(f[11]), system: ticks(f[12])}
}
