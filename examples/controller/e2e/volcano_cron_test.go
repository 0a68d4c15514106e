//go:build e2e

package e2e

import (
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"

	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
)

// TestVolcanoE2ECronJob plays the CronJob cases of Volcano's e2e suite
// that need the controller on a real API server, without waiting for
// minutes to pass: as TestCronJob, each cronjob is created suspended with
// lastScheduleTime written into the past, so a run is due when it is
// resumed, and a second run is made due by a yearly schedule and a
// lastScheduleTime more than a year back. The windows of minutes the
// cases wait in are played on the fake clock
// (cmd/cron/testdata/e2e); C4 (Forbid) and C8 (the successful
// history limit) are TestCronJob's own steps.
func TestVolcanoE2ECronJob(t *testing.T) {
	startController(t, "ctrl")
	t.Run("C1 basic: two runs, the cronjob's, with the scheduled-timestamp annotation", func(t *testing.T) {
		ns := newNamespace(t, "vc-cron")
		cj := createCronJob(t, ns, "test-cronjob", "* * * * *", "Allow")
		if cj.Name != "test-cronjob" {
			t.Errorf("created %q", cj.Name)
		}
		first := firstRun(t, ns, cj.Name)
		second := secondRun(t, ns, cj.Name, first)
		if st := getCronJob(t, ns, cj.Name).Status; st.LastScheduleTime == nil {
			t.Error("no lastScheduleTime")
		}
		jobs := ownedJobs(t, ns, cj)
		if len(jobs) < 2 {
			t.Fatalf("jobs %v, want at least 2 (%s, %s)", jobNames(jobs), first, second)
		}
		if _, err := time.Parse(time.RFC3339, jobs[0].Annotations[vcjob.CronJobScheduledTimeKey]); err != nil {
			t.Errorf("scheduled-timestamp annotation of %s: %v", jobs[0].Name, err)
		}
		if err := dyn.Resource(clients.CronJobsResource).Namespace(ns).Delete(bg, cj.Name, metav1.DeleteOptions{}); err != nil {
			t.Errorf("delete the cronjob: %v", err)
		}
	})
	t.Run("C2 suspend: a due run is not started", func(t *testing.T) {
		ns := newNamespace(t, "vc-cron")
		cj := createCronJob(t, ns, "suspended-cronjob", "*/1 * * * *", "Allow")
		setLastScheduleTime(t, ns, cj.Name, time.Now().Add(-10*time.Minute))
		consistently(t, 3*time.Second, "no job", func() (bool, string) {
			jobs := ownedJobs(t, ns, cj)
			return len(jobs) == 0, fmt.Sprint(jobNames(jobs))
		})
	})
	t.Run("C3 Allow: two runs active, neither finished", func(t *testing.T) {
		ns := newNamespace(t, "vc-cron")
		sim.setMode(ns, everything)
		cj := createCronJob(t, ns, "allow-cronjob", "* * * * *", "Allow")
		first := firstRun(t, ns, cj.Name)
		secondRun(t, ns, cj.Name, first)
		eventually(t, 20*time.Second, "2 active, 2 running jobs", func() (bool, string) {
			st := getCronJob(t, ns, cj.Name).Status
			unfinished := 0
			for _, j := range ownedJobs(t, ns, cj) {
				if !terminal(j.Status.State.Phase) {
					unfinished++
				}
			}
			return len(st.Active) >= 2 && unfinished >= 2, fmt.Sprintf("active %d, unfinished %d", len(st.Active), unfinished)
		})
	})
	t.Run("C5 Replace: the second run deletes the first", func(t *testing.T) {
		ns := newNamespace(t, "vc-cron")
		sim.setMode(ns, everything)
		cj := createCronJob(t, ns, "replace-cronjob", "* * * * *", "Replace")
		first := firstRun(t, ns, cj.Name)
		second := secondRun(t, ns, cj.Name, first)
		eventually(t, 20*time.Second, "the first job gone, one active", func() (bool, string) {
			_, err := dyn.Resource(clients.JobsResource).Namespace(ns).Get(bg, first, metav1.GetOptions{})
			st := getCronJob(t, ns, cj.Name).Status
			return apierrors.IsNotFound(err) && len(st.Active) == 1 && st.Active[0].Name == second, fmt.Sprintf("%v; active %v", err, st.Active)
		})
		waitEvent(t, ns, cj.UID, "ReplaceConcurrent", "Replacing active job for CronJob")
	})
	t.Run("C7 a finished job leaves status.active", func(t *testing.T) {
		ns := newNamespace(t, "vc-cron")
		sim.setMode(ns, mode{Admit: true, Bind: true, Start: true, Complete: true})
		cj := createCronJob(t, ns, "process-finished-job-cronjob", "* * * * *", "Allow")
		first := firstRun(t, ns, cj.Name)
		job := waitPhase(t, ns, first, vcjob.Completed, 30*time.Second)
		eventually(t, 20*time.Second, "the finished job out of status.active", func() (bool, string) {
			st := getCronJob(t, ns, cj.Name).Status
			for _, a := range st.Active {
				if a.UID == job.UID {
					return false, fmt.Sprint(st.Active)
				}
			}
			return true, ""
		})
	})
	t.Run("C9 failedJobsHistoryLimit 1: the older failed job is deleted", func(t *testing.T) {
		ns := newNamespace(t, "vc-cron")
		sim.setMode(ns, mode{Admit: true, Bind: true, Start: true, Complete: true, FailFirstTry: true})
		cj := createCronJob(t, ns, "fail-limit-cronjob", "* * * * *", "Allow")
		first := firstRun(t, ns, cj.Name)
		waitPhase(t, ns, first, vcjob.Failed, 30*time.Second)
		second := secondRun(t, ns, cj.Name, first)
		waitPhase(t, ns, second, vcjob.Failed, 30*time.Second)
		eventually(t, 20*time.Second, "one Failed job, the newer", func() (bool, string) {
			var failed []string
			for _, j := range ownedJobs(t, ns, cj) {
				if j.Status.State.Phase == vcjob.Failed {
					failed = append(failed, j.Name)
				}
			}
			return len(failed) == 1 && failed[0] == second, fmt.Sprint(failed)
		})
	})
}

// firstRun makes the current minute's run due and resumes the cronjob;
// it returns the run's job once status.active has it, or once the
// cronjob controls a job: a job whose pods fail at once can finish, and
// leave status.active, before a poll sees it there.
func firstRun(t *testing.T, ns, name string) string {
	t.Helper()
	setLastScheduleTime(t, ns, name, time.Now().Add(-10*time.Minute))
	patchCronJob(t, ns, name, `{"spec":{"suspend":false}}`)
	var job string
	eventually(t, 15*time.Second, "the first run's job in status.active or controlled by the cronjob", func() (bool, string) {
		cj := getCronJob(t, ns, name)
		if len(cj.Status.Active) > 0 {
			job = cj.Status.Active[0].Name
			return true, ""
		}
		if owned := ownedJobs(t, ns, cj); len(owned) > 0 {
			job = owned[0].Name
			return true, ""
		}
		return false, fmt.Sprintf("%+v", cj.Status)
	})
	return job
}

// secondRun makes this year's 1 January run due (a yearly schedule,
// lastScheduleTime more than a year back) and returns its job's name
// once it exists. It waits for a later second than the first job's
// creation: the history limits order jobs by creation time.
func secondRun(t *testing.T, ns, name, first string) string {
	t.Helper()
	created := getJob(t, ns, first).CreationTimestamp
	time.Sleep(time.Until(created.Add(1100 * time.Millisecond)))
	newYear := time.Date(time.Now().UTC().Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	second := fmt.Sprintf("%s-%d", name, newYear.Unix()/60)
	patchCronJob(t, ns, name, `{"spec":{"schedule":"0 0 1 1 *","timeZone":"UTC"}}`)
	setLastScheduleTime(t, ns, name, time.Now().AddDate(-1, 0, -2))
	eventually(t, 15*time.Second, "the second run's job "+second, func() (bool, string) {
		_, err := dyn.Resource(clients.JobsResource).Namespace(ns).Get(bg, second, metav1.GetOptions{})
		return err == nil, fmt.Sprint(err)
	})
	return second
}

// ownedJobs are the jobs the cronjob controls (kind, name and UID), by
// creation time, as Volcano's getJobList keeps them.
func ownedJobs(t *testing.T, ns string, cj *vcjob.CronJob) []*vcjob.Job {
	t.Helper()
	list, err := dyn.Resource(clients.JobsResource).Namespace(ns).List(bg, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []*vcjob.Job
	for i := range list.Items {
		j, err := jobFromUnstructured(&list.Items[i])
		if err != nil {
			t.Fatal(err)
		}
		if ref := metav1.GetControllerOf(j); ref != nil && ref.Kind == vcjob.CronJobKind && ref.Name == cj.Name && ref.UID == cj.UID {
			out = append(out, j)
		}
	}
	for i := 1; i < len(out); i++ {
		for k := i; k > 0 && out[k].CreationTimestamp.Before(&out[k-1].CreationTimestamp); k-- {
			out[k], out[k-1] = out[k-1], out[k]
		}
	}
	return out
}

func jobNames(jobs []*vcjob.Job) []string {
	var out []string
	for _, j := range jobs {
		out = append(out, j.Name)
	}
	return out
}
