package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/delay"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine/memcluster"
	"github.com/vcjob/vcjob/worker"
)

// stepsAreas are the fields of a step's expectation (FORMAT-steps.md), in
// the order a difference is reported; error is a release file's.
var stepsAreas = []string{"action", "delaySeconds", "registered", "error", "cancelled", "fired",
	"phase", "version", "retryCount", "deletedPods", "createdPods", "podGroupDeleted", "pendingDelays"}

// stepsCase is one multi-step scenario of Volcano's job controller on a
// virtual clock (FORMAT-steps.md).
type stepsCase struct {
	Name          string        `json:"name"`
	Job           *vcjob.Job    `json:"job"`
	Pods          []*corev1.Pod `json:"pods"`
	PodGroupPhase string        `json:"podGroupPhase"`
	Script        []scriptStep  `json:"script"`
	Expect        []stepExpect  `json:"expect"`
	// ExpectAlternatives (release files) are whole expect lists Volcano's
	// code produces with equal right: the case matches expect or any one
	// of them, every step of it.
	ExpectAlternatives [][]stepExpect `json:"expectAlternatives,omitempty"`
}

// scriptStep is one step of a scenario: a pod's change with the request
// Volcano's pod handler queued for it, or the clock advancing.
type scriptStep struct {
	Op       string           `json:"op"`
	Pod      string           `json:"pod,omitempty"`
	ExitCode int32            `json:"exitCode,omitempty"`
	Request  *request.Request `json:"request,omitempty"`
	Seconds  int64            `json:"seconds,omitempty"`
	// At is the virtual second the step starts at.
	At int64 `json:"at"`
}

// The script's operations.
const (
	opPending = "pending"
	opRun     = "run"
	opFail    = "fail"
	opEvict   = "evict"
	opAdvance = "advance"
)

// String names the step as a failure line does.
func (s scriptStep) String() string {
	switch s.Op {
	case opAdvance:
		return fmt.Sprintf("advance %ds at %d", s.Seconds, s.At)
	case opFail:
		return fmt.Sprintf("fail %s %d at %d", s.Pod, s.ExitCode, s.At)
	}
	return fmt.Sprintf("%s %s at %d", s.Op, s.Pod, s.At)
}

// stepExpect is what Volcano did in one step.
type stepExpect struct {
	Action       vcjob.Action `json:"action,omitempty"`
	DelaySeconds float64      `json:"delaySeconds,omitempty"`
	Registered   bool         `json:"registered,omitempty"`
	// Error (release files): Volcano's step returned an error; Panic: its
	// code panicked there, which counts as an error.
	Error           bool           `json:"error,omitempty"`
	Panic           *string        `json:"panic,omitempty"`
	Cancelled       []string       `json:"cancelled"`
	Fired           []firedAction  `json:"fired"`
	Phase           vcjob.JobPhase `json:"phase"`
	Version         int32          `json:"version"`
	RetryCount      int32          `json:"retryCount"`
	DeletedPods     []string       `json:"deletedPods"`
	CreatedPods     []string       `json:"createdPods"`
	PodGroupDeleted bool           `json:"podGroupDeleted,omitempty"`
	PendingDelays   []string       `json:"pendingDelays"`
}

// firedAction is a delayed action that fired: the pod and event it was
// registered for, its due second and the job's phase after it ran.
type firedAction struct {
	Pod        string         `json:"pod"`
	Action     vcjob.Action   `json:"action"`
	Event      vcjob.Event    `json:"event"`
	At         int64          `json:"at"`
	PhaseAfter vcjob.JobPhase `json:"phaseAfter"`
}

// stepsRequired are the keys every case, script step and expectation
// carries: a missing one would otherwise read as empty and test nothing.
var stepsRequired = map[string][]string{
	"":       {"name", "job", "pods", "podGroupPhase", "script", "expect"},
	"script": {"op", "at"},
	"pod":    {"pod", "request"},
	"expect": {"cancelled", "fired", "phase", "version", "retryCount", "deletedPods", "createdPods", "pendingDelays"},
}

// decodeStepsCase reads one line strictly: no unknown key anywhere, every
// required key present, one expectation per step.
func decodeStepsCase(line []byte) (*stepsCase, error) {
	var c stepsCase
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(line, &top); err != nil {
		return nil, err
	}
	var script, expect []map[string]json.RawMessage
	var alternatives [][]map[string]json.RawMessage
	for k, v := range map[string]any{"script": &script, "expect": &expect, "expectAlternatives": &alternatives} {
		if raw, ok := top[k]; ok {
			if err := json.Unmarshal(raw, v); err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
		}
	}
	need := func(where string, obj map[string]json.RawMessage, keys []string) error {
		for _, k := range keys {
			if _, ok := obj[k]; !ok {
				return fmt.Errorf("%sno %q key", where, k)
			}
		}
		return nil
	}
	if err := need("", top, stepsRequired[""]); err != nil {
		return nil, err
	}
	if c.Job == nil {
		return nil, fmt.Errorf("job is null")
	}
	for i, s := range script {
		where := fmt.Sprintf("script[%d]: ", i)
		if err := need(where, s, stepsRequired["script"]); err != nil {
			return nil, err
		}
		switch op := c.Script[i].Op; op {
		case opAdvance:
		case opFail:
			if err := need(where, s, []string{"exitCode"}); err != nil {
				return nil, err
			}
			fallthrough
		case opPending, opRun, opEvict:
			if err := need(where, s, stepsRequired["pod"]); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("%sunknown op %q", where, op)
		}
	}
	lists := append([][]map[string]json.RawMessage{expect}, alternatives...)
	for a, list := range lists {
		name := "expect"
		if a > 0 {
			name = fmt.Sprintf("expectAlternatives[%d]", a-1)
		}
		if len(list) != len(c.Script) {
			return nil, fmt.Errorf("%s has %d entries for %d script steps", name, len(list), len(c.Script))
		}
		for i, e := range list {
			if err := need(fmt.Sprintf("%s[%d]: ", name, i), e, stepsRequired["expect"]); err != nil {
				return nil, err
			}
		}
	}
	return &c, nil
}

// runStepsFile replays every scenario of a file through the worker step
// and compares each step in each area.
func runStepsFile(path string, opts Options, out io.Writer, verbose bool, tally *areaTally) (passed, failed int, err error) {
	f, err := openVectors(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var notes requestNotes
	line := 0
	for sc.Scan() {
		line++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		c, err := decodeStepsCase(sc.Bytes())
		if err != nil {
			return passed, failed, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		got, caseNotes, rerr := replaySteps(c, opts)
		notes.add(c.Name, caseNotes)
		var diff string
		var failedAreas []string
		if rerr != nil {
			diff, failedAreas = "replay: "+rerr.Error(), stepsAreas
		} else {
			diff, failedAreas = diffStepsCase(c, got)
		}
		if tally != nil {
			tally.add(failedAreas...)
			tally.cases++
		}
		if diff != "" {
			failed++
			fmt.Fprintf(out, "FAIL %s (%s:%d): %s\n", c.Name, path, line, diff)
		} else {
			passed++
			if verbose {
				fmt.Fprintf(out, "ok   %s\n", c.Name)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return passed, failed, fmt.Errorf("%s: %w", path, err)
	}
	notes.print(out, path, verbose)
	return passed, failed, nil
}

// diffStepsCase compares the replay with expect and, when they differ,
// with each alternative: first is the first difference from expect ("" when
// expect or an alternative matches), failed the areas that differ from
// expect in any step.
func diffStepsCase(c *stepsCase, got []stepExpect) (first string, failed []string) {
	first, failed = diffStepList(c.Script, c.Expect, got)
	if first == "" {
		return "", nil
	}
	for _, alt := range c.ExpectAlternatives {
		if d, _ := diffStepList(c.Script, alt, got); d == "" {
			return "", nil
		}
	}
	return first, failed
}

// diffStepList compares every step; first names the first difference
// with its step.
func diffStepList(script []scriptStep, want, got []stepExpect) (first string, failed []string) {
	for i := range want {
		if i >= len(got) {
			break
		}
		d, areas := diffStep(want[i], got[i])
		for _, a := range areas {
			if !slices.Contains(failed, a) {
				failed = append(failed, a)
			}
		}
		if first == "" && d != "" {
			first = fmt.Sprintf("step %d (%s): %s", i, script[i], d)
		}
	}
	return first, failed
}

// diffStep compares one step in every area: first is the first difference
// ("" when none), failed the areas that differ.
func diffStep(want, got stepExpect) (first string, failed []string) {
	check := func(area string, w, g any) {
		if reflect.DeepEqual(w, g) {
			return
		}
		failed = append(failed, area)
		if first == "" {
			first = fmt.Sprintf("%s: want %s, got %s", area, show(w), show(g))
		}
	}
	check("action", want.Action, got.Action)
	check("delaySeconds", want.DelaySeconds, got.DelaySeconds)
	check("registered", want.Registered, got.Registered)
	// A panic counts as an error: vcjob returns errors, it does not panic.
	wantErr := want.Error || want.Panic != nil
	if wantErr != got.Error {
		failed = append(failed, "error")
		if first == "" {
			why := ""
			if want.Panic != nil {
				why = " (Volcano panicked: " + *want.Panic + ")"
			}
			first = fmt.Sprintf("error: want %v%s, got %v", wantErr, why, got.Error)
		}
	}
	check("cancelled", sortedCopy(want.Cancelled), sortedCopy(got.Cancelled))
	check("fired", orEmpty(want.Fired), orEmpty(got.Fired))
	check("phase", want.Phase, got.Phase)
	check("version", want.Version, got.Version)
	check("retryCount", want.RetryCount, got.RetryCount)
	check("deletedPods", sortedCopy(want.DeletedPods), sortedCopy(got.DeletedPods))
	check("createdPods", sortedCopy(want.CreatedPods), sortedCopy(got.CreatedPods))
	check("podGroupDeleted", want.PodGroupDeleted, got.PodGroupDeleted)
	check("pendingDelays", sortedCopy(want.PendingDelays), sortedCopy(got.PendingDelays))
	return first, failed
}

func sortedCopy(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}

func orEmpty(f []firedAction) []firedAction {
	if f == nil {
		return []firedAction{}
	}
	return f
}

// replaySteps plays a scenario through vcjob's pipeline as a controller
// runs it: the job and its pods in a cluster and a job cache, the
// PodGroup in its phase, a worker step over both and a delay queue on a
// virtual clock that starts at recordedAt. A pod's change goes to the
// cluster and, through the cache's handlers, to the cache before the
// step's recorded request is processed; an advance fires what falls due,
// in due order, each at its due time. What the steps write (the job's
// status, pods created and deleted) is fed back to the cache after each
// step and each fire. It returns one outcome per step, and notes on the
// requests the cache derived otherwise than Volcano's handler queued.
func replaySteps(c *stepsCase, opts Options) ([]stepExpect, []requestNote, error) {
	ctl, err := newController(c.Job, c.Pods, true, opts.Recount, func(cl *memcluster.Cluster, job *vcjob.Job) {
		cl.SetPodGroupPhase(job.Namespace, podgroup.Name(job), podgroup.Phase(c.PodGroupPhase))
	})
	if err != nil {
		return nil, nil, err
	}
	r := &stepsReplay{ctl: ctl, now: recordedAt.Time, initial: map[string]types.UID{}}
	for _, p := range c.Pods {
		r.initial[p.Name] = p.UID
	}
	out := make([]stepExpect, 0, len(c.Script))
	for i, s := range c.Script {
		if at := r.second(r.now); at != s.At {
			return out, r.notes, fmt.Errorf("step %d (%s): the replay's clock reads %d", i, s, at)
		}
		got, err := r.play(i, s)
		if err != nil {
			return out, r.notes, fmt.Errorf("step %d (%s): %w", i, s, err)
		}
		out = append(out, got)
	}
	return out, r.notes, nil
}

// stepsReplay is a scenario being replayed.
type stepsReplay struct {
	ctl *controller
	now time.Time
	// initial are the UIDs of the pods the scenario starts with, by name:
	// a pod of another UID was created by the replay, under a UID of the
	// in-memory cluster's own.
	initial map[string]types.UID
	notes   []requestNote
}

// second is t in virtual seconds.
func (r *stepsReplay) second(t time.Time) int64 {
	return int64(t.Sub(recordedAt.Time) / time.Second)
}

func (r *stepsReplay) setNow(t time.Time) {
	r.now = t
	r.ctl.cluster.Now = metav1.NewTime(t)
}

// play runs one step and reads its outcome.
func (r *stepsReplay) play(i int, s scriptStep) (stepExpect, error) {
	cl, step := r.ctl.cluster, r.ctl.step
	job := r.ctl.job
	cl.Journal.Reset()
	got := stepExpect{Cancelled: []string{}, Fired: []firedAction{}}
	ctx := context.Background()
	var recs []worker.Record
	if s.Op == opAdvance {
		until := r.now.Add(time.Duration(s.Seconds) * time.Second)
		for {
			next, ok := step.Delays.Next()
			if !ok || next.After(until) {
				break
			}
			r.setNow(next)
			for _, e := range step.Delays.Due(next) {
				rec := step.Fire(ctx, e, r.now)
				if rec.Skipped != "" {
					return got, fmt.Errorf("%s fired and was skipped: %s", r.entry(e), rec.Skipped)
				}
				r.ctl.feedback()
				recs = append(recs, rec)
				got.Fired = append(got.Fired, firedAction{Pod: e.Request.PodName, Action: e.Action, Event: e.Request.Event,
					At: r.second(e.Due), PhaseAfter: cl.StoredJob(job.Namespace, job.Name).Status.State.Phase})
			}
		}
		r.setNow(until)
	} else {
		req, err := r.change(i, s)
		if err != nil {
			return got, err
		}
		rec := step.Process(ctx, req, r.now)
		if rec.Skipped != "" {
			return got, fmt.Errorf("the step skipped the request: %s", rec.Skipped)
		}
		r.ctl.feedback()
		recs = append(recs, rec)
		got.Action, got.DelaySeconds, got.Registered = rec.Action, rec.Delay.Seconds(), rec.Registered != nil
	}
	for _, rec := range recs {
		got.Error = got.Error || rec.Err != nil
		for _, e := range rec.Cancelled {
			got.Cancelled = append(got.Cancelled, r.entry(e))
		}
	}
	st := cl.StoredJob(job.Namespace, job.Name).Status
	got.Phase, got.Version, got.RetryCount = st.State.Phase, st.Version, st.RetryCount
	got.DeletedPods = sortedCopy(cl.Journal.Deleted)
	got.CreatedPods = sortedCopy(cl.Journal.Created)
	got.PodGroupDeleted = len(cl.Journal.PodGroupsDeleted) > 0
	got.PendingDelays = []string{}
	for _, e := range step.Delays.Pending(job.Namespace, job.Name) {
		got.PendingDelays = append(got.PendingDelays, r.entry(e))
	}
	sort.Strings(got.PendingDelays)
	return got, nil
}

// entry names a delayed action as the vectors do: pod:action@due.
func (r *stepsReplay) entry(e delay.Entry) string {
	return e.Request.PodName + ":" + string(e.Action) + "@" + strconv.FormatInt(r.second(e.Due), 10)
}

// change applies a step's pod change to the cluster and, through the
// cache's handlers, to the cache, and returns the step's recorded
// request for the job; a request the cache derives otherwise is noted.
func (r *stepsReplay) change(i int, s scriptStep) (request.Request, error) {
	cl, job := r.ctl.cluster, r.ctl.job
	pod := cl.Pod(job.Namespace, s.Pod)
	if pod == nil {
		return request.Request{}, fmt.Errorf("no pod %s in the cluster", s.Pod)
	}
	if s.Op == opFail {
		if _, err := cl.FailPod(job.Namespace, s.Pod, s.ExitCode); err != nil {
			return request.Request{}, err
		}
	} else {
		cl.PutPod(changedPod(pod, s.Op))
	}
	derived := r.ctl.feedback()
	// A recorded request omits the job it is for: the case is about one job.
	req := *s.Request
	req.Namespace, req.JobName = job.Namespace, job.Name
	r.compare(i, s, pod, req, derived)
	return req, nil
}

// changedPod is pod after a pending, run or evict step: the phase the
// kubelet reports, and an evicted pod Failed with reason Evicted, as the
// kubelet leaves a pod it evicts.
func changedPod(pod *corev1.Pod, op string) *corev1.Pod {
	p := pod.DeepCopy()
	ready := false
	switch op {
	case opPending:
		p.Status.Phase = corev1.PodPending
	case opRun:
		p.Status.Phase, ready = corev1.PodRunning, true
	case opEvict:
		p.Status.Phase, p.Status.Reason = corev1.PodFailed, "Evicted"
	}
	for i := range p.Status.ContainerStatuses {
		p.Status.ContainerStatuses[i].Ready = ready
	}
	return p
}

// requestNote is a pod step whose request vcjob's cache derives otherwise
// than Volcano's pod handler queued it (Got is empty when the cache raises
// none).
type requestNote struct {
	Case string
	Step int
	Op   string
	// From is the pod's phase before the step.
	From      corev1.PodPhase
	Want, Got request.Request
	None      bool
}

// compare notes the step when the cache's request for its pod differs
// from the recorded one. The UID of a pod the replay created is the
// in-memory cluster's own, so it is not compared.
func (r *stepsReplay) compare(i int, s scriptStep, before *corev1.Pod, want request.Request, derived []request.Request) {
	n := requestNote{Step: i, Op: s.Op, From: before.Status.Phase, Want: want, None: true}
	for _, d := range derived {
		if d.PodName == s.Pod {
			n.Got, n.None = d, false
		}
	}
	if r.initial[s.Pod] != before.UID {
		n.Want.PodUID, n.Got.PodUID = "", ""
	}
	if !n.None && n.Want == n.Got {
		return
	}
	r.notes = append(r.notes, n)
}

// requestNotes gathers a file's notes.
type requestNotes struct {
	all   []requestNote
	kinds map[string]int
}

func (ns *requestNotes) add(name string, notes []requestNote) {
	for _, n := range notes {
		n.Case = name
		ns.all = append(ns.all, n)
		if ns.kinds == nil {
			ns.kinds = map[string]int{}
		}
		ns.kinds[n.kind()]++
	}
}

// kind groups a note: the step's operation and how the requests differ.
func (n requestNote) kind() string {
	op := fmt.Sprintf("%s of a %s pod", n.Op, n.From)
	if n.None {
		return fmt.Sprintf("%s: Volcano queued %s, vcjob's cache raises none", op, n.Want.Event)
	}
	var diffs []string
	w, g := n.Want, n.Got
	if w.Event != g.Event {
		diffs = append(diffs, fmt.Sprintf("event %s, vcjob's cache %s", w.Event, g.Event))
	}
	if w.ExitCode != g.ExitCode {
		diffs = append(diffs, fmt.Sprintf("exitCode %d, vcjob's cache %d", w.ExitCode, g.ExitCode))
	}
	w.Event, g.Event, w.ExitCode, g.ExitCode = "", "", 0, 0
	if w != g {
		diffs = append(diffs, fmt.Sprintf("request %s, vcjob's cache %s", show(w), show(g)))
	}
	return op + ": Volcano queued " + strings.Join(diffs, "; ")
}

// print reports the notes: their count by kind, and with verbose each one.
func (ns *requestNotes) print(out io.Writer, path string, verbose bool) {
	if len(ns.all) == 0 {
		return
	}
	fmt.Fprintf(out, "%s: %d pod steps' requests differ from what vcjob's cache derives (the recorded request is replayed):\n", path, len(ns.all))
	kinds := make([]string, 0, len(ns.kinds))
	for k := range ns.kinds {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Fprintf(out, "  %4d  %s\n", ns.kinds[k], k)
	}
	if verbose {
		for _, n := range ns.all {
			fmt.Fprintf(out, "  note %s step %d: %s\n", n.Case, n.Step, n.kind())
		}
	}
}
