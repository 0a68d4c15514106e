//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/yaml"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"

	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
)

var bg = context.Background()

// newNamespace creates a namespace for one test; its cronjobs, jobs,
// PodGroups, commands and pods are removed when the test ends (there is no namespace
// controller to do it).
func newNamespace(t *testing.T, prefix string) string {
	t.Helper()
	ns := fmt.Sprintf("%s-%04x", prefix, rand.IntN(1<<16))
	if _, err := kube.CoreV1().Namespaces().Create(bg, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
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

// createJob creates a job from a YAML manifest in ns, as a user would: no
// defaults filled in (the controller defaults in memory).
func createJob(t *testing.T, ns, manifest string) *vcjob.Job {
	t.Helper()
	job, err := createJobE(ns, manifest)
	if err != nil {
		t.Fatal(err)
	}
	return job
}

func createJobE(ns, manifest string) (*vcjob.Job, error) {
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(manifest), &obj); err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: obj}
	u.SetNamespace(ns)
	out, err := dyn.Resource(clients.JobsResource).Namespace(ns).Create(bg, u, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("create job: %w", err)
	}
	return jobFromUnstructured(out)
}

func getJob(t *testing.T, ns, name string) *vcjob.Job {
	t.Helper()
	u, err := dyn.Resource(clients.JobsResource).Namespace(ns).Get(bg, name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get job: %v", err)
	}
	job, err := jobFromUnstructured(u)
	if err != nil {
		t.Fatal(err)
	}
	return job
}

// eventually polls cond until it holds or timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := ""
	for {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s; last seen: %s", timeout, what, last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func waitJob(t *testing.T, ns, name string, timeout time.Duration, what string, cond func(*vcjob.Job) bool) *vcjob.Job {
	t.Helper()
	var job *vcjob.Job
	eventually(t, timeout, what, func() (bool, string) {
		job = getJob(t, ns, name)
		return cond(job), describeStatus(job)
	})
	return job
}

func waitPhase(t *testing.T, ns, name string, phase vcjob.JobPhase, timeout time.Duration) *vcjob.Job {
	t.Helper()
	return waitJob(t, ns, name, timeout, "job phase "+string(phase), func(j *vcjob.Job) bool { return j.Status.State.Phase == phase })
}

func describeStatus(j *vcjob.Job) string {
	s := j.Status
	return fmt.Sprintf("phase=%s version=%d retry=%d pending=%d running=%d succeeded=%d failed=%d terminating=%d",
		s.State.Phase, s.Version, s.RetryCount, s.Pending, s.Running, s.Succeeded, s.Failed, s.Terminating)
}

// jobPods lists the job's pods, sorted by name.
func jobPods(t *testing.T, ns, job string) []corev1.Pod {
	t.Helper()
	list, err := kube.CoreV1().Pods(ns).List(bg, metav1.ListOptions{LabelSelector: vcjob.JobNameKey + "=" + job})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
	return list.Items
}

func waitPods(t *testing.T, ns, job string, timeout time.Duration, what string, cond func([]corev1.Pod) bool) []corev1.Pod {
	t.Helper()
	var pods []corev1.Pod
	eventually(t, timeout, what, func() (bool, string) {
		pods = jobPods(t, ns, job)
		return cond(pods), describePods(pods)
	})
	return pods
}

func describePods(pods []corev1.Pod) string {
	var parts []string
	for _, p := range pods {
		s := p.Name + ":" + string(p.Status.Phase)
		if p.DeletionTimestamp != nil {
			s += "(terminating)"
		}
		parts = append(parts, s)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// allPods reports whether there are n pods, none terminating, all in phase.
func allPods(n int, phase corev1.PodPhase) func([]corev1.Pod) bool {
	return func(pods []corev1.Pod) bool {
		if len(pods) != n {
			return false
		}
		for _, p := range pods {
			if p.Status.Phase != phase || p.DeletionTimestamp != nil {
				return false
			}
		}
		return true
	}
}

func podGroup(t *testing.T, ns, name string) (*podgroup.PodGroup, bool) {
	t.Helper()
	u, err := dyn.Resource(clients.PodGroupsResource).Namespace(ns).Get(bg, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	pg, err := podGroupFromUnstructured(u)
	if err != nil {
		t.Fatal(err)
	}
	return pg, true
}

// setPod gives one pod a phase (and exit code), retrying on conflicts with
// the simulated kubelet.
func setPod(t *testing.T, ns, name string, phase corev1.PodPhase, exitCode int32) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pod, err := kube.CoreV1().Pods(ns).Get(bg, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		return setPodStatus(bg, kube, pod, phase, exitCode)
	})
	if err != nil {
		t.Fatalf("set pod %s %s: %v", name, phase, err)
	}
}

// createCommand asks for an action on a job, as vcctl does.
func createCommand(t *testing.T, ns string, job *vcjob.Job, action vcjob.Action) string {
	t.Helper()
	name := fmt.Sprintf("%s-%s-%04x", job.Name, strings.ToLower(string(action)), rand.IntN(1<<16))
	cmd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": vcjob.BusAPIVersion, "kind": vcjob.CommandKind,
		"metadata": map[string]any{"name": name, "namespace": ns},
		"action":   string(action),
		"target": map[string]any{"apiVersion": vcjob.APIVersion, "kind": vcjob.JobKind, "name": job.Name,
			"uid": string(job.UID), "controller": true},
	}}
	if _, err := dyn.Resource(clients.CommandsResource).Namespace(ns).Create(bg, cmd, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create command: %v", err)
	}
	return name
}

// phaseLog records every phase a job passes through, from its watch.
type phaseLog struct {
	mu     sync.Mutex
	phases []vcjob.JobPhase
}

func recordPhases(t *testing.T, ns, name string) *phaseLog {
	t.Helper()
	l := &phaseLog{}
	ctx, cancel := context.WithCancel(bg)
	t.Cleanup(cancel)
	sel := fields.OneTermEqualSelector("metadata.name", name).String()
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = sel
			return dyn.Resource(clients.JobsResource).Namespace(ns).List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = sel
			return dyn.Resource(clients.JobsResource).Namespace(ns).Watch(ctx, o)
		},
	}
	inf := cache.NewSharedIndexInformer(lw, &unstructured.Unstructured{}, 0, cache.Indexers{})
	note := func(obj any) {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return
		}
		p, _, _ := unstructured.NestedString(u.Object, "status", "state", "phase")
		l.mu.Lock()
		defer l.mu.Unlock()
		if p != "" && (len(l.phases) == 0 || l.phases[len(l.phases)-1] != vcjob.JobPhase(p)) {
			l.phases = append(l.phases, vcjob.JobPhase(p))
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: note, UpdateFunc: func(_, n any) { note(n) }}); err != nil {
		t.Fatal(err)
	}
	go inf.RunWithContext(ctx)
	cache.WaitForCacheSync(ctx.Done(), inf.HasSynced)
	return l
}

func (l *phaseLog) get() []vcjob.JobPhase {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.phases)
}

// expectSequence checks that the phases since mark include want, in
// order (other phases may come in between). The watch may trail the
// reads the test made, so it waits a little for the sequence to show.
func (l *phaseLog) expectSequence(t *testing.T, mark int, want ...vcjob.JobPhase) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := l.get()[mark:]
		i := 0
		for _, p := range got {
			if i < len(want) && p == want[i] {
				i++
			}
		}
		if i == len(want) {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("phases %v do not pass through %v in order", got, want)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (l *phaseLog) mark() int { return len(l.get()) }

// jobFromUnstructured reads a Job the test's dynamic client returned, with
// Volcano's defaults filled in as the controller sees it.
func jobFromUnstructured(u *unstructured.Unstructured) (*vcjob.Job, error) {
	job := &vcjob.Job{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.UnstructuredContent(), job); err != nil {
		return nil, fmt.Errorf("job %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	return clients.PrepareJob(job), nil
}

// podGroupFromUnstructured reads a PodGroup the test's dynamic client
// returned.
func podGroupFromUnstructured(u *unstructured.Unstructured) (*podgroup.PodGroup, error) {
	pg := &podgroup.PodGroup{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.UnstructuredContent(), pg); err != nil {
		return nil, fmt.Errorf("podgroup %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	return pg, nil
}
