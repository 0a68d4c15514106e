package ttl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"
)

func TestDeleteOptions(t *testing.T) {
	foreground := metav1.DeletePropagationForeground
	uid := func(s types.UID) *metav1.Preconditions { return &metav1.Preconditions{UID: &s} }
	cases := map[string]struct {
		job  *vcjob.Job
		want metav1.DeleteOptions
	}{
		"the copy's UID": {job: job(vcjob.Completed, t0, seconds(1)),
			want: metav1.DeleteOptions{PropagationPolicy: &foreground, Preconditions: uid("u1")}},
		"a recreated job's UID": {job: func() *vcjob.Job { j := job(vcjob.Completed, t0, seconds(1)); j.UID = "u2"; return j }(),
			want: metav1.DeleteOptions{PropagationPolicy: &foreground, Preconditions: uid("u2")}},
		"an empty UID is still a precondition": {job: func() *vcjob.Job { j := job(vcjob.Completed, t0, seconds(1)); j.UID = ""; return j }(),
			want: metav1.DeleteOptions{PropagationPolicy: &foreground, Preconditions: uid("")}},
		"nil job": {job: nil, want: metav1.DeleteOptions{PropagationPolicy: &foreground}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := DeleteOptions(tc.job)
			assert.Equal(t, tc.want, got)
			if tc.job != nil {
				tc.job.UID = "changed"
				assert.Equal(t, tc.want, got, "the options must not alias the job's UID")
			}
		})
	}
}
