package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every ready example is a valid job whose scenario runs to its end and
// shows what its title promises.
func TestExamplesRunClean(t *testing.T) {
	want := map[string]string{
		"pytorch-oom":     "RestartPod",
		"mpi":             "RestartJob",
		"pending-timeout": "fired    AbortJob",
	}
	exs := Examples()
	require.Len(t, exs, 3)
	for _, ex := range exs {
		t.Run(ex.Name, func(t *testing.T) {
			r := Check(ex.Manifest, ex.Scenario)
			require.Empty(t, r.Decode)
			require.Empty(t, r.Invalid)
			require.Empty(t, r.Scenario, r.Transcript)
			require.NotNil(t, r.Timeline)
			assert.NotEmpty(t, r.Timeline.Lanes)
			assert.NotEmpty(t, r.Explain)
			assert.Contains(t, r.Transcript, want[ex.Name])
		})
	}
}

func TestCheckReportsFieldPaths(t *testing.T) {
	ex := Examples()[0]
	r := Check(strings.Replace(ex.Manifest, "replicas: 3", "replicas: -1", 1), ex.Scenario)
	var fields []string
	for _, e := range r.Invalid {
		fields = append(fields, e.Field)
	}
	assert.Contains(t, fields, "spec.tasks[1].replicas")
	assert.Nil(t, r.Timeline, "an invalid job is not run")

	// A field the CRD lacks is dropped, as an API server drops it, and
	// named; the job runs without it.
	r = Check(strings.Replace(ex.Manifest, "replicas: 3", "replicaz: 3", 1), ex.Scenario)
	assert.Empty(t, r.Decode)
	assert.Equal(t, []string{"spec.tasks[1].replicaz"}, r.Dropped)

	r = Check(strings.Replace(ex.Manifest, "replicas: 3", "replicas: three", 1), ex.Scenario)
	assert.Contains(t, r.Decode, `spec.tasks[1].replicas: must be a number, not a string`)

	r = Check(ex.Manifest, ex.Scenario)
	assert.Contains(t, r.Defaults, "spec.tasks[0].maxRetry: 0 -> 3", "the webhook's defaults are listed")

	r = Check(ex.Manifest, "start all\n")
	assert.Contains(t, r.Scenario, `put "podgroup Inqueue" before this line`)
	require.NotNil(t, r.Timeline, "what ran before the bad line is drawn")
	assert.NotEmpty(t, r.Timeline.Failure)
}

func TestHandler(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/")
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	body := `{"manifest": ` + quote(Examples()[2].Manifest) + `, "scenario": "podgroup Inqueue\nadvance 5m\n"}`
	resp, err = http.Post(srv.URL+"/api/check", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	var r Result
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&r))
	assert.Equal(t, "data/etl", r.Job)
	assert.Contains(t, r.Transcript, "fired    AbortJob")

	resp, err = http.Post(srv.URL+"/api/check", "application/json", strings.NewReader("{"))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
