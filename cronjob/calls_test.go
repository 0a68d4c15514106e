package cronjob

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

// A sync at 00:15 under Replace with one finished job beyond the history
// limit and one active job: every kind of call.
func replaceSync() (*vcjob.CronJob, []*vcjob.Job) {
	r1 := named("r1", vcjob.Running)
	cj := cronJob(every5, withLastSchedule(t0010), withPolicy(vcjob.ReplaceConcurrent), withLimits(new(int32(0)), nil), withActive(refOf(r1)))
	return cj, jobs(named("old", vcjob.Completed, finishedAt(t0010)), r1)
}

func TestCalls(t *testing.T) {
	cj, js := replaceSync()
	d := Decide(cj, js, t0015)
	n := JobName("nightly", t0015)
	assert.Equal(t, []string{
		"delete jobs ml/old", "get jobs ml/r1", "delete jobs ml/r1", "create jobs ml/" + n, "update cronjobs/status ml/nightly",
	}, callStrings(d.Calls))
	deletes := d.JobsToDelete()
	require.Len(t, deletes, 2)
	assert.Equal(t, "old", deletes[0].Name)
	assert.Equal(t, &metav1.DeleteOptions{}, deletes[0].DeleteOptions, "Volcano sends empty delete options")
	require.NotNil(t, d.JobToCreate())
	assert.Equal(t, n, d.JobToCreate().Name)
	assert.Empty(t, d.JobToCreate().Namespace, "the job Volcano passes has no namespace: the create call's says where")
	assert.Equal(t, "ml", d.Calls[3].Namespace)
	assert.True(t, d.WriteStatus)

	none := Decide(cronJob(every5, withLastSchedule(t0015)), nil, t0015)
	assert.Nil(t, none.JobToCreate())
	assert.Empty(t, none.JobsToDelete())
}

// Answering every call with what was predicted changes nothing.
func TestAnswerAsPredicted(t *testing.T) {
	cj, js := replaceSync()
	d := Decide(cj, js, t0015)
	for i, c := range d.Calls {
		var a Answer
		if c.Verb == VerbGet {
			a.Job = js[1]
		}
		again := d.Answer(i, a)
		assert.Equal(t, callStrings(d.Calls), callStrings(again.Calls), "call %d", i)
		assert.Equal(t, d.Events, again.Events, "call %d", i)
		assert.Equal(t, d.Status, again.Status, "call %d", i)
		assert.Equal(t, d.RequeueAfter, again.RequeueAfter, "call %d", i)
		assert.NoError(t, again.Err, "call %d", i)
	}
}

// Volcano ignores a failed status write: no error, no requeue.
// ReportFailedStatusWrite fails the sync instead.
func TestFailedStatusWrite(t *testing.T) {
	cj := cronJob(every5, withLastSchedule(t0010))
	boom := errors.New("the object has been modified")
	for _, tc := range []struct {
		name string
		opts Options
		err  bool
	}{
		{"Volcano", Options{}, false},
		{"ReportFailedStatusWrite", Options{ReportFailedStatusWrite: true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := DecideWith(cj, nil, t0015, tc.opts)
			require.Equal(t, VerbUpdate, d.Calls[len(d.Calls)-1].Verb)
			require.NotNil(t, d.RequeueAfter)
			d = d.Answer(len(d.Calls)-1, Answer{Err: boom})
			assert.Nil(t, d.RequeueAfter, "no requeue")
			if tc.err {
				assert.ErrorIs(t, d.Err, boom)
				assert.Equal(t, SkipFailed, d.Skipped)
			} else {
				assert.NoError(t, d.Err)
				assert.Empty(t, d.Skipped, "the run started; only its record was lost")
			}
		})
	}
}

// Answers are kept for the calls before the one answered, and dropped
// for those after it.
func TestAnswerKeepsEarlierAnswers(t *testing.T) {
	cj, js := replaceSync()
	boom := errors.New("boom")
	d := Decide(cj, js, t0015).Answer(0, Answer{Err: boom}) // the history delete fails
	assert.Equal(t, "Warning FailedDelete", reasons(d.Events)[0])
	created := d.JobToCreate().DeepCopy()
	created.Namespace, created.UID = "ml", "uid-api"
	d = d.Answer(3, Answer{Job: created})
	assert.Equal(t, "Warning FailedDelete", reasons(d.Events)[0], "the earlier answer is kept")
	assert.Equal(t, "uid-api", string(d.Status.Active[0].UID))

	d = d.Answer(0, Answer{}) // the delete succeeds after all: the create's answer is dropped
	assert.Equal(t, "Normal SuccessfulDelete", reasons(d.Events)[0])
	assert.Empty(t, d.Status.Active[0].UID)
}

func TestUnusableAnswers(t *testing.T) {
	cj, js := replaceSync()
	d := Decide(cj, js, t0015)
	assert.ErrorIs(t, d.Answer(-1, Answer{}).Err, errAnswer)
	assert.ErrorIs(t, d.Answer(len(d.Calls), Answer{}).Err, errAnswer)
	// A get answered with success needs the object.
	assert.ErrorIs(t, d.Answer(1, Answer{}).Err, errAnswer)
}

func TestCallString(t *testing.T) {
	c := Call{Verb: VerbUpdate, Resource: ResourceCronJobsStatus, Namespace: "ml", Name: "nightly"}
	assert.Equal(t, "update cronjobs/status ml/nightly", c.String())
}
