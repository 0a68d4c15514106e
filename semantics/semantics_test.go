package semantics_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/semantics"
)

func TestParseSemantics(t *testing.T) {
	all := semantics.Corrected()
	for _, tc := range []struct {
		base  semantics.Profile
		value string
		want  semantics.Profile
		err   bool
	}{
		{value: "", want: semantics.Profile{}},
		{value: "volcano", want: semantics.Profile{}},
		{value: "corrected", want: all},
		{value: " corrected , -delays-by-pod-uid", want: func() semantics.Profile { s := all; s.DelaysByPodUID = false; return s }()},
		{value: "resume-keeps-retries", want: semantics.Profile{ResumeKeepsRetries: true}},
		{value: "exit-code-first-failed-container", want: semantics.Profile{ExitCodeFirstFailedContainer: true}},
		{base: all, value: "volcano,leave-finished-jobs", want: semantics.Profile{LeaveFinishedJobs: true}},
		{base: semantics.Profile{AbortWhileRestarting: true}, value: "out-of-sync-counted-once", want: semantics.Profile{AbortWhileRestarting: true, OutOfSyncCountedOnce: true}},
		{base: all, value: "strict", want: all, err: true},
		{value: "-", err: true},
	} {
		got, err := semantics.Parse(tc.base, tc.value)
		if tc.err {
			assert.Error(t, err, tc.value)
		} else {
			assert.NoError(t, err, tc.value)
		}
		assert.Equal(t, tc.want, got, tc.value)
	}
}

func TestSemanticsStringParsesBack(t *testing.T) {
	for _, sw := range semantics.Switches() {
		one, err := semantics.Parse(semantics.Profile{}, sw.Name)
		require.NoError(t, err)
		assert.True(t, sw.Enabled(one), sw.Name)
		assert.Equal(t, sw.Name, one.String())
		back, err := semantics.Parse(semantics.Profile{}, one.String())
		require.NoError(t, err)
		assert.Equal(t, one, back)
		assert.NotEmpty(t, sw.Volcano)
		assert.NotEmpty(t, sw.Corrected)
	}
	assert.Equal(t, "volcano", semantics.Profile{}.String())
	assert.Equal(t, "corrected", semantics.Corrected().String())
	assert.True(t, semantics.Profile{}.IsVolcano())
	assert.False(t, semantics.Corrected().IsVolcano())
}

func TestSemanticsForAJob(t *testing.T) {
	job := func(v ...string) *vcjob.Job {
		j := &vcjob.Job{ObjectMeta: metav1.ObjectMeta{Name: "j"}}
		if len(v) > 0 {
			j.Annotations = map[string]string{semantics.Annotation: v[0]}
		}
		return j
	}
	base := semantics.Profile{DelaysByPodUID: true}
	assert.Equal(t, base, base.For(job()), "no annotation: the embedder's choice")
	assert.Equal(t, base, base.For(nil))
	assert.Equal(t, semantics.Profile{}, base.For(job("volcano")), "the job asks for Volcano's")
	assert.Equal(t, semantics.Profile{DelaysByPodUID: true, LeaveFinishedJobs: true}, base.For(job("leave-finished-jobs")))
	assert.Equal(t, base, base.For(job("bogus")), "a bad annotation is ignored in decisions")

	assert.Empty(t, semantics.ValidateAnnotation(job()))
	assert.Empty(t, semantics.ValidateAnnotation(job("corrected")))
	errs := semantics.ValidateAnnotation(job("bogus"))
	require.Len(t, errs, 1)
	assert.Equal(t, "metadata.annotations[vcjob.dev/semantics]", errs[0].Field)
}
