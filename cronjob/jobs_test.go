package cronjob

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

func TestIsControlledBy(t *testing.T) {
	cj := cronJob(every5)
	notController := controllerRef(vcjob.APIVersion, vcjob.CronJobKind, "nightly", "cj-uid")
	notController.Controller = nil
	for _, tc := range []struct {
		name string
		job  *vcjob.Job
		want bool
	}{
		{"a controller reference to the cronjob", named("a", vcjob.Running), true},
		{"the apiVersion is not looked at", named("a", vcjob.Running, ownedBy(controllerRef("batch/v1", vcjob.CronJobKind, "nightly", "cj-uid"))), true},
		{"another UID: a cronjob of the same name, deleted and made again", named("a", vcjob.Running, ownedBy(controllerRef(vcjob.APIVersion, vcjob.CronJobKind, "nightly", "old-uid"))), false},
		{"another name", named("a", vcjob.Running, ownedBy(controllerRef(vcjob.APIVersion, vcjob.CronJobKind, "weekly", "cj-uid"))), false},
		{"another kind", named("a", vcjob.Running, ownedBy(controllerRef("apps/v1", "Deployment", "nightly", "cj-uid"))), false},
		{"an owner reference that is not the controller", named("a", vcjob.Running, ownedBy(notController)), false},
		{"the first controller reference counts", named("a", vcjob.Running, ownedBy(
			controllerRef("apps/v1", "Deployment", "x", "x-uid"), controllerRef(vcjob.APIVersion, vcjob.CronJobKind, "nightly", "cj-uid"))), false},
		{"no owner", named("a", vcjob.Running, ownedBy()), false},
		{"another namespace", named("a", vcjob.Running, inNamespace("other")), false},
		{"no job", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, IsControlledBy(tc.job, cj))
		})
	}
	assert.False(t, IsControlledBy(named("a", vcjob.Running), nil))
}

func TestIsFinished(t *testing.T) {
	for phase, want := range map[vcjob.JobPhase]bool{
		vcjob.Completed: true, vcjob.Failed: true, vcjob.Terminated: true,
		vcjob.Aborted: false, vcjob.Running: false, vcjob.Pending: false, "": false,
		vcjob.Terminating: false, vcjob.Aborting: false, vcjob.Restarting: false, vcjob.Completing: false,
	} {
		assert.Equal(t, want, isFinished(named("a", phase)), "%s", phase)
	}
}

// removeFromActive compacts the list in place, so a loop over the list as
// it was sees the entry after a removed one only where a copy of it was
// left behind.
func TestRemoveWhileRanging(t *testing.T) {
	for _, tc := range []struct {
		name   string
		active []string // names; the UID is the name
		remove string   // the UID each visit of it removes
		every  bool
		seen   []string
		left   []string
	}{
		{"first of three: the second is skipped, the third seen twice", []string{"a", "b", "c"}, "a", false, []string{"a", "c", "c"}, []string{"b", "c"}},
		{"first of two: the second is seen from the copy left behind", []string{"a", "b"}, "a", false, []string{"a", "b"}, []string{"b"}},
		{"the last", []string{"a", "b", "c"}, "c", false, []string{"a", "b", "c"}, []string{"a", "b"}},
		{"visiting a copy sees each once", []string{"a", "b", "c"}, "a", true, []string{"a", "b", "c"}, []string{"b", "c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status := vcjob.CronJobStatus{}
			for _, n := range tc.active {
				status.Active = append(status.Active, ref(n, n))
			}
			var seen []string
			rangeActive(&status, tc.every, func(r corev1.ObjectReference) bool {
				seen = append(seen, r.Name)
				if string(r.UID) == tc.remove {
					removeFromActive(&status, r.UID)
				}
				return false
			})
			assert.Equal(t, tc.seen, seen, "seen")
			assert.Equal(t, tc.left, names(status.Active), "left")
		})
	}

	status := vcjob.CronJobStatus{Active: []corev1.ObjectReference{ref("a", "")}}
	removeFromActive(&status, "")
	assert.Len(t, status.Active, 1, "an empty UID removes nothing")
}

func TestJobReference(t *testing.T) {
	j := named("a", vcjob.Running)
	j.ResourceVersion = "12"
	assert.Equal(t, corev1.ObjectReference{Kind: "Job", APIVersion: vcjob.APIVersion, Namespace: "ml", Name: "a", UID: "uid-a", ResourceVersion: "12"}, jobReference(j))
	j.TypeMeta = metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"}
	assert.Equal(t, "batch/v1", jobReference(j).APIVersion, "the job's own apiVersion and kind win")
}

func TestCronJobKey(t *testing.T) {
	assert.Equal(t, "ml/nightly", cronJobKey(cronJob(every5)))
	cj := cronJob(every5)
	cj.Namespace = ""
	assert.Equal(t, "nightly", cronJobKey(cj), "klog.KObj without a namespace")
}
