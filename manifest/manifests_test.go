package manifest

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/internal/testfiles"
)

// Real Volcano manifests and recorded controller inputs, beside the repo.
const (
	manifestsDir = "../../shared/manifests/volcano-examples"
	vectorsFile  = "../../shared/conformance/vectors-public.jsonl"
)

// unknownFieldManifests are real manifests that carry fields the Job
// types do not have (an API server with the Volcano CRD prunes them
// silently), with the fields strict decoding must name. They decode with
// Options.AllowUnknownFields.
func unknownFieldManifests() map[string][]string {
	return map[string][]string{
		// "priorityClass" is a typo of the pod's priorityClassName.
		"kubecon-2019-china__task-priority__elastic-job.yaml": {
			"spec.tasks[0].template.spec.priorityClass",
			"spec.tasks[1].template.spec.priorityClass",
		},
	}
}

// jobsPerManifest is the number of jobs of the multi-document files; every
// other file holds one.
func jobsPerManifest() map[string]int {
	return map[string]int{"hierarchical-jobs__jobs.yaml": 4}
}

// decodeManifest decodes a manifest strictly, or, for the known ones with
// unknown fields, checks that strict decoding names them and decodes it
// leniently.
func decodeManifest(t *testing.T, name string, data []byte) []*vcjob.Job {
	t.Helper()
	jobs, err := DecodeJobs(data)
	if fields, ok := unknownFieldManifests()[name]; ok {
		require.Error(t, err, "strict decoding must refuse the unknown fields")
		var de *Error
		require.ErrorAs(t, err, &de)
		assert.Equal(t, fields, de.UnknownFields())
		jobs, err = DecodeJobsWith(data, Options{AllowUnknownFields: true})
	}
	require.NoError(t, err)
	want, ok := jobsPerManifest()[name]
	if !ok {
		want = 1
	}
	require.Len(t, jobs, want)
	return jobs
}

// TestManifestsDecode: every real manifest decodes (strictly, or with its
// known unknown fields named) and takes defaults; package validation
// checks the verdict each must get.
func TestManifestsDecode(t *testing.T) {
	files := testfiles.Manifests(t, manifestsDir)
	for name := range unknownFieldManifests() {
		require.Contains(t, files, name, "exception for a manifest that is not there")
	}
	for name, data := range files {
		t.Run(name, func(t *testing.T) {
			for _, job := range decodeManifest(t, name, data) {
				vcjob.SetDefaults(job)
				assert.NotEmpty(t, job.Spec.Queue, "job %s", job.Name)
			}
		})
	}
}

func TestManifestsRoundTrip(t *testing.T) {
	for name, data := range testfiles.Manifests(t, manifestsDir) {
		t.Run(name, func(t *testing.T) {
			for _, job := range decodeManifest(t, name, data) {
				assertRoundTrip(t, job)
			}
		})
	}
}

// The recorded controller inputs hold jobs as the API server stores them,
// with Volcano's defaults applied: they must decode strictly, and
// SetDefaults must find nothing to add.
func TestConformanceJobsAreDefaulted(t *testing.T) {
	f, err := os.Open(testfiles.Shared(t, vectorsFile, "the recorded controller inputs (public conformance vectors)"))
	require.NoError(t, err)
	defer f.Close()

	scanner := bufio.NewScanner(f)
	scanner.Buffer(nil, 64<<20)
	cases := 0
	for scanner.Scan() {
		var vector struct {
			Name string          `json:"name"`
			Job  json.RawMessage `json:"job"`
		}
		require.NoError(t, json.Unmarshal(scanner.Bytes(), &vector))
		cases++
		job, err := DecodeJob(vector.Job)
		if !assert.NoError(t, err, vector.Name) {
			continue
		}
		defaulted := job.DeepCopy()
		vcjob.SetDefaults(defaulted)
		assert.Equal(t, job, defaulted, vector.Name)
	}
	require.NoError(t, scanner.Err())
	require.NotZero(t, cases)
}
