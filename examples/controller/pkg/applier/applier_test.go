package applier

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/plugins"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/worker"

	"github.com/vcjob/vcjob/examples/controller/internal/testclock"
	"github.com/vcjob/vcjob/examples/controller/internal/testjob"
	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
	vcfake "github.com/vcjob/vcjob/examples/controller/pkg/clients/fake"
	"github.com/vcjob/vcjob/examples/controller/pkg/expectations"
	"github.com/vcjob/vcjob/examples/controller/pkg/metrics"
)

func newJob(t *testing.T, phase vcjob.JobPhase) *vcjob.Job {
	t.Helper()
	return testjob.New(t, phase)
}

// fixture is an Applier on client-go's fake clientset and a fake typed
// Volcano client, with the stores its informers would fill: the tests put
// pods and PodGroups in them by hand. (The job controller's tests run the
// Applier inside the steps.)
type fixture struct {
	t     *testing.T
	kube  *fake.Clientset
	vc    *vcfake.Volcano
	pgs   cache.Indexer
	pods  cache.Indexer
	a     *Applier
	clock *testingclock.FakeClock
}

func newFixture(t *testing.T, job *vcjob.Job) *fixture {
	t.Helper()
	f := &fixture{t: t, kube: fake.NewClientset(), vc: vcfake.NewVolcano(), clock: testingclock.NewFakeClock(time.Unix(1000, 0)),
		pgs:  cache.NewIndexer(cache.MetaNamespaceKeyFunc, nil),
		pods: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})}
	f.a = &Applier{Kube: f.kube, Volcano: f.vc, Metrics: metrics.New(), Expectations: expectations.New(f.clock),
		PodGroups: func(namespace, name string) (*podgroup.PodGroup, bool, error) {
			obj, ok, err := f.pgs.GetByKey(namespace + "/" + name)
			if err != nil || !ok {
				return nil, false, err
			}
			return obj.(*podgroup.PodGroup), true, nil
		}}
	if job != nil {
		if err := f.vc.Tracker().Add(job.DeepCopy()); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// writes are the job status writes sent.
func (f *fixture) writes() []k8stesting.Action {
	var out []k8stesting.Action
	for _, a := range f.vc.Actions() {
		if a.GetVerb() == "update" && a.GetSubresource() == "status" {
			out = append(out, a)
		}
	}
	return out
}

// putPodGroup stores the job's PodGroup as the informer would hold it.
func (f *fixture) putPodGroup(job *vcjob.Job, phase podgroup.Phase) {
	f.t.Helper()
	pg := podgroup.Desired(job, nil)
	pg.UID = "pg-uid"
	pg.Status.Phase = phase
	if err := f.pgs.Add(&pg); err != nil {
		f.t.Fatal(err)
	}
	if err := f.vc.Tracker().Add(pg.DeepCopy()); err != nil {
		f.t.Fatal(err)
	}
}

// putPod creates a pod of the job in the API and in the pod store.
func (f *fixture) putPod(job *vcjob.Job, index int, phase corev1.PodPhase) *corev1.Pod {
	f.t.Helper()
	pod := statemachine.RenderPod(job, &job.Spec.Tasks[0], index)
	pod.UID = types.UID("pod-uid-" + strconv.Itoa(index))
	pod.ResourceVersion = "1"
	pod.Status.Phase = phase
	if _, err := f.kube.CoreV1().Pods(pod.Namespace).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		f.t.Fatal(err)
	}
	if err := f.pods.Add(pod.DeepCopy()); err != nil {
		f.t.Fatal(err)
	}
	return pod
}

func TestDeletePodMarksOutOfSyncThenDeletesWithUID(t *testing.T) {
	job := newJob(t, vcjob.Running)
	f := newFixture(t, job)
	pod := f.putPod(job, 0, corev1.PodRunning)
	f.kube.ClearActions()

	if err := f.a.DeletePod(context.Background(), pod); err != nil {
		t.Fatal(err)
	}
	acts := f.kube.Actions()
	if len(acts) != 2 || acts[0].GetVerb() != "patch" || acts[1].GetVerb() != "delete" {
		t.Fatalf("actions %v, want patch then delete", acts)
	}
	if p := string(acts[0].(k8stesting.PatchAction).GetPatch()); !strings.Contains(p, vcjob.PodOutOfSyncKey) {
		t.Errorf("patch %s does not mark the pod out of sync", p)
	}
	if pre := acts[1].(k8stesting.DeleteAction).GetDeleteOptions().Preconditions; pre == nil || pre.UID == nil || *pre.UID != pod.UID {
		t.Errorf("delete preconditions %+v, want the pod's UID", pre)
	}
	// Gone already: NotFound is success.
	if err := f.a.DeletePod(context.Background(), pod); err != nil {
		t.Errorf("deleting a missing pod: %v, want nil", err)
	}
}

// A failed delete fails the call and is retried on its own with
// worker.DeleteBackoff, on the fake clock, until it succeeds.
func TestDeletePodFailureIsRetriedWithBackoff(t *testing.T) {
	job := newJob(t, vcjob.Running)
	f := newFixture(t, job)
	pod := f.putPod(job, 0, corev1.PodRunning)
	var deletes atomic.Int32
	f.kube.PrependReactor("delete", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if deletes.Add(1) <= 2 {
			return true, nil, apierrors.NewServiceUnavailable("try later")
		}
		return false, nil, nil
	})
	ctx := t.Context()
	retrier := NewDeleteRetrier(corelisters.NewPodLister(f.pods), f.a, f.clock)
	defer retrier.queue.ShutDown()
	f.a.DeleteFailed = retrier.Failed

	if err := f.a.DeletePod(ctx, pod); err == nil {
		t.Fatal("DeletePod succeeded, want the delete's error")
	}
	// The first retry (5ms later) fails, the second (10ms after it) works.
	for retry := range 2 {
		start := f.clock.Now()
		testclock.StepUntil(t, f.clock, time.Millisecond, func() bool { return retrier.queue.Len() > 0 })
		// Not before the backoff, and soon after it on the fake clock.
		if want, _ := worker.DeleteBackoff(retry); f.clock.Since(start) < want || f.clock.Since(start) > want+100*time.Millisecond {
			t.Errorf("retry %d came after %v on the fake clock, want the backoff's %v", retry, f.clock.Since(start), want)
		}
		retrier.processNext(ctx)
	}
	if _, err := f.kube.CoreV1().Pods("ns").Get(ctx, pod.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("pod still there after the retries: %v", err)
	}
	if got := deletes.Load(); got != 3 {
		t.Errorf("%d delete calls, want 3 (the failed one, a failed retry, the retry that worked)", got)
	}
	if testutil.ToFloat64(f.a.Metrics.DeleteRetries.WithLabelValues("deleted")) != 1 ||
		testutil.ToFloat64(f.a.Metrics.DeleteRetriesPending) != 0 {
		t.Errorf("retries deleted = %v, pending = %v; want 1 and 0",
			testutil.ToFloat64(f.a.Metrics.DeleteRetries.WithLabelValues("deleted")), testutil.ToFloat64(f.a.Metrics.DeleteRetriesPending))
	}
}

func TestApplyPodGroupCreatesThenUpdatesKeepingUnknownFields(t *testing.T) {
	job := newJob(t, vcjob.Pending)
	f := newFixture(t, job)
	a := f.a
	desired := podgroup.Desired(job, nil)
	if err := a.ApplyPodGroup(context.Background(), &desired); err != nil {
		t.Fatal(err)
	}
	live, err := f.vc.PodGroups("ns").Get(context.Background(), podgroup.Name(job), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("podgroup not created: %v", err)
	}
	if live.Spec.MinMember != 2 {
		t.Errorf("minMember %d, want 2", live.Spec.MinMember)
	}
	// The scheduler's status, as the informer delivers it.
	live.Status.Phase = podgroup.PhaseRunning
	live.ResourceVersion = "5"
	if err := f.vc.Tracker().Update(clients.PodGroupsResource, live, "ns"); err != nil {
		t.Fatal(err)
	}
	if err := f.pgs.Add(live.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	var patches [][]byte
	f.vc.PrependReactor("patch", "podgroups", func(act k8stesting.Action) (bool, runtime.Object, error) {
		patches = append(patches, act.(k8stesting.PatchAction).GetPatch())
		return false, nil, nil
	})

	// A new job object: the cache holds the old one, never changed in place.
	job = job.DeepCopy()
	job.Spec.MinAvailable = 1
	desired = podgroup.Desired(job, nil)
	f.vc.ClearActions()
	if err := a.ApplyPodGroup(context.Background(), &desired); err != nil {
		t.Fatal(err)
	}
	for _, act := range f.vc.Actions() {
		if act.GetVerb() != "patch" {
			t.Errorf("unexpected %s of %s", act.GetVerb(), act.GetResource().Resource)
		}
	}
	live, _ = f.vc.PodGroups("ns").Get(context.Background(), podgroup.Name(job), metav1.GetOptions{})
	if live.Spec.MinMember != 1 {
		t.Errorf("minMember %d, want 1 after the update", live.Spec.MinMember)
	}
	if live.Status.Phase != podgroup.PhaseRunning {
		t.Error("the update dropped the status")
	}
	// The write is one JSON patch, no read before it; on the API server's
	// object, with a spec field and status conditions this controller does
	// not know, it changes only minMember, and only at the resourceVersion
	// the cache saw.
	if len(patches) != 1 {
		t.Fatalf("%d patches, want 1", len(patches))
	}
	server := `{"metadata":{"name":"x","resourceVersion":"5"},"spec":{"minMember":2,"queue":"default","futureField":"gold","minTaskMember":{"worker":2}},"status":{"phase":"Running","conditions":[{"type":"Scheduled"}]}}`
	p, err := jsonpatch.DecodePatch(patches[0])
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Apply([]byte(server))
	if err != nil {
		t.Fatalf("patch %s: %v", patches[0], err)
	}
	for _, want := range []string{`"minMember":1`, `"futureField":"gold"`, `"conditions":[{"type":"Scheduled"}]`, `"queue":"default"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("patched object %s lacks %s", out, want)
		}
	}
	if _, err := p.Apply([]byte(strings.Replace(server, `"resourceVersion":"5"`, `"resourceVersion":"6"`, 1))); err == nil {
		t.Error("the patch applied to a newer object; want its resourceVersion test to fail")
	}

	state, err := a.PodGroupState(context.Background(), job)
	if err != nil || !state.Exists || state.Phase != podgroup.PhaseRunning {
		t.Errorf("PodGroupState = %+v, %v", state, err)
	}
	if deleted, err := a.DeletePodGroup(context.Background(), job); err != nil || !deleted {
		t.Errorf("DeletePodGroup = %v, %v", deleted, err)
	}
	if deleted, err := a.DeletePodGroup(context.Background(), job); err != nil || deleted {
		t.Errorf("DeletePodGroup of a missing one = %v, %v; want false, nil", deleted, err)
	}
}

// A kill of a job whose PodGroup is gone from the informer's cache sends
// no delete: every event of a finished job is a kill.
func TestDeletePodGroupLooksInTheCacheFirst(t *testing.T) {
	job := newJob(t, vcjob.Completed)
	f := newFixture(t, job)
	f.putPodGroup(job, podgroup.PhaseRunning)
	a := f.a
	if deleted, err := a.DeletePodGroup(context.Background(), job); err != nil || !deleted {
		t.Fatalf("DeletePodGroup = %v, %v; want true", deleted, err)
	}
	if err := f.pgs.Delete(&podgroup.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: podgroup.Name(job)}}); err != nil {
		t.Fatal(err)
	}
	f.vc.ClearActions()
	for range 3 {
		if deleted, err := a.DeletePodGroup(context.Background(), job); err != nil || deleted {
			t.Fatalf("DeletePodGroup of an uncached one = %v, %v; want false, nil", deleted, err)
		}
	}
	if acts := f.vc.Actions(); len(acts) != 0 {
		t.Errorf("%d requests for a PodGroup the cache does not hold, want none: %v", len(acts), acts)
	}
}

// The legacy PodGroup (named after the job) is still found and updated.
func TestApplyPodGroupFindsLegacyName(t *testing.T) {
	job := newJob(t, vcjob.Pending)
	f := newFixture(t, job)
	legacy := podgroup.Desired(job, nil)
	legacy.Name = podgroup.LegacyName(job)
	legacy.Spec.MinMember = 7
	if err := f.vc.Tracker().Add(legacy.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	if err := f.pgs.Add(&legacy); err != nil {
		t.Fatal(err)
	}

	desired := podgroup.Desired(job, nil)
	if err := f.a.ApplyPodGroup(context.Background(), &desired); err != nil {
		t.Fatal(err)
	}
	list, _ := f.vc.PodGroups("ns").List(context.Background(), metav1.ListOptions{})
	if len(list.Items) != 1 || list.Items[0].GetName() != "demo" {
		t.Fatalf("podgroups %v, want only the legacy one", list.Items)
	}
	if mm := list.Items[0].Spec.MinMember; mm != 2 {
		t.Errorf("legacy minMember %d, want 2", mm)
	}
}

func TestApplyObjects(t *testing.T) {
	job := newJob(t, vcjob.Pending)
	job.Spec.Plugins = map[string][]string{"svc": nil, "ssh": nil}
	f := newFixture(t, nil)
	reg := plugins.NewRegistry(plugins.WithSSHKeys(RSAKeys{}))
	ps, err := reg.Build(job)
	if err != nil {
		t.Fatal(err)
	}
	var objs plugins.Objects
	for _, p := range ps {
		o, err := p.OnJobAdd(job.DeepCopy())
		if err != nil {
			t.Fatal(err)
		}
		objs.Apply = append(objs.Apply, o.Apply...)
	}
	a := f.a
	if err := a.ApplyObjects(context.Background(), objs); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := f.kube.CoreV1().Services("ns").Get(ctx, "demo", metav1.GetOptions{}); err != nil {
		t.Errorf("service: %v", err)
	}
	if _, err := f.kube.CoreV1().ConfigMaps("ns").Get(ctx, "demo-svc", metav1.GetOptions{}); err != nil {
		t.Errorf("configmap: %v", err)
	}
	if _, err := f.kube.NetworkingV1().NetworkPolicies("ns").Get(ctx, "demo", metav1.GetOptions{}); err != nil {
		t.Errorf("networkpolicy: %v", err)
	}
	secret, err := f.kube.CoreV1().Secrets("ns").Get(ctx, "demo-ssh", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("secret: %v", err)
	}
	if !strings.HasPrefix(string(secret.Data["id_rsa.pub"]), "ssh-rsa ") {
		t.Errorf("public key %q is not in authorized_keys form", secret.Data["id_rsa.pub"])
	}

	// Applying again (new keys from the key source) keeps the Secret.
	var again plugins.Objects
	for _, p := range ps {
		o, _ := p.OnJobAdd(job.DeepCopy())
		again.Apply = append(again.Apply, o.Apply...)
	}
	if err := a.ApplyObjects(context.Background(), again); err != nil {
		t.Fatalf("second apply: %v", err)
	}
	kept, _ := f.kube.CoreV1().Secrets("ns").Get(ctx, "demo-ssh", metav1.GetOptions{})
	if string(kept.Data["id_rsa"]) != string(secret.Data["id_rsa"]) {
		t.Error("the ssh Secret was rewritten with new keys")
	}

	del := plugins.Objects{Delete: []plugins.ObjectRef{
		{APIVersion: "v1", Kind: "Service", Namespace: "ns", Name: "demo"},
		{APIVersion: "v1", Kind: "Service", Namespace: "ns", Name: "never-existed"},
	}}
	if err := a.ApplyObjects(context.Background(), del); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := f.kube.CoreV1().Services("ns").Get(ctx, "demo", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("service still there: %v", err)
	}
}

func TestEnsureClaim(t *testing.T) {
	job := newJob(t, vcjob.Pending)
	f := newFixture(t, nil)
	a := f.a
	if err := a.EnsureClaim(context.Background(), job, statemachine.Claim{Name: "data"}); err == nil {
		t.Error("a missing claim without a spec must be an error")
	}
	spec := &corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}}
	if err := a.EnsureClaim(context.Background(), job, statemachine.Claim{Name: "data", Spec: spec}); err != nil {
		t.Fatal(err)
	}
	pvc, err := f.kube.CoreV1().PersistentVolumeClaims("ns").Get(context.Background(), "data", metav1.GetOptions{})
	if err != nil || metav1.GetControllerOf(pvc) == nil || metav1.GetControllerOf(pvc).Name != "demo" {
		t.Fatalf("claim %v, %v: want one owned by the job", pvc, err)
	}
	if err := a.EnsureClaim(context.Background(), job, statemachine.Claim{Name: "data"}); err != nil {
		t.Errorf("existing claim: %v", err)
	}
}

// A status equal to the job's own is not sent (the API server would change
// nothing); a different one is.
func TestUnchangedStatusIsNotWritten(t *testing.T) {
	job := newJob(t, vcjob.Completed)
	f := newFixture(t, job)
	f.vc.ClearActions()
	same := job.Status.DeepCopy()
	if err := f.a.UpdateStatus(context.Background(), job, same); err != nil {
		t.Fatal(err)
	}
	if n := len(f.vc.Actions()); n != 0 {
		t.Errorf("%d requests for an unchanged status, want none", n)
	}
	if got := testutil.ToFloat64(f.a.Metrics.StatusWritesSkipped); got != 1 {
		t.Errorf("skipped writes = %v, want 1", got)
	}
	changed := job.Status.DeepCopy()
	changed.Succeeded = 2
	if err := f.a.UpdateStatus(context.Background(), job, changed); err != nil {
		t.Fatal(err)
	}
	if n := len(f.writes()); n != 1 {
		t.Errorf("%d status writes for a changed status, want 1", n)
	}
}

// StatusEqual is equality.Semantic.DeepEqual with the cheap fields first:
// it must agree with it on every pair.
func TestStatusEqualAgreesWithSemanticDeepEqual(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	later := metav1.NewTime(now.Add(time.Second))
	base := func() *vcjob.JobStatus {
		return &vcjob.JobStatus{State: vcjob.JobState{Phase: vcjob.Running, LastTransitionTime: now}, MinAvailable: 2,
			Running: 2, Version: 3, RetryCount: 1,
			Conditions:      []vcjob.JobCondition{{Status: vcjob.Running, LastTransitionTime: &now}},
			TaskStatusCount: map[string]vcjob.TaskState{"worker": {Phase: map[corev1.PodPhase]int32{corev1.PodRunning: 2}}}}
	}
	for name, change := range map[string]func(s *vcjob.JobStatus){
		"same":         func(*vcjob.JobStatus) {},
		"phase":        func(s *vcjob.JobStatus) { s.State.Phase = vcjob.Completed },
		"version":      func(s *vcjob.JobStatus) { s.Version++ },
		"retry count":  func(s *vcjob.JobStatus) { s.RetryCount++ },
		"a count":      func(s *vcjob.JobStatus) { s.Succeeded++ },
		"minAvailable": func(s *vcjob.JobStatus) { s.MinAvailable++ },
		"a condition more": func(s *vcjob.JobStatus) {
			s.Conditions = append(s.Conditions, vcjob.JobCondition{Status: vcjob.Completed})
		},
		"a condition's time": func(s *vcjob.JobStatus) {
			s.Conditions = []vcjob.JobCondition{{Status: vcjob.Running, LastTransitionTime: &later}}
		},
		"the state's time": func(s *vcjob.JobStatus) { s.State.LastTransitionTime = later },
		"the same time elsewhere": func(s *vcjob.JobStatus) {
			t := metav1.NewTime(now.In(time.FixedZone("x", 3600)))
			s.State.LastTransitionTime = t
		},
		"a task count":             func(s *vcjob.JobStatus) { s.TaskStatusCount["worker"].Phase[corev1.PodRunning] = 1 },
		"no task counts":           func(s *vcjob.JobStatus) { s.TaskStatusCount = nil },
		"a reason":                 func(s *vcjob.JobStatus) { s.State.Reason = "why" },
		"empty, not nil, controls": func(s *vcjob.JobStatus) { s.ControlledResources = map[string]string{} },
	} {
		a, b := base(), base()
		change(b)
		if got, want := StatusEqual(a, b), equality.Semantic.DeepEqual(a, b); got != want {
			t.Errorf("%s: statusEqual = %v, Semantic.DeepEqual = %v", name, got, want)
		}
	}
	empty := &vcjob.JobStatus{}
	if !StatusEqual(empty, &vcjob.JobStatus{Conditions: []vcjob.JobCondition{}}) {
		t.Error("no conditions and an empty list: statusEqual says different")
	}
}
