//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/vcjobtest/scenario"
	"github.com/vcjob/vcjob/vcjobtest/scenario/expect"

	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
)

// The translations of Volcano's own end-to-end cases live with the
// simulator (vcjobtest/scenario/testdata/e2e): a job, a script of
// what the scheduler and the kubelet do, and what Volcano's test waits
// for. TestVolcanoE2E plays each on the real API server against the
// controller, with its webhooks in force: the script's commands become
// the same writes a scheduler and a kubelet make (a PodGroup's phase, a
// binding, a pod's status, a deletion), and before each command the
// player waits until the cluster is where the simulator says it is after
// the command before (the job's phase, retries and version, the pods not
// being deleted and their phases, the PodGroup), so the controller is
// never raced (see reach); then the case's expectations are checked on what the
// player saw, as the simulator's test checks them on its run.
const volcanoCases = "../../../vcjobtest/scenario/testdata/e2e"

// volcanoSuiteLabel marks the namespaces the suite's webhooks serve.
const volcanoSuiteLabel = "vcjob.dev/e2e-suite"

func TestVolcanoE2E(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(volcanoCases, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases in %s: %v", volcanoCases, err)
	}
	installWebhooksFor(t, &metav1.LabelSelector{MatchLabels: map[string]string{volcanoSuiteLabel: "volcano"}})
	probe := newVolcanoNamespace(t, "vc-probe")
	eventually(t, 30*time.Second, "the mutating webhook in force", func() (bool, string) {
		name := fmt.Sprintf("probe-%d", time.Now().UnixNano()%1e6)
		u, err := createUnstructured(probe, clients.JobsResource.Resource, strings.Replace(webhookJob, "NAME", name, 1))
		if err != nil {
			return false, err.Error()
		}
		_ = dyn.Resource(clients.JobsResource).Namespace(probe).Delete(bg, name, metav1.DeleteOptions{})
		queue, _, _ := unstructured.NestedString(u.Object, "spec", "queue")
		return queue == vcjob.DefaultQueue, "spec.queue " + strconv.Quote(queue)
	})
	only := os.Getenv("E2E_VOLCANO_CASES") // a substring of the case names to play
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		if only != "" && !strings.Contains(name, only) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			playVolcanoCase(t, path)
		})
	}
}

// newVolcanoNamespace is newNamespace with the label the suite's
// webhooks select.
func newVolcanoNamespace(t *testing.T, prefix string) string {
	t.Helper()
	ns := fmt.Sprintf("%s-%04x", prefix, rand.IntN(1<<16))
	obj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{volcanoSuiteLabel: "volcano"}}}
	if _, err := kube.CoreV1().Namespaces().Create(bg, obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sim.setMode(ns, mode{})
		for _, r := range []schema.GroupVersionResource{clients.CronJobsResource, clients.JobsResource, clients.PodGroupsResource, clients.CommandsResource} {
			_ = dyn.Resource(r).Namespace(ns).DeleteCollection(bg, metav1.DeleteOptions{}, metav1.ListOptions{})
		}
		zero := int64(0)
		_ = kube.CoreV1().Pods(ns).DeleteCollection(bg, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{})
	})
	return ns
}

// maxAdvance is the longest wait the player sits through: a case whose
// script waits longer for a delayed action is the simulator's only.
const maxAdvance = 5 * time.Second

// playVolcanoCase plays one case file; see TestVolcanoE2E.
func playVolcanoCase(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := scenario.ParseFile(data)
	if err != nil {
		t.Fatal(err)
	}
	exps, err := expect.Parse(f.Sections["expect"])
	if err != nil {
		t.Fatal(err)
	}
	notMet, err := expect.Parse(f.Sections["not met"])
	if err != nil {
		t.Fatal(err)
	}
	script, err := scenario.Parse(strings.NewReader(f.Sections["script"]))
	if err != nil {
		t.Fatal(err)
	}
	simJob, err := scenario.Load([]byte(f.Sections["job.yaml"]), "")
	if err != nil {
		t.Fatal(err)
	}
	claims := strings.Fields(f.Sections["claims"])
	want, steps, err := scenario.Trace(simJob, script, scenario.NewText(io.Discard), scenario.Options{Claims: claims})
	if err != nil {
		t.Fatalf("the simulator does not play the script: %v", err)
	}
	for _, s := range steps {
		switch {
		case s.Relisted:
			t.Skipf("line %d %q: a watch that loses a change cannot be played on a real API server", s.Line, s.Text)
		case s.Verb == "advance" && s.Waits && s.D > maxAdvance:
			t.Skipf("line %d %q: waits %s for a delayed action; the player waits at most %s (the simulator plays it on its clock)", s.Line, s.Text, s.D, maxAdvance)
		}
	}
	ns := newVolcanoNamespace(t, "vc")
	sim.setMode(ns, mode{KeepTerminating: true})
	createPriorityClasses(t, f.Sections["priorityclasses"])
	p := &player{t: t, ns: ns, name: simJob.Name, want: want, manifest: f.Sections["job.yaml"],
		got: &expect.Trace{Job: simJob.Name, Snapshots: map[int]*expect.Snapshot{}}}
	p.watch()
	for _, c := range claims {
		p.createClaim(c)
	}
	if _, err := createJobE(ns, f.Sections["job.yaml"]); err != nil {
		t.Fatal(err)
	}
	prev := 0
	for _, s := range steps {
		p.reach(prev, s.Pods)
		p.setLine(s.Line)
		p.play(s)
		prev = s.Line
	}
	p.reach(prev, nil)
	p.got.Last = prev
	// Events reach the API server a moment after the step that recorded
	// them: look again for a while before calling an expectation unmet.
	var errs []error
	deadline := time.Now().Add(10 * time.Second)
	for {
		p.got.Snapshots[prev] = p.snapshot()
		p.got.Writes = p.writes()
		errs = expect.Check(exps, p.got)
		if len(errs) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, err := range errs {
		t.Errorf("not met on the API server: %v", err)
	}
	for _, e := range notMet {
		if err := e.Check(p.got); err == nil {
			t.Errorf("-- not met -- line %d %q holds on the API server", e.Line, e.Text)
		}
	}
}

// player plays one case on the API server.
type player struct {
	t        *testing.T
	ns, name string
	want     *expect.Trace
	got      *expect.Trace
	manifest string
	job      *vcjob.Job // the job as last read (its UID names the PodGroup)

	mu     sync.Mutex
	line   int
	seen   []expect.Write
	lastRV string
}

func (p *player) setLine(l int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.line = l
}

func (p *player) writes() []expect.Write {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]expect.Write(nil), p.seen...)
}

// watch records every version of the job, with the script line being
// played when it came.
func (p *player) watch() {
	ctx, cancel := context.WithCancel(bg)
	p.t.Cleanup(cancel)
	sel := fields.OneTermEqualSelector("metadata.name", p.name).String()
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = sel
			return dyn.Resource(clients.JobsResource).Namespace(p.ns).List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = sel
			return dyn.Resource(clients.JobsResource).Namespace(p.ns).Watch(ctx, o)
		},
	}
	inf := cache.NewSharedIndexInformer(lw, &unstructured.Unstructured{}, 0, cache.Indexers{})
	note := func(obj any) {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return
		}
		job, err := jobFromUnstructured(u)
		if err != nil {
			return
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if job.ResourceVersion == p.lastRV {
			return
		}
		p.lastRV = job.ResourceVersion
		p.seen = append(p.seen, expect.Write{Line: p.line, Job: job})
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: note, UpdateFunc: func(_, n any) { note(n) }}); err != nil {
		p.t.Fatal(err)
	}
	go inf.RunWithContext(ctx)
	cache.WaitForCacheSync(ctx.Done(), inf.HasSynced)
}

// reach waits until the cluster is where the simulator was after script
// line l, and keeps its snapshot: the job's phase and retries, its
// version while a sync does not bump it (every request on a job being
// killed or finished bumps it, and how many requests a controller's
// queue collapses is its own), the PodGroup's phase, and the pods the
// next command acts on, each not being deleted and in the phase the
// simulator has it in. Other pods are not compared: a sync that reads a
// PodGroup the controller has just deleted from its lister (Volcano's
// reads the same) may create a pod a moment before the simulator would.
func (p *player) reach(l int, pods []string) {
	p.t.Helper()
	want, err := p.want.At(l)
	if err != nil {
		p.t.Fatal(err)
	}
	target := describeState(want, pods)
	eventually(p.t, 30*time.Second, fmt.Sprintf("after line %d: %s", l, target), func() (bool, string) {
		got := p.snapshot()
		state := describeState(got, pods)
		if state != target {
			return false, state
		}
		// The watch must have brought the version read, so that the
		// writes so far are the lines' so far.
		if got.Job != nil {
			p.mu.Lock()
			rv := p.lastRV
			p.mu.Unlock()
			if rv != got.Job.ResourceVersion {
				return false, state + " (the watch trails)"
			}
		}
		p.got.Snapshots[l] = got
		return true, ""
	})
}

// describeState is what reach compares (see there).
func describeState(s *expect.Snapshot, names []string) string {
	var pods []string
	for _, n := range names {
		state := "gone"
		for _, p := range s.Pods {
			if p.Name == n {
				state = string(p.Status.Phase)
				if p.DeletionTimestamp != nil {
					state += ",terminating"
				}
			}
		}
		pods = append(pods, n+"="+state)
	}
	if s.Job == nil {
		return fmt.Sprintf("job gone; pods %d; podgroup %v", len(s.Pods), s.PodGroup != nil)
	}
	st := s.Job.Status
	pg := "none"
	if s.PodGroup != nil {
		pg = string(s.PodGroup.Status.Phase)
		if pg == "" {
			pg = "(no phase)"
		}
	}
	version := "-"
	switch st.State.Phase {
	case "", vcjob.Pending, vcjob.Running, vcjob.Restarting:
		version = strconv.Itoa(int(st.Version))
	}
	return fmt.Sprintf("phase %s retry %d version %s; pods [%s]; podgroup %s",
		st.State.Phase, st.RetryCount, version, strings.Join(pods, " "), pg)
}

// snapshot reads what a test reads of the cluster now.
func (p *player) snapshot() *expect.Snapshot {
	t := p.t
	s := &expect.Snapshot{Objects: map[string]runtime.Object{}}
	u, err := dyn.Resource(clients.JobsResource).Namespace(p.ns).Get(bg, p.name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		t.Fatal(err)
	default:
		if s.Job, err = jobFromUnstructured(u); err != nil {
			t.Fatal(err)
		}
		p.job = s.Job
	}
	for _, pod := range jobPods(t, p.ns, p.name) {
		s.Pods = append(s.Pods, pod.DeepCopy())
	}
	if p.job != nil {
		if pg, ok := podGroup(t, p.ns, podgroup.Name(p.job)); ok {
			s.PodGroup = pg
		}
		s.JobEvents = eventsAbout(t, p.ns, "involvedObject.uid", string(p.job.UID))
		s.PodGroupEvents = eventsAbout(t, p.ns, "involvedObject.name", podgroup.Name(p.job))
	}
	p.objects(s)
	return s
}

func eventsAbout(t *testing.T, ns, field, value string) []record.Event {
	t.Helper()
	list, err := kube.CoreV1().Events(ns).List(bg, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector(field, value).String()})
	if err != nil {
		t.Fatal(err)
	}
	sort.SliceStable(list.Items, func(i, j int) bool { return list.Items[i].FirstTimestamp.Before(&list.Items[j].FirstTimestamp) })
	var out []record.Event
	for _, e := range list.Items {
		out = append(out, record.Event{Type: e.Type, Reason: e.Reason, Message: e.Message})
	}
	return out
}

// objects adds the namespace's ConfigMaps, Secrets, Services,
// NetworkPolicies and claims.
func (p *player) objects(s *expect.Snapshot) {
	t := p.t
	ctx := bg
	core := kube.CoreV1()
	if l, err := core.ConfigMaps(p.ns).List(ctx, metav1.ListOptions{}); err == nil {
		for i := range l.Items {
			s.Objects["ConfigMap/"+l.Items[i].Name] = &l.Items[i]
		}
	} else {
		t.Fatal(err)
	}
	if l, err := core.Secrets(p.ns).List(ctx, metav1.ListOptions{}); err == nil {
		for i := range l.Items {
			s.Objects["Secret/"+l.Items[i].Name] = &l.Items[i]
		}
	} else {
		t.Fatal(err)
	}
	if l, err := core.Services(p.ns).List(ctx, metav1.ListOptions{}); err == nil {
		for i := range l.Items {
			s.Objects["Service/"+l.Items[i].Name] = &l.Items[i]
		}
	} else {
		t.Fatal(err)
	}
	if l, err := kube.NetworkingV1().NetworkPolicies(p.ns).List(ctx, metav1.ListOptions{}); err == nil {
		for i := range l.Items {
			s.Objects["NetworkPolicy/"+l.Items[i].Name] = &l.Items[i]
		}
	} else {
		t.Fatal(err)
	}
	if l, err := core.PersistentVolumeClaims(p.ns).List(ctx, metav1.ListOptions{}); err == nil {
		for i := range l.Items {
			s.Objects["PersistentVolumeClaim/"+l.Items[i].Name] = &l.Items[i]
		}
	} else {
		t.Fatal(err)
	}
}

// play makes the writes of one script command.
func (p *player) play(s scenario.Step) {
	t := p.t
	t.Helper()
	switch s.Verb {
	case "finish":
		p.finish()
	case "advance":
		if s.Waits {
			time.Sleep(s.D)
		}
	case "podgroup", "unschedulable":
		p.setPodGroup(s)
	case "command":
		createCommand(t, p.ns, p.current(), vcjob.Action(s.Word))
	case "scale":
		p.updateSpec(fmt.Sprintf("%s.replicas=%d", s.Word, s.N))
	case "update":
		p.updateSpec(s.Word)
	case "pvc":
		p.createClaim(s.Word)
	case "delete":
		p.deleteJob(strings.Fields(s.Word))
	case "release":
		for _, name := range strings.Fields(s.Word) {
			p.setFinalizers(name, nil)
		}
	case "create":
		if _, err := createJobE(p.ns, p.manifest); err != nil {
			t.Fatalf("line %d: create the job again: %v", s.Line, err)
		}
	default:
		for _, name := range s.Pods {
			p.playPod(s, name)
		}
	}
}

func (p *player) current() *vcjob.Job {
	p.t.Helper()
	job := getJob(p.t, p.ns, p.name)
	p.job = job
	return job
}

// setPodGroup gives the job's PodGroup the status the simulator's
// scheduler gave it (phase and conditions), and posts the Events the
// simulated scheduler recorded on it at this line.
func (p *player) setPodGroup(s scenario.Step) {
	t := p.t
	after, err := p.want.At(s.Line)
	if err != nil || s.PodGroup == nil {
		t.Fatalf("line %d: the simulator set no PodGroup status: %v", s.Line, err)
	}
	set := s.PodGroup
	before, _ := p.want.At(p.prevLine(s.Line))
	name := podgroup.Name(p.current())
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		u, err := dyn.Resource(clients.PodGroupsResource).Namespace(p.ns).Get(bg, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		status := map[string]any{"phase": string(set.Phase)}
		if conds := set.Conditions; len(conds) > 0 {
			var list []any
			for _, c := range conds {
				list = append(list, map[string]any{"type": string(c.Type), "status": string(c.Status), "reason": c.Reason,
					"message": c.Message, "lastTransitionTime": c.LastTransitionTime.UTC().Format(time.RFC3339)})
			}
			status["conditions"] = list
		}
		u.Object["status"] = status
		_, err = dyn.Resource(clients.PodGroupsResource).Namespace(p.ns).UpdateStatus(bg, u, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("line %d: PodGroup %s status: %v", s.Line, name, err)
	}
	n := 0
	if before != nil {
		n = len(before.PodGroupEvents)
	}
	for _, ev := range after.PodGroupEvents[n:] {
		now := metav1.Now()
		e := &corev1.Event{
			ObjectMeta: metav1.ObjectMeta{GenerateName: name + ".", Namespace: p.ns},
			InvolvedObject: corev1.ObjectReference{Kind: "PodGroup", APIVersion: "scheduling.volcano.sh/v1beta1",
				Namespace: p.ns, Name: name},
			Type: ev.Type, Reason: ev.Reason, Message: ev.Message, Count: 1,
			FirstTimestamp: now, LastTimestamp: now, Source: corev1.EventSource{Component: "volcano"},
		}
		if _, err := kube.CoreV1().Events(p.ns).Create(bg, e, metav1.CreateOptions{}); err != nil {
			t.Fatalf("line %d: scheduler Event: %v", s.Line, err)
		}
	}
}

// prevLine is the script line played before l (0: none).
func (p *player) prevLine(l int) int {
	prev := 0
	for k := range p.want.Snapshots {
		if k < l && k > prev {
			prev = k
		}
	}
	return prev
}

// updateSpec changes the job's spec as Volcano's test does (the whole
// spec written back, with the fields changed), retrying on conflicts
// with the controller's status writes.
func (p *player) updateSpec(fieldsText string) {
	t := p.t
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		u, err := dyn.Resource(clients.JobsResource).Namespace(p.ns).Get(bg, p.name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		spec := u.Object["spec"].(map[string]any)
		tasks, _ := spec["tasks"].([]any)
		for _, kv := range strings.Fields(fieldsText) {
			k, v, _ := strings.Cut(kv, "=")
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil {
				return err
			}
			task, field, dotted := strings.Cut(k, ".")
			if !dotted {
				spec["minAvailable"] = n
				continue
			}
			for _, x := range tasks {
				m := x.(map[string]any)
				if m["name"] != task {
					continue
				}
				m[field] = n
				// As the simulator's scale: a task minAvailable above the
				// new replicas comes down to them.
				if field == "replicas" {
					if ma, ok := m["minAvailable"].(int64); ok && ma > n {
						m["minAvailable"] = n
					}
				}
			}
		}
		_, err = dyn.Resource(clients.JobsResource).Namespace(p.ns).Update(bg, u, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("update %s: %v", fieldsText, err)
	}
}

func (p *player) createClaim(name string) {
	claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: p.ns},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}
	if _, err := kube.CoreV1().PersistentVolumeClaims(p.ns).Create(bg, claim, metav1.CreateOptions{}); err != nil {
		p.t.Fatalf("claim %s: %v", name, err)
	}
}

// deleteJob deletes the job as kubectl does (background), then plays
// Kubernetes' garbage collector, which this API server runs without:
// the pods and PodGroups the job owned are deleted. The pods held are
// given a finalizer first (scenario.HoldFinalizer), so they stay, being
// deleted.
func (p *player) deleteJob(held []string) {
	t := p.t
	for _, name := range held {
		p.setFinalizers(name, []string{scenario.HoldFinalizer})
	}
	job := p.current()
	if err := dyn.Resource(clients.JobsResource).Namespace(p.ns).Delete(bg, p.name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete job: %v", err)
	}
	zero := int64(0)
	for _, pod := range jobPods(t, p.ns, p.name) {
		if metav1.IsControlledBy(&pod, job) {
			if err := kube.CoreV1().Pods(p.ns).Delete(bg, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil && !apierrors.IsNotFound(err) {
				t.Fatal(err)
			}
		}
	}
	list, err := dyn.Resource(clients.PodGroupsResource).Namespace(p.ns).List(bg, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, pg := range list.Items {
		for _, o := range pg.GetOwnerReferences() {
			if o.UID == job.UID {
				_ = dyn.Resource(clients.PodGroupsResource).Namespace(p.ns).Delete(bg, pg.GetName(), metav1.DeleteOptions{})
			}
		}
	}
}

// setFinalizers sets a pod's finalizers (a short name is the job's
// pod).
func (p *player) setFinalizers(name string, finalizers []string) {
	if !strings.HasPrefix(name, p.name+"-") {
		name = p.name + "-" + name
	}
	patch := `{"metadata":{"finalizers":null}}`
	if len(finalizers) > 0 {
		patch = fmt.Sprintf(`{"metadata":{"finalizers":[%q]}}`, finalizers[0])
	}
	if _, err := kube.CoreV1().Pods(p.ns).Patch(bg, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		p.t.Fatalf("finalizers of %s: %v", name, err)
	}
}

// finish is the kubelet ending the pods being deleted.
func (p *player) finish() {
	zero := int64(0)
	for _, pod := range jobPods(p.t, p.ns, p.name) {
		if pod.DeletionTimestamp == nil {
			continue
		}
		err := kube.CoreV1().Pods(p.ns).Delete(bg, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero,
			Preconditions: &metav1.Preconditions{UID: &pod.UID}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			p.t.Fatalf("finish %s: %v", pod.Name, err)
		}
	}
}

// createPriorityClasses creates the PriorityClasses a case's context
// has (NAME=VALUE each; the API server refuses pods naming one that does
// not exist); they are cluster-wide, so one already there is fine.
func createPriorityClasses(t *testing.T, text string) {
	t.Helper()
	for _, kv := range strings.Fields(text) {
		name, v, _ := strings.Cut(kv, "=")
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			t.Fatalf("-- priorityclasses --: %q: %v", kv, err)
		}
		pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: int32(n)}
		if _, err := kube.SchedulingV1().PriorityClasses().Create(bg, pc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
}

// playPod makes a kubelet's (or a user's) write for one pod.
func (p *player) playPod(s scenario.Step, name string) {
	t := p.t
	if s.Verb == "evict" {
		// Gone at once, as the simulator plays it.
		zero := int64(0)
		err := kube.CoreV1().Pods(p.ns).Delete(bg, name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatalf("line %d: delete pod %s: %v", s.Line, name, err)
		}
		return
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pod, err := kube.CoreV1().Pods(p.ns).Get(bg, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if pod.DeletionTimestamp != nil {
			return nil // deleted meanwhile: the kubelet no longer writes it
		}
		if pod.Spec.NodeName == "" && s.Verb != "pending" {
			node := scenario.NodeFor(pod)
			err := kube.CoreV1().Pods(p.ns).Bind(bg, &corev1.Binding{
				ObjectMeta: metav1.ObjectMeta{Namespace: p.ns, Name: name, UID: pod.UID},
				Target:     corev1.ObjectReference{Kind: "Node", Name: node}}, metav1.CreateOptions{})
			if err != nil && !apierrors.IsConflict(err) {
				return err
			}
			if pod, err = kube.CoreV1().Pods(p.ns).Get(bg, name, metav1.GetOptions{}); err != nil {
				return err
			}
		}
		return writePodStatus(pod, s)
	})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("line %d: pod %s: %v", s.Line, name, err)
	}
}

// writePodStatus is the kubelet's status write for a pod command, as the
// simulator makes it.
func writePodStatus(pod *corev1.Pod, s scenario.Step) error {
	p := pod.DeepCopy()
	now := metav1.Now()
	if p.Status.StartTime == nil {
		p.Status.StartTime = &now
	}
	if len(p.Status.ContainerStatuses) == 0 {
		for _, c := range p.Spec.Containers {
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: c.Name, Image: c.Image, ImageID: "sim://" + c.Image})
		}
	}
	phase := map[string]corev1.PodPhase{"start": corev1.PodRunning, "run": corev1.PodRunning, "ready": corev1.PodRunning,
		"unready": corev1.PodRunning, "restart": corev1.PodRunning, "pending": corev1.PodPending, "fail": corev1.PodFailed,
		"preempt": corev1.PodFailed, "succeed": corev1.PodSucceeded, "unknown": corev1.PodUnknown}[s.Verb]
	if !(s.Verb == "restart" && p.Status.Phase == corev1.PodPending) {
		p.Status.Phase = phase
	}
	for i := range p.Status.ContainerStatuses {
		cs := &p.Status.ContainerStatuses[i]
		switch s.Verb {
		case "start", "ready":
			started := true
			cs.Ready, cs.Started = true, &started
			cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}
		case "run", "unready":
			cs.Ready = false
			cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}
		case "pending", "unknown":
			cs.Ready = false
		case "restart":
			cs.RestartCount += s.N
		case "fail", "preempt", "succeed":
			code := int32(0)
			switch {
			case s.Verb == "preempt":
				code = 143
			case s.Verb == "fail" && i == 0:
				code = s.N
			case s.Verb == "fail":
				code = 1
			}
			cs.Ready = false
			cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, StartedAt: now, FinishedAt: now}}
		}
	}
	if s.Verb == "preempt" {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.DisruptionTarget,
			Status: corev1.ConditionTrue, Reason: "PreemptionByScheduler"})
	}
	_, err := kube.CoreV1().Pods(p.Namespace).UpdateStatus(bg, p, metav1.UpdateOptions{})
	return err
}
