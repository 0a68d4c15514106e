package main

import (
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// walkTest is the test whose Process calls are traced.
//
//go:embed walk_test.go
var walkTest string

const (
	module = "github.com/vcjob/vcjob"
	// process is the measured function; testCaller is the test's function
	// that calls it (so that Process calls made in setup do not count).
	process    = module + "/worker.(*Step).Process"
	testCaller = "walkProcess"
	// stackDepth is the frames Delve prints per entry; an entry of the
	// measured call deeper than this is an error, not a silent miss.
	stackDepth = 256
)

// requests are the measured requests: the test function making the call
// and what the request is.
var requests = []struct{ test, name string }{
	{"TestWalkSync", "sync: PodRunning of a Running job -> SyncJob"},
	{"TestWalkKill", "kill: PodFailed, policy PodFailed/RestartJob -> RestartJob"},
}

func main() {
	repo := flag.String("repo", ".", "the checkout of vcjob to measure")
	dlv := flag.String("dlv", "", "the dlv binary (default: dlv on PATH, or in GOBIN or GOPATH/bin)")
	tree := flag.Bool("tree", false, "also print each request's call tree")
	traceOut := flag.String("trace", "", "keep the raw trace in this file")
	flag.Parse()
	if err := run(os.Stdout, *repo, *dlv, *traceOut, *tree); err != nil {
		fmt.Fprintln(os.Stderr, "walk:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, repo, dlv, traceOut string, tree bool) error {
	repo, err := filepath.Abs(repo)
	if err != nil {
		return err
	}
	if dlv == "" {
		if dlv, err = findDlv(); err != nil {
			return err
		}
	}
	if out, err := command(repo, "go", "list", "-m"); err != nil {
		return err
	} else if strings.TrimSpace(out) != module {
		return fmt.Errorf("%s is module %q, not %s", repo, strings.TrimSpace(out), module)
	}
	deps, err := moduleDeps(repo)
	if err != nil {
		return err
	}
	commit, _ := command(repo, "git", "describe", "--always", "--dirty")

	// The test goes into a temporary package of the checkout, so that it
	// builds against the checkout's own packages and go.mod; its name
	// starts with "_", which keeps it out of ./... meanwhile.
	pkgDir, err := os.MkdirTemp(filepath.Join(repo, "hack"), "_walk")
	if err != nil {
		return err
	}
	defer os.RemoveAll(pkgDir)
	binDir, err := os.MkdirTemp("", "walk")
	if err != nil {
		return err
	}
	defer os.RemoveAll(binDir)
	src := strings.Replace(walkTest, "package main_test", "package walktmp_test", 1)
	if err := os.WriteFile(filepath.Join(pkgDir, "walk_test.go"), []byte(src), 0o644); err != nil {
		return err
	}
	bin := filepath.Join(binDir, "walk.test")
	if _, err := command(repo, "go", "test", "-c", "-gcflags=all=-N -l", "-o", bin, "./"+filepath.ToSlash(mustRel(repo, pkgDir))); err != nil {
		return err
	}

	run := "^(" + requests[0].test + "|" + requests[1].test + ")$"
	cmd := exec.Command(dlv, "trace", "--exec", bin, "--stack", strconv.Itoa(stackDepth),
		"^"+regexp.QuoteMeta(module)+"[./]", "--", "-test.run", run, "-test.v")
	cmd.Dir = pkgDir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "TERM=dumb")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("dlv trace: %w\n%s%s", err, stdout.String(), tail(stderr.String(), 40))
	}
	for _, r := range requests {
		if !strings.Contains(stdout.String(), "--- PASS: "+r.test) {
			return fmt.Errorf("%s did not pass:\n%s", r.test, stdout.String())
		}
	}
	trace := ansi.ReplaceAllString(stderr.String(), "")
	if traceOut != "" {
		if err := os.WriteFile(traceOut, []byte(trace), 0o644); err != nil {
			return err
		}
	}
	entries, err := parseTrace(trace)
	if err != nil {
		return err
	}
	walks, err := measure(entries, repo, deps)
	if err != nil {
		return err
	}
	report(w, strings.TrimSpace(commit), walks, tree)
	return nil
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

func findDlv() (string, error) {
	if p, err := exec.LookPath("dlv"); err == nil {
		return p, nil
	}
	for _, dir := range []string{os.Getenv("GOBIN"), filepath.Join(goEnv("GOPATH"), "bin")} {
		if p := filepath.Join(dir, "dlv"); dir != "" && isFile(p) {
			return p, nil
		}
	}
	return "", errors.New("no dlv found: go install github.com/go-delve/delve/cmd/dlv@v1.27.2, or pass -dlv")
}

func goEnv(name string) string {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return ""
	}
	return strings.SplitN(strings.TrimSpace(string(out)), string(filepath.ListSeparator), 2)[0]
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

func mustRel(base, p string) string {
	r, err := filepath.Rel(base, p)
	if err != nil {
		panic(err)
	}
	return r
}

func command(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

func tail(s string, lines int) string {
	l := strings.Split(s, "\n")
	if len(l) > lines {
		l = l[len(l)-lines:]
	}
	return strings.Join(l, "\n")
}

// moduleDeps maps each package of the module to the set of the module's
// packages it imports, directly or transitively.
func moduleDeps(repo string) (map[string]map[string]bool, error) {
	out, err := command(repo, "go", "list", "-e", "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}", module+"/...")
	if err != nil {
		return nil, err
	}
	deps := map[string]map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		set := map[string]bool{}
		for _, d := range f[1:] {
			if inModule(d) {
				set[d] = true
			}
		}
		deps[f[0]] = set
	}
	return deps, nil
}

func inModule(pkg string) bool { return pkg == module || strings.HasPrefix(pkg, module+"/") }
