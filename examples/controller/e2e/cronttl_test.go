//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/vcjob/vcjob"

	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
)

// The CronJob tests take no fake clock (the controller reads its own):
// each cronjob is created suspended, with status.lastScheduleTime written
// into the past by the test, so that a run is due the moment it is
// resumed, and which run is due is decided by the schedule alone, never
// by a minute boundary passing during the test.

const cronManifest = `
apiVersion: batch.volcano.sh/v1alpha1
kind: CronJob
metadata:
  name: %s
spec:
  schedule: %q
  suspend: true
  concurrencyPolicy: %s
  successfulJobsHistoryLimit: 1
  jobTemplate:
    spec:
      minAvailable: 1
      tasks:
      - name: worker
        replicas: 1
        template:
          spec:
            containers:
            - name: c
              image: busybox
`

func createCronJob(t *testing.T, ns, name, schedule, policy string) *vcjob.CronJob {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(fmt.Sprintf(cronManifest, name, schedule, policy)), &obj); err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: obj}
	u.SetNamespace(ns)
	out, err := dyn.Resource(clients.CronJobsResource).Namespace(ns).Create(bg, u, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create cronjob: %v", err)
	}
	return cronJobFrom(t, out)
}

func cronJobFrom(t *testing.T, u *unstructured.Unstructured) *vcjob.CronJob {
	t.Helper()
	// Through JSON: the CronJob type keeps state of its own the
	// unstructured converter cannot set.
	data, err := u.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	cj := &vcjob.CronJob{}
	if err := json.Unmarshal(data, cj); err != nil {
		t.Fatal(err)
	}
	return cj
}

func getCronJob(t *testing.T, ns, name string) *vcjob.CronJob {
	t.Helper()
	u, err := dyn.Resource(clients.CronJobsResource).Namespace(ns).Get(bg, name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get cronjob: %v", err)
	}
	return cronJobFrom(t, u)
}

// setLastScheduleTime writes status.lastScheduleTime (the rest of the
// status as it is), as only a controller would.
func setLastScheduleTime(t *testing.T, ns, name string, at time.Time) {
	t.Helper()
	patch := fmt.Sprintf(`{"status":{"lastScheduleTime":%q}}`, at.UTC().Format(time.RFC3339))
	if _, err := dyn.Resource(clients.CronJobsResource).Namespace(ns).Patch(bg, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}, "status"); err != nil {
		t.Fatalf("write lastScheduleTime: %v", err)
	}
}

func patchCronJob(t *testing.T, ns, name, patch string) {
	t.Helper()
	if _, err := dyn.Resource(clients.CronJobsResource).Namespace(ns).Patch(bg, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("patch cronjob: %v", err)
	}
}

// eventsOn lists the Events the API server holds on an object (what
// kubectl describe shows), oldest first, as "Type Reason Message".
func eventsOn(t *testing.T, ns string, uid types.UID) []corev1.Event {
	t.Helper()
	list, err := kube.CoreV1().Events(ns).List(bg, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("involvedObject.uid", string(uid)).String()})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

func describeEvents(evs []corev1.Event) string {
	var parts []string
	for _, e := range evs {
		parts = append(parts, fmt.Sprintf("%s %s %q (from %s, count %d)", e.Type, e.Reason, e.Message, e.Source.Component, e.Count))
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

// waitEvent waits until the object holds an Event of reason whose message
// is message, recorded by vc-controller-manager.
func waitEvent(t *testing.T, ns string, uid types.UID, reason, message string) corev1.Event {
	t.Helper()
	var found corev1.Event
	eventually(t, 10*time.Second, "Event "+reason+" "+message, func() (bool, string) {
		evs := eventsOn(t, ns, uid)
		for _, e := range evs {
			if e.Reason == reason && e.Message == message && e.Source.Component == "vc-controller-manager" {
				found = e
				return true, ""
			}
		}
		return false, describeEvents(evs)
	})
	return found
}

// TestCronJob: a due run creates its job, owned by the cronjob and named
// by its scheduled minute, and records SuccessfulCreate; Forbid holds the
// next run back while the first is active, and starts it once the first
// has completed; the history limit then deletes the oldest completed job
// (SuccessfulDelete).
func TestCronJob(t *testing.T) {
	ns := newNamespace(t, "cron")
	startController(t, "ctrl")
	cj := createCronJob(t, ns, "nightly", "* * * * *", "Forbid")
	setLastScheduleTime(t, ns, "nightly", time.Now().Add(-10*time.Minute))

	var first *vcjob.Job
	t.Run("due run creates its job", func(t *testing.T) {
		before := time.Now().Truncate(time.Minute)
		patchCronJob(t, ns, "nightly", `{"spec":{"suspend":false}}`)
		var active corev1.ObjectReference
		eventually(t, 15*time.Second, "a job in status.active", func() (bool, string) {
			st := getCronJob(t, ns, "nightly").Status
			if len(st.Active) == 1 {
				active = st.Active[0]
				return true, ""
			}
			return false, fmt.Sprintf("%+v", st)
		})
		after := time.Now().Truncate(time.Minute)
		// The run due is the minute the controller synced in: the one
		// before or after the resume (the same one but at a boundary).
		if active.Name != fmt.Sprintf("nightly-%d", before.Unix()/60) && active.Name != fmt.Sprintf("nightly-%d", after.Unix()/60) {
			t.Errorf("job %q, want nightly-<scheduled unix minute> (%d or %d)", active.Name, before.Unix()/60, after.Unix()/60)
		}
		first = getJob(t, ns, active.Name)
		if ref := metav1.GetControllerOf(first); ref == nil || ref.Kind != vcjob.CronJobKind || ref.Name != "nightly" || ref.UID != cj.UID || ref.APIVersion != vcjob.APIVersion {
			t.Errorf("job's controller %+v, want the cronjob", ref)
		}
		if first.UID != active.UID {
			t.Errorf("status.active UID %s, job UID %s", active.UID, first.UID)
		}
		scheduled := first.Annotations[vcjob.CronJobScheduledTimeKey]
		if ts, err := time.Parse(time.RFC3339, scheduled); err != nil || ts.Unix()/60 != mustMinute(active.Name) {
			t.Errorf("scheduled-timestamp annotation %q (%v), want the run's minute", scheduled, err)
		}
		waitEvent(t, ns, cj.UID, "SuccessfulCreate", fmt.Sprintf("Created job %s for CronJob %s/nightly", active.Name, ns))
	})
	if first == nil {
		t.FailNow()
	}

	// Another run due: the schedule becomes yearly and lastScheduleTime
	// goes back more than a year, so the run of this 1 January is due,
	// whatever the minute. The spec change requeues the cronjob for the
	// schedule's next time (next year); the status write queues it at once.
	newYear := time.Date(time.Now().UTC().Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	second := fmt.Sprintf("nightly-%d", newYear.Unix()/60)
	t.Run("Forbid holds the next run back while the first is active", func(t *testing.T) {
		patchCronJob(t, ns, "nightly", `{"spec":{"schedule":"0 0 1 1 *","timeZone":"UTC"}}`)
		setLastScheduleTime(t, ns, "nightly", time.Now().AddDate(-1, 0, -2))
		waitEvent(t, ns, cj.UID, "ForbidConcurrent", "Skipping job creation because another job is already running")
		time.Sleep(time.Second)
		if _, err := dyn.Resource(clients.JobsResource).Namespace(ns).Get(bg, second, metav1.GetOptions{}); err == nil {
			t.Errorf("job %s created while %s is active", second, first.Name)
		}
		if st := getCronJob(t, ns, "nightly").Status; len(st.Active) != 1 || st.Active[0].UID != first.UID {
			t.Errorf("status.active %+v, want only the first run", st.Active)
		}
	})

	t.Run("the first completes: the held-back run starts", func(t *testing.T) {
		// The second job must be created in a later second than the first:
		// the history limit orders jobs by creation time.
		time.Sleep(time.Until(first.CreationTimestamp.Add(1100 * time.Millisecond)))
		sim.setMode(ns, mode{Admit: true, Bind: true, Start: true, Complete: true})
		waitPhase(t, ns, first.Name, vcjob.Completed, 30*time.Second)
		waitEvent(t, ns, cj.UID, "SawCompletedJob", fmt.Sprintf("Saw completed job: %s in active, remove", first.Name))
		waitEvent(t, ns, cj.UID, "SuccessfulCreate", fmt.Sprintf("Created job %s for CronJob %s/nightly", second, ns))
	})

	t.Run("history limit deletes the oldest completed job", func(t *testing.T) {
		waitPhase(t, ns, second, vcjob.Completed, 30*time.Second)
		waitEvent(t, ns, cj.UID, "SuccessfulDelete", fmt.Sprintf("Deleted job %q", first.Name))
		eventually(t, 10*time.Second, "the first job deleted", func() (bool, string) {
			_, err := dyn.Resource(clients.JobsResource).Namespace(ns).Get(bg, first.Name, metav1.GetOptions{})
			return err != nil, fmt.Sprint(err)
		})
		if _, err := dyn.Resource(clients.JobsResource).Namespace(ns).Get(bg, second, metav1.GetOptions{}); err != nil {
			t.Errorf("the newest completed job: %v", err)
		}
	})
}

// mustMinute is the unix minute a cronjob run's job name ends with.
func mustMinute(name string) int64 {
	var m int64
	_, _ = fmt.Sscanf(name[strings.LastIndexByte(name, '-')+1:], "%d", &m)
	return m
}

const ttlJob = `
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: %s
spec:
  minAvailable: 1
  ttlSecondsAfterFinished: 2
  tasks:
  - name: worker
    replicas: 1
    template:
      spec:
        containers:
        - name: c
          image: busybox
`

// TestTTLAfterFinished: a job with ttlSecondsAfterFinished 2 that
// completes is deleted by the collector about 2 s after it finished (in
// the foreground: the cluster has no garbage collector to finish the
// delete, so the job stays with its deletionTimestamp and the
// foregroundDeletion finalizer); an Aborted one is not finished and stays.
func TestTTLAfterFinished(t *testing.T) {
	startController(t, "ctrl")

	t.Run("completed: deleted 2s after it finished", func(t *testing.T) {
		ns := newNamespace(t, "ttl-done")
		sim.setMode(ns, mode{Admit: true, Bind: true, Start: true, Complete: true})
		createJob(t, ns, fmt.Sprintf(ttlJob, "brief"))
		job := waitPhase(t, ns, "brief", vcjob.Completed, 30*time.Second)
		finished := job.Status.State.LastTransitionTime.Time // second resolution
		var deleting time.Time
		job = waitJob(t, ns, "brief", 10*time.Second, "a deletionTimestamp", func(j *vcjob.Job) bool {
			if j.DeletionTimestamp != nil {
				deleting = time.Now()
				return true
			}
			return false
		})
		if d := deleting.Sub(finished); d < 2*time.Second || d > 4*time.Second {
			t.Errorf("delete seen %s after the job finished (%s), want about 2s", d.Round(time.Millisecond), finished)
		}
		fg := false
		for _, f := range job.Finalizers {
			fg = fg || f == metav1.FinalizerDeleteDependents
		}
		if !fg {
			t.Errorf("finalizers %v, want %s (a Foreground delete)", job.Finalizers, metav1.FinalizerDeleteDependents)
		}
		// Play the garbage collector: let the delete finish.
		if _, err := dyn.Resource(clients.JobsResource).Namespace(ns).Patch(bg, "brief", types.MergePatchType,
			[]byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("aborted: kept", func(t *testing.T) {
		ns := newNamespace(t, "ttl-aborted")
		sim.setMode(ns, everything)
		job := createJob(t, ns, fmt.Sprintf(ttlJob, "halted"))
		waitPhase(t, ns, "halted", vcjob.Running, 20*time.Second)
		createCommand(t, ns, job, vcjob.AbortJobAction)
		waitPhase(t, ns, "halted", vcjob.Aborted, 20*time.Second)
		time.Sleep(4 * time.Second) // twice the TTL
		if j := getJob(t, ns, "halted"); j.DeletionTimestamp != nil || j.Status.State.Phase != vcjob.Aborted {
			t.Errorf("aborted job deleted or moved on: %s, deletionTimestamp %v", describeStatus(j), j.DeletionTimestamp)
		}
	})
}

const restartOnFailureJob = `
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: phoenix
spec:
  minAvailable: 2
  policies:
  - event: PodFailed
    action: RestartJob
  tasks:
  - name: worker
    replicas: 2
    template:
      spec:
        containers:
        - name: c
          image: busybox
`

// TestEvents: what kubectl describe shows. After a job restarts on a pod
// failure the API server holds the job controller's ExecuteAction Event
// on the job, from vc-controller-manager.
func TestEvents(t *testing.T) {
	ns := newNamespace(t, "events")
	startController(t, "ctrl")
	sim.setMode(ns, everything)
	job := createJob(t, ns, restartOnFailureJob)
	waitPhase(t, ns, "phoenix", vcjob.Running, 20*time.Second)
	pods := waitPods(t, ns, "phoenix", 10*time.Second, "2 running pods", allPods(2, corev1.PodRunning))
	setPod(t, ns, pods[0].Name, corev1.PodFailed, 1)
	waitJob(t, ns, "phoenix", 20*time.Second, "retryCount 1", func(j *vcjob.Job) bool { return j.Status.RetryCount == 1 })
	e := waitEvent(t, ns, job.UID, "ExecuteAction", "Start to execute action RestartJob ")
	if e.Type != corev1.EventTypeNormal || e.InvolvedObject.Kind != vcjob.JobKind || e.InvolvedObject.APIVersion != vcjob.APIVersion || e.InvolvedObject.Name != "phoenix" {
		t.Errorf("event %+v, want a Normal one on the job", e)
	}
}
