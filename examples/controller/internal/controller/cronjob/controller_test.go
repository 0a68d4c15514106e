package cronjob

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"
	kuberecord "k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/vcjob/vcjob"
	vccronjob "github.com/vcjob/vcjob/cronjob"

	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
	vcfake "github.com/vcjob/vcjob/examples/controller/pkg/clients/fake"
)

var (
	created = time.Date(2026, 1, 5, 0, 0, 30, 0, time.UTC)
	due     = time.Date(2026, 1, 5, 0, 5, 0, 0, time.UTC)
	now     = due.Add(10 * time.Second)
)

// fixture is a controller on the fake Volcano clients; its informers are
// never started: tests put what they would hold into their stores.
type fixture struct {
	t      *testing.T
	vc     *vcfake.Volcano
	c      *Controller
	events *kuberecord.FakeRecorder
	uids   int
}

func newFixture(t *testing.T, opts vccronjob.Options) *fixture {
	t.Helper()
	f := &fixture{t: t, vc: vcfake.NewVolcano(), events: kuberecord.NewFakeRecorder(100)}
	f.events.IncludeObject = true
	fast := func() workqueue.TypedRateLimiter[string] {
		return workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, 10*time.Millisecond)
	}
	c, err := New(t.Context(), Config{Volcano: f.vc, Workers: 1, Events: f.events, Options: opts, RateLimiter: fast,
		Clock: testingclock.NewFakeClock(now)})
	if err != nil {
		t.Fatal(err)
	}
	f.c = c
	// The API server gives every created job a UID.
	f.vc.PrependReactor("create", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
		f.uids++
		a.(k8stesting.CreateAction).GetObject().(*vcjob.Job).UID = types.UID(fmt.Sprintf("created-%d", f.uids))
		return false, nil, nil
	})
	return f
}

func newCronJob(schedule string, change ...func(*vcjob.CronJob)) *vcjob.CronJob {
	cj := &vcjob.CronJob{
		TypeMeta: metav1.TypeMeta{APIVersion: vcjob.APIVersion, Kind: vcjob.CronJobKind},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "nightly", UID: "cj-uid", ResourceVersion: "1",
			CreationTimestamp: metav1.NewTime(created)},
		Spec: vcjob.CronJobSpec{Schedule: schedule, JobTemplate: vcjob.JobTemplateSpec{
			Spec: vcjob.JobSpec{Tasks: []vcjob.TaskSpec{{Name: "worker", Replicas: 1}}}}},
	}
	for _, c := range change {
		c(cj)
	}
	return cj
}

// ownedJob is a job of cj's, finished in phase at finished.
func ownedJob(cj *vcjob.CronJob, name string, phase vcjob.JobPhase, finished time.Time) *vcjob.Job {
	j := &vcjob.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind},
		ObjectMeta: metav1.ObjectMeta{Namespace: cj.Namespace, Name: name, UID: types.UID(name + "-uid"), ResourceVersion: "5",
			CreationTimestamp: metav1.NewTime(finished.Add(-time.Minute)),
			OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(cj, vcjob.SchemeGroupVersion.WithKind(vcjob.CronJobKind))}},
	}
	j.Status.State.Phase = phase
	j.Status.State.LastTransitionTime = metav1.NewTime(finished)
	return j
}

// put stores objects in the API and in the informers' stores.
func (f *fixture) put(objs ...runtime.Object) {
	f.t.Helper()
	for _, o := range objs {
		if err := f.vc.Tracker().Add(o.DeepCopyObject()); err != nil {
			f.t.Fatal(err)
		}
		f.cache(o)
	}
}

// cache stores an object in the informer's store only.
func (f *fixture) cache(o runtime.Object) {
	f.t.Helper()
	var err error
	switch o := o.(type) {
	case *vcjob.CronJob:
		err = f.c.cfg.VolcanoInformers.CronJobs().Informer().GetIndexer().Add(o)
	case *vcjob.Job:
		err = f.c.cfg.VolcanoInformers.Jobs().Informer().GetIndexer().Add(o)
	}
	if err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) drainEvents() []string {
	var out []string
	for {
		select {
		case e := <-f.events.Events:
			out = append(out, strings.TrimSuffix(e, " involvedObject{kind=CronJob,apiVersion=batch.volcano.sh/v1alpha1}"))
		default:
			return out
		}
	}
}

func (f *fixture) storedCronJob() *vcjob.CronJob {
	f.t.Helper()
	obj, err := f.vc.Tracker().Get(clients.CronJobsResource, "ml", "nightly")
	if err != nil {
		f.t.Fatal(err)
	}
	return obj.(*vcjob.CronJob)
}

// verbs are the API calls made, as "verb resource[/subresource] namespace/name".
func (f *fixture) verbs() []string {
	var out []string
	for _, a := range f.vc.Actions() {
		r := a.GetResource().Resource
		if s := a.GetSubresource(); s != "" {
			r += "/" + s
		}
		name := ""
		switch a := a.(type) {
		case k8stesting.GetAction:
			name = a.GetName()
		case k8stesting.DeleteAction:
			name = a.GetName()
		case k8stesting.CreateAction:
			name = a.GetObject().(metav1.Object).GetName()
		}
		out = append(out, fmt.Sprintf("%s %s %s/%s", a.GetVerb(), r, a.GetNamespace(), name))
	}
	return out
}

func runName(cj string, t time.Time) string { return fmt.Sprintf("%s-%d", cj, t.Unix()/60) }

// A due run: the job is created owned by the cronjob, the status write
// carries the UID the API server gave it, SuccessfulCreate is recorded on
// the cronjob and the key comes back at the next schedule time.
func TestDueRunCreatesItsJob(t *testing.T) {
	f := newFixture(t, vccronjob.Options{})
	f.put(newCronJob("*/5 * * * *"))
	requeue, err := f.c.sync(context.Background(), "ml/nightly")
	if err != nil {
		t.Fatal(err)
	}
	name := runName("nightly", due)
	if want := []string{"create jobs ml/" + name, "update cronjobs/status ml/nightly"}; fmt.Sprint(f.verbs()) != fmt.Sprint(want) {
		t.Errorf("calls %q, want %q", f.verbs(), want)
	}
	obj, err := f.vc.Tracker().Get(clients.JobsResource, "ml", name)
	if err != nil {
		t.Fatal(err)
	}
	job := obj.(*vcjob.Job)
	if ref := metav1.GetControllerOf(job); ref == nil || ref.Kind != vcjob.CronJobKind || ref.Name != "nightly" || ref.UID != "cj-uid" {
		t.Errorf("job's controller %+v, want the cronjob", ref)
	}
	st := f.storedCronJob().Status
	if len(st.Active) != 1 || st.Active[0].UID != "created-1" || st.Active[0].Name != name || st.LastScheduleTime == nil || !st.LastScheduleTime.Time.Equal(due) {
		t.Errorf("status %+v, want the created job active (its UID) and lastScheduleTime %s", st, due)
	}
	if want := []string{"Normal SuccessfulCreate Created job " + name + " for CronJob ml/nightly"}; fmt.Sprint(f.drainEvents()) != fmt.Sprint(want) {
		t.Errorf("events differ, want %q", want)
	}
	if want := due.Add(5*time.Minute + vccronjob.NextScheduleDelta).Sub(now); requeue == nil || *requeue != want {
		t.Errorf("requeue %v, want %v", requeue, want)
	}
}

// The run's job exists but the lister has not shown it: the create
// conflicts and the Decision goes on from that answer, Volcano's way (a
// Get without a namespace, which fails, and so does the sync, writing
// nothing) or, with AdoptExistingJob, adopting it.
func TestCreateAlreadyExistsIsAnswered(t *testing.T) {
	cj := newCronJob("*/5 * * * *")
	existing := ownedJob(cj, runName("nightly", due), vcjob.Running, now)

	f := newFixture(t, vccronjob.Options{})
	f.put(cj)
	if err := f.vc.Tracker().Add(existing.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.sync(context.Background(), "ml/nightly"); err == nil {
		t.Error("sync succeeded; Volcano's fails on the conflict")
	}
	if want := []string{"create jobs ml/" + existing.Name, "get jobs /" + existing.Name}; fmt.Sprint(f.verbs()) != fmt.Sprint(want) {
		t.Errorf("calls %q, want %q", f.verbs(), want)
	}
	if ev := f.drainEvents(); len(ev) != 0 {
		t.Errorf("events %q, want none", ev)
	}

	f = newFixture(t, vccronjob.Options{AdoptExistingJob: true})
	f.put(cj)
	if err := f.vc.Tracker().Add(existing.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.sync(context.Background(), "ml/nightly"); err != nil {
		t.Fatal(err)
	}
	if st := f.storedCronJob().Status; len(st.Active) != 1 || st.Active[0].UID != existing.UID {
		t.Errorf("status %+v, want the existing job adopted", st)
	}
}

// A failed create: FailedCreate, no status write, the sync fails and the
// worker puts the key back with backoff.
func TestFailedCreateIsRetried(t *testing.T) {
	f := newFixture(t, vccronjob.Options{})
	f.put(newCronJob("*/5 * * * *"))
	f.vc.PrependReactor("create", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewInternalError(errors.New("etcd is down"))
	})
	f.c.queue.Add("ml/nightly")
	f.c.processNext(context.Background())
	if n := f.c.queue.NumRequeues("ml/nightly"); n != 1 {
		t.Errorf("requeues %d, want 1 (AddRateLimited)", n)
	}
	ev := f.drainEvents()
	if len(ev) != 1 || !strings.HasPrefix(ev[0], "Warning FailedCreate Failed to create job: ") {
		t.Errorf("events %q, want FailedCreate", ev)
	}
	for _, v := range f.verbs() {
		if strings.HasPrefix(v, "update") {
			t.Errorf("status written after a failed create: %q", f.verbs())
		}
	}
}

// The history limit deletes the oldest finished job (SuccessfulDelete); a
// delete the API server refuses is FailedDelete.
func TestHistoryLimitDeletesOldest(t *testing.T) {
	limit := func(cj *vcjob.CronJob) {
		cj.Spec.SuccessfulJobsHistoryLimit = new(int32(1))
		cj.Spec.Schedule = "0 12 * * *"
	}
	cj := newCronJob("", limit)
	old := ownedJob(cj, "nightly-1", vcjob.Completed, now.Add(-2*time.Hour))
	recent := ownedJob(cj, "nightly-2", vcjob.Completed, now.Add(-time.Hour))

	f := newFixture(t, vccronjob.Options{})
	f.put(cj, old, recent)
	if _, err := f.c.sync(context.Background(), "ml/nightly"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.vc.Tracker().Get(clients.JobsResource, "ml", "nightly-1"); !apierrors.IsNotFound(err) {
		t.Errorf("oldest job still there: %v", err)
	}
	if _, err := f.vc.Tracker().Get(clients.JobsResource, "ml", "nightly-2"); err != nil {
		t.Errorf("recent job gone: %v", err)
	}
	if ev := f.drainEvents(); len(ev) != 1 || ev[0] != `Normal SuccessfulDelete Deleted job "nightly-1"` {
		t.Errorf("events %q, want SuccessfulDelete", ev)
	}

	f = newFixture(t, vccronjob.Options{})
	f.put(cj, old, recent)
	f.vc.PrependReactor("delete", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(clients.JobsResource.GroupResource(), "nightly-1", errors.New("no"))
	})
	if _, err := f.c.sync(context.Background(), "ml/nightly"); err != nil {
		t.Fatal(err) // Volcano goes on
	}
	if ev := f.drainEvents(); len(ev) != 1 || !strings.HasPrefix(ev[0], `Warning FailedDelete Error deleting job "nightly-1": `) {
		t.Errorf("events %q, want FailedDelete", ev)
	}
}

// Forbid with a run active: no create, ForbidConcurrent, requeued for the
// next time.
func TestForbidHoldsTheRunBack(t *testing.T) {
	cj := newCronJob("*/5 * * * *", func(cj *vcjob.CronJob) { cj.Spec.ConcurrencyPolicy = vcjob.ForbidConcurrent })
	running := ownedJob(cj, "nightly-1", vcjob.Running, now)
	cj.Status.Active = []corev1.ObjectReference{{Kind: vcjob.JobKind, Namespace: "ml", Name: "nightly-1", UID: running.UID}}
	f := newFixture(t, vccronjob.Options{})
	f.put(cj, running)
	requeue, err := f.c.sync(context.Background(), "ml/nightly")
	if err != nil || requeue == nil {
		t.Fatalf("sync: %v, %v", requeue, err)
	}
	if len(f.verbs()) != 0 {
		t.Errorf("calls %q, want none", f.verbs())
	}
	if ev := f.drainEvents(); len(ev) != 1 || ev[0] != "Warning ForbidConcurrent Skipping job creation because another job is already running" {
		t.Errorf("events %q", ev)
	}
}

// The handlers queue as Volcano's: a job's change its controlling
// cronjob; a cronjob's schedule change after the new schedule's next time,
// another change at once; a cronjob the lister does not hold syncs to
// nothing.
func TestHandlers(t *testing.T) {
	f := newFixture(t, vccronjob.Options{})
	cj := newCronJob("0 12 * * *")
	f.cache(cj)
	job := ownedJob(cj, "nightly-1", vcjob.Running, now)
	f.c.addJob(job)
	if f.c.queue.Len() != 1 {
		t.Fatalf("job add queued %d keys, want the cronjob", f.c.queue.Len())
	}
	key, _ := f.c.queue.Get()
	f.c.queue.Done(key)
	if key != "ml/nightly" {
		t.Errorf("queued %q", key)
	}
	stranger := job.DeepCopy()
	stranger.OwnerReferences[0].UID = "other"
	f.c.addJob(stranger)
	f.c.deleteJob(stranger)
	if f.c.queue.Len() != 0 {
		t.Errorf("a job of another cronjob (UID) queued it")
	}

	later := cj.DeepCopy()
	later.ResourceVersion, later.Spec.Schedule = "2", "0 13 * * *"
	f.c.updateCronJob(cj, later)
	if f.c.queue.Len() != 0 {
		t.Errorf("schedule change queued at once; Volcano queues it for the new schedule's time")
	}
	bad := cj.DeepCopy()
	bad.ResourceVersion, bad.Spec.Schedule = "3", "61 * * * *"
	f.c.updateCronJob(cj, bad)
	if ev := f.drainEvents(); len(ev) != 1 || ev[0] != "Warning UnParseableCronJobSchedule unparseable schedule for cronjob: 61 * * * *" {
		t.Errorf("events %q", ev)
	}
	suspended := cj.DeepCopy()
	suspended.ResourceVersion, suspended.Spec.Suspend = "4", new(true)
	f.c.updateCronJob(cj, suspended)
	if f.c.queue.Len() != 1 {
		t.Errorf("spec change not queued at once")
	}

	if requeue, err := f.c.sync(context.Background(), "ml/gone"); requeue != nil || err != nil {
		t.Errorf("missing cronjob: %v, %v", requeue, err)
	}
}
