package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"reflect"
	"sort"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/jobinfo"
	"github.com/vcjob/vcjob/plugins"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
	"github.com/vcjob/vcjob/worker"
)

// recordedAt is the clock of the replay; the vectors compare no timestamp.
var recordedAt = metav1.NewTime(time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC))

// Got is what the library did for a case, in the vectors' terms.
type Got = Expect

// Mode is how a case is replayed.
type Mode string

// The replay modes.
const (
	// Direct resolves the policy and runs the state machine on a job info
	// built from the case.
	Direct Mode = "direct"
	// ThroughStep loads the case into a cache and runs the request through
	// the worker's processing step, as a controller would.
	ThroughStep Mode = "step"
)

// Options say how to replay a case.
type Options struct {
	Mode Mode
	// Recount: the plans walk every pod (the oracle) instead of reading
	// the job info's counts.
	Recount bool
}

// Replay runs one case through the library's public API.
func Replay(c *Case, opts Options) (Got, error) {
	if opts.Mode == ThroughStep {
		return replayStep(c, opts.Recount)
	}
	return replayDirect(c, opts.Recount)
}

// replayStep loads the case into a cache and a cluster and runs the
// request through worker.Step.
func replayStep(c *Case, recount bool) (Got, error) {
	var job vcjob.Job
	if err := json.Unmarshal(c.Job, &job); err != nil {
		return Got{}, fmt.Errorf("job: %w", err)
	}
	ctl, err := newController(&job, c.Pods, false, recount, func(cl *memcluster.Cluster, _ *vcjob.Job) {
		if c.PodGroup != nil && c.PodGroupObject == nil {
			cl.SetPodGroupPhase(job.Namespace, podgroup.Name(&job), podgroup.Phase(c.PodGroup.Phase))
		}
		putV2(c, cl, &job)
	})
	if err != nil {
		return Got{}, err
	}
	cl, step := ctl.cluster, ctl.step
	// A recorded request omits the job it is for: the case is about one job.
	req := c.Request
	req.Namespace, req.JobName = job.Namespace, job.Name
	rec := step.Process(context.Background(), req, recordedAt.Time)
	if rec.Skipped != "" {
		return Got{}, fmt.Errorf("step skipped the request: %s", rec.Skipped)
	}
	got := Got{Action: rec.Action, DelaySeconds: rec.Delay.Seconds(), Error: rec.Err != nil, DeletedPods: []string{}, CreatedPods: []PodMeta{}}
	// Through the step, the record holds processNextReq's Events, then
	// the call's: the case's processNextReqEvents, then its events.
	got.stepEvents, got.viaStep = nonNil(rec.Events), true
	if rec.Delay > 0 {
		if rec.Registered == nil {
			return Got{}, fmt.Errorf("a delayed action was not registered")
		}
		got.Status = statusOf(job.Status)
		return got, nil
	}
	return collect(c, got, cl, &job)
}

// registry builds the jobs' plugins as Volcano would, with a real key pair.
func registry() *plugins.Registry {
	keys, err := rsaKeys()
	if err != nil {
		// No randomness: the fixed test pair still replays every decision.
		return plugins.NewRegistry(plugins.WithSSHKeys(plugins.TestKeySource()))
	}
	return plugins.NewRegistry(plugins.WithSSHKeys(keys))
}

func replayDirect(c *Case, recount bool) (Got, error) {
	var job vcjob.Job
	if err := json.Unmarshal(c.Job, &job); err != nil {
		return Got{}, fmt.Errorf("job: %w", err)
	}
	cl := memcluster.New(recordedAt)
	cl.Plugins = registry()
	cl.Recount = recount
	cl.PutJob(&job)
	for _, p := range c.Pods {
		cl.PutPod(p)
	}
	if c.PodGroup != nil && c.PodGroupObject == nil {
		cl.SetPodGroupPhase(job.Namespace, podgroup.Name(&job), podgroup.Phase(c.PodGroup.Phase))
	}
	putV2(c, cl, &job)
	ji, err := jobinfo.New(job.DeepCopy(), c.Pods...)
	if err != nil {
		return Got{}, err
	}
	d := policy.Resolve(&job, c.Request)
	got := Got{Action: d.Action, DelaySeconds: d.Delay.Seconds(), DeletedPods: []string{}, CreatedPods: []PodMeta{}}
	// Directly, processNextReq's Events are those of the decision, and
	// the step's are the call's (the cluster's journal keeps them).
	pnr := nonNil(worker.DecisionEvents(d.Action, d.Delay))
	got.ProcessNextReqEvents = &pnr
	none := []record.Event{}
	got.Events = &none
	if d.Delay > 0 {
		got.Status = statusOf(job.Status)
		return got, nil
	}
	if _, err := statemachine.Execute(context.Background(), cl, ji, d.Action, d.Target); err != nil {
		got.Error = true
	}
	events := nonNil(cl.Journal.Events)
	got.Events = &events
	return collect(c, got, cl, &job)
}

// collect reads what the cluster's journal says the step did.
func collect(c *Case, got Got, cl *memcluster.Cluster, job *vcjob.Job) (Got, error) {
	got.Status = statusOf(cl.Job(job.Namespace, job.Name).Status)
	got.DeletedPods = append(got.DeletedPods, cl.Journal.Deleted...)
	sort.Strings(got.DeletedPods)
	for _, p := range cl.Journal.CreatedPods {
		got.CreatedPods = append(got.CreatedPods, PodMeta{Name: p.Name, Labels: p.Labels, Annotations: p.Annotations})
	}
	sort.Slice(got.CreatedPods, func(i, j int) bool { return got.CreatedPods[i].Name < got.CreatedPods[j].Name })
	got.PodGroupDeleted = len(cl.Journal.PodGroupsDeleted) > 0
	got.input, got.written = job, cl.StoredJob(job.Namespace, job.Name)
	if !c.V2() {
		return got, nil
	}
	return collectV2(got, cl, job, c.priorities())
}

// nonNil is events, or an empty list for none.
func nonNil(events []record.Event) []record.Event {
	if events == nil {
		return []record.Event{}
	}
	return events
}

// Diff names the first difference between what was expected and what the
// library did, or "" when they agree.
func Diff(want, got Expect) string {
	if want.Action != got.Action {
		return fmt.Sprintf("action: want %s, got %s", want.Action, got.Action)
	}
	if want.DelaySeconds != got.DelaySeconds {
		return fmt.Sprintf("delaySeconds: want %v, got %v", want.DelaySeconds, got.DelaySeconds)
	}
	if want.Error != got.Error {
		return fmt.Sprintf("error: want %v, got %v", want.Error, got.Error)
	}
	if d := diffStatus(want.Status, got.Status); d != "" {
		return d
	}
	if !equalStrings(want.DeletedPods, got.DeletedPods) {
		return fmt.Sprintf("deletedPods: want %v, got %v", want.DeletedPods, got.DeletedPods)
	}
	if len(want.CreatedPods) != len(got.CreatedPods) {
		return fmt.Sprintf("createdPods: want %v, got %v", names(want.CreatedPods), names(got.CreatedPods))
	}
	for i := range want.CreatedPods {
		w, g := want.CreatedPods[i], got.CreatedPods[i]
		if w.Name != g.Name {
			return fmt.Sprintf("createdPods: want %v, got %v", names(want.CreatedPods), names(got.CreatedPods))
		}
		if d := diffMap(w.Labels, g.Labels); d != "" {
			return fmt.Sprintf("createdPods[%s].labels: %s", w.Name, d)
		}
		if d := diffMap(w.Annotations, g.Annotations); d != "" {
			return fmt.Sprintf("createdPods[%s].annotations: %s", w.Name, d)
		}
	}
	if want.PodGroupDeleted != got.PodGroupDeleted {
		return fmt.Sprintf("podGroupDeleted: want %v, got %v", want.PodGroupDeleted, got.PodGroupDeleted)
	}
	return ""
}

func diffStatus(w, g Status) string {
	type field struct {
		name      string
		want, got any
	}
	for _, f := range []field{
		{"phase", w.Phase, g.Phase}, {"retryCount", w.RetryCount, g.RetryCount}, {"version", w.Version, g.Version},
		{"minAvailable", w.MinAvailable, g.MinAvailable}, {"pending", w.Pending, g.Pending}, {"running", w.Running, g.Running},
		{"succeeded", w.Succeeded, g.Succeeded}, {"failed", w.Failed, g.Failed}, {"terminating", w.Terminating, g.Terminating},
		{"unknown", w.Unknown, g.Unknown},
	} {
		if f.want != f.got {
			return fmt.Sprintf("status.%s: want %v, got %v", f.name, f.want, f.got)
		}
	}
	if !reflect.DeepEqual(normTasks(w.TaskStatusCount), normTasks(g.TaskStatusCount)) {
		return fmt.Sprintf("status.taskStatusCount: want %v, got %v", w.TaskStatusCount, g.TaskStatusCount)
	}
	if !reflect.DeepEqual(append([]vcjob.JobPhase{}, w.Conditions...), append([]vcjob.JobPhase{}, g.Conditions...)) {
		return fmt.Sprintf("status.conditions: want %v, got %v", w.Conditions, g.Conditions)
	}
	return ""
}

// normTasks makes nil and empty maps alike.
func normTasks(m map[string]map[string]map[string]int32) map[string]map[string]map[string]int32 {
	out := map[string]map[string]map[string]int32{}
	for task, ts := range m {
		ph := map[string]int32{}
		for p, n := range ts["phase"] {
			ph[p] = n
		}
		out[task] = map[string]map[string]int32{"phase": ph}
	}
	return out
}

func diffMap(w, g map[string]string) string {
	for k, v := range w {
		if gv, ok := g[k]; !ok {
			return fmt.Sprintf("missing %s=%q", k, v)
		} else if gv != v {
			return fmt.Sprintf("%s: want %q, got %q", k, v, gv)
		}
	}
	for k, v := range g {
		if _, ok := w[k]; !ok {
			return fmt.Sprintf("unexpected %s=%q", k, v)
		}
	}
	return ""
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func names(ps []PodMeta) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

// rsaKeys is an ssh key pair generated once per run, as Volcano's ssh
// plugin generates one per job: the vectors compare its shape (a
// 2048-bit PKCS#1 key, a matching authorized key without comment), not
// its bytes.
var rsaKeys = sync.OnceValues(func() (plugins.FixedKeySource, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return plugins.FixedKeySource{}, err
	}
	priv := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	wire := func(b []byte) []byte {
		out := binary.BigEndian.AppendUint32(nil, uint32(len(b)))
		return append(out, b...)
	}
	mpint := func(n *big.Int) []byte {
		b := n.Bytes()
		if len(b) > 0 && b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return wire(b)
	}
	blob := append(wire([]byte("ssh-rsa")), mpint(big.NewInt(int64(key.E)))...)
	blob = append(blob, mpint(key.N)...)
	pub := []byte("ssh-rsa " + base64.StdEncoding.EncodeToString(blob) + "\n")
	return plugins.FixedKeySource{Private: priv, Public: pub}, nil
})
