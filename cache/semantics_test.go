package cache_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/podgroup"
)

// A PodGroup-driven request carries job version 0 in Volcano, stale once the
// job has been killed; PodGroupRequestsCurrentVersion gives it the job's.
func TestPodGroupRequestsCurrentVersion(t *testing.T) {
	killed := func(annotation string) *vcjob.Job {
		j := testJob("j", "1")
		j.Status.Version = 3
		if annotation != "" {
			j.Annotations = map[string]string{vcjob.SemanticsAnnotation: annotation}
		}
		return j
	}
	for _, tc := range []struct {
		name       string
		base       vcjob.Semantics
		annotation string
		want       int32
	}{
		{"volcano: version 0", vcjob.Semantics{}, "", 0},
		{"the embedder's correction", vcjob.Semantics{PodGroupRequestsCurrentVersion: true}, "", 3},
		{"the job's correction", vcjob.Semantics{}, "podgroup-requests-current-version", 3},
		{"the job asks for Volcano's", vcjob.Corrected(), "volcano", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cache.New()
			c.Semantics = tc.base
			require.NoError(t, c.Add(killed(tc.annotation)))
			req, ok := c.OnPodGroupUpdate("ns", "j", podgroup.PhaseRunning, podgroup.PhaseUnknown)
			require.True(t, ok)
			assert.Equal(t, vcjob.Request{Namespace: "ns", JobName: "j", Event: vcjob.JobUnknownEvent, JobVersion: tc.want}, req)
		})
	}
}
