package lint_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/lint"
)

func TestDefaultsApplied(t *testing.T) {
	given := &vcjob.Job{Spec: vcjob.JobSpec{
		Queue: "prod",
		Tasks: []vcjob.TaskSpec{{Name: "worker", Replicas: 2}},
	}}
	defaulted := given.DeepCopy()
	vcjob.SetDefaults(defaulted)
	got := lint.DefaultsApplied(given, defaulted)
	assert.Contains(t, got, `spec.schedulerName: "" -> "volcano"`)
	assert.Contains(t, got, `spec.maxRetry: 0 -> 3`)
	assert.Contains(t, got, `spec.tasks[0].minAvailable: unset -> 2`)
	for _, line := range got {
		assert.NotContains(t, line, "spec.queue", "a queue the job names is not a default")
	}
	assert.Empty(t, lint.DefaultsApplied(defaulted, defaulted), "a defaulted job gets nothing more")
}
