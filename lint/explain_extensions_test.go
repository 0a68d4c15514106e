package lint_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/lint"
	"github.com/vcjob/vcjob/policy"
)

// Explain shows the policy extensions: a row per bound of an exit-code
// range, the disrupted pod's rows, the deadline, and notes on restarts.
func TestExplainShowsExtensions(t *testing.T) {
	j := job([]vcjob.LifecyclePolicy{{ExitCode: code(137), Action: vcjob.RestartPodAction}}, nil)
	plain := lint.Explain(j).Text()
	j.Annotations = map[string]string{policy.ExtensionsAnnotation: `
exitCodes: [{task: worker, operator: In, values: ["128-255"], action: RestartTask}]
disruptions: {}
deadline: {after: 2h}
restartBackoff: {base: 10s, max: 5m}
escalation: {restartPod: 1, restartTask: 2}
`}
	text := lint.Explain(j).Text()
	words := strings.Join(strings.Fields(text), " ")
	for _, want := range []string{
		`worker PodFailed 128 RestartTask - task worker extension exitCodes[0]`,
		`worker PodFailed 255 RestartTask`,
		`worker PodFailed 137 RestartTask`, // the extension comes before the job's own exact code
		`worker PodEvicted (disrupted) RestartJob - job extension disruptions (no retry counted) no retry counted`,
		`(job) DeadlineExceeded TerminateJob 2h0m0s job extension deadline`,
		`pods come back after 10s, doubling per restart up to 5m0s`,
		`escalates: RestartPod 1 times per pod, then RestartTask 2 times per task, then RestartJob`,
	} {
		assert.Contains(t, words, want)
	}
	assert.NotContains(t, strings.Join(strings.Fields(plain), " "), "extension", "without the annotation, Volcano's table")
}
