package vcjob_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

func TestParseSemantics(t *testing.T) {
	all := vcjob.Corrected()
	for _, tc := range []struct {
		base  vcjob.Semantics
		value string
		want  vcjob.Semantics
		err   bool
	}{
		{value: "", want: vcjob.Semantics{}},
		{value: "volcano", want: vcjob.Semantics{}},
		{value: "corrected", want: all},
		{value: " corrected , -delays-by-pod-uid", want: func() vcjob.Semantics { s := all; s.DelaysByPodUID = false; return s }()},
		{value: "resume-keeps-retries", want: vcjob.Semantics{ResumeKeepsRetries: true}},
		{base: all, value: "volcano,leave-finished-jobs", want: vcjob.Semantics{LeaveFinishedJobs: true}},
		{base: vcjob.Semantics{AbortWhileRestarting: true}, value: "out-of-sync-counted-once", want: vcjob.Semantics{AbortWhileRestarting: true, OutOfSyncCountedOnce: true}},
		{base: all, value: "strict", want: all, err: true},
		{value: "-", err: true},
	} {
		got, err := vcjob.ParseSemantics(tc.base, tc.value)
		if tc.err {
			assert.Error(t, err, tc.value)
		} else {
			assert.NoError(t, err, tc.value)
		}
		assert.Equal(t, tc.want, got, tc.value)
	}
}

func TestSemanticsStringParsesBack(t *testing.T) {
	for _, sw := range vcjob.SemanticsSwitches() {
		one, err := vcjob.ParseSemantics(vcjob.Semantics{}, sw.Name)
		require.NoError(t, err)
		assert.True(t, sw.Enabled(one), sw.Name)
		assert.Equal(t, sw.Name, one.String())
		back, err := vcjob.ParseSemantics(vcjob.Semantics{}, one.String())
		require.NoError(t, err)
		assert.Equal(t, one, back)
		assert.NotEmpty(t, sw.Volcano)
		assert.NotEmpty(t, sw.Corrected)
	}
	assert.Equal(t, "volcano", vcjob.Semantics{}.String())
	assert.Equal(t, "corrected", vcjob.Corrected().String())
	assert.True(t, vcjob.Semantics{}.IsVolcano())
	assert.False(t, vcjob.Corrected().IsVolcano())
}

func TestSemanticsForAJob(t *testing.T) {
	job := func(v ...string) *vcjob.Job {
		j := &vcjob.Job{ObjectMeta: metav1.ObjectMeta{Name: "j"}}
		if len(v) > 0 {
			j.Annotations = map[string]string{vcjob.SemanticsAnnotation: v[0]}
		}
		return j
	}
	base := vcjob.Semantics{DelaysByPodUID: true}
	assert.Equal(t, base, base.For(job()), "no annotation: the embedder's choice")
	assert.Equal(t, base, base.For(nil))
	assert.Equal(t, vcjob.Semantics{}, base.For(job("volcano")), "the job asks for Volcano's")
	assert.Equal(t, vcjob.Semantics{DelaysByPodUID: true, LeaveFinishedJobs: true}, base.For(job("leave-finished-jobs")))
	assert.Equal(t, base, base.For(job("bogus")), "a bad annotation is ignored in decisions")

	assert.Empty(t, vcjob.ValidateSemanticsAnnotation(job()))
	assert.Empty(t, vcjob.ValidateSemanticsAnnotation(job("corrected")))
	errs := vcjob.ValidateSemanticsAnnotation(job("bogus"))
	require.Len(t, errs, 1)
	assert.Equal(t, "metadata.annotations[vcjob.dev/semantics]", errs[0].Field)
}
