package server

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/cmd/internal/timeline"
	"github.com/vcjob/vcjob/lint"
	"github.com/vcjob/vcjob/manifest"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/validation"
	"github.com/vcjob/vcjob/vcjobtest/scenario"
)

//go:embed examples index.html
var files embed.FS

// Example is a ready manifest and scenario.
type Example struct {
	Name     string `json:"name"`
	Title    string `json:"title"`
	Manifest string `json:"manifest"`
	Scenario string `json:"scenario"`
}

// Examples are the playground's ready examples, in menu order.
func Examples() []Example {
	list := []struct{ name, title string }{
		{"pytorch-oom", "PyTorch job, a worker OOM-killed"},
		{"mpi", "MPI job, a worker evicted"},
		{"pending-timeout", "A worker stuck Pending: the timeout aborts the job"},
	}
	var out []Example
	for _, e := range list {
		m, _ := files.ReadFile("examples/" + e.name + ".yaml")
		s, _ := files.ReadFile("examples/" + e.name + ".scenario")
		out = append(out, Example{Name: e.name, Title: e.title, Manifest: string(m), Scenario: string(s)})
	}
	return out
}

// FieldError is one validation error with its field path.
type FieldError struct {
	Field  string `json:"field"`
	Type   string `json:"type"`
	Detail string `json:"detail"`
	Text   string `json:"text"`
}

// Result is what the page shows for one manifest and scenario.
type Result struct {
	Job string `json:"job,omitempty"`
	// Note says something about the input that is not an error.
	Note string `json:"note,omitempty"`
	// Decode is the manifest's decoding error; nothing else is filled in
	// then. Fields the Job CRD lacks are not an error: they are dropped, as
	// an API server drops them, and named in Dropped.
	Decode   string         `json:"decode,omitempty"`
	Dropped  []string       `json:"dropped,omitempty"`
	Invalid  []FieldError   `json:"invalid"`
	Defaults []string       `json:"defaults"`
	Lint     []lint.Finding `json:"lint"`
	Explain  string         `json:"explain,omitempty"`
	// Scenario is the script's error, if any (the timeline shows what
	// happened up to that line).
	Scenario   string         `json:"scenario,omitempty"`
	Transcript string         `json:"transcript,omitempty"`
	Timeline   *timeline.Data `json:"timeline,omitempty"`
}

// maxPods keeps one keystroke from simulating a job too big to answer
// while one types.
const maxPods = 2000

// Check decodes, validates, lints and explains the job of the manifest
// source and runs the scenario on it.
func Check(source, script string) Result {
	r := Result{Invalid: []FieldError{}, Lint: []lint.Finding{}, Defaults: []string{}}
	jobs, err := manifest.DecodeJobs([]byte(source))
	var de *manifest.Error
	if errors.As(err, &de) && len(de.Fields) > 0 && len(de.UnknownFields()) == len(de.Fields) {
		r.Dropped = de.UnknownFields()
		jobs, err = manifest.DecodeJobsWith([]byte(source), manifest.Options{AllowUnknownFields: true})
	}
	if err != nil {
		r.Decode = err.Error()
		return r
	}
	job := jobs[0]
	r.Job = request.JobKey(job.Namespace, job.Name)
	if len(jobs) > 1 {
		r.Note = "the manifest holds several jobs: the playground reads the first"
	}
	r.Lint = append(r.Lint, lint.Lint(job)...)
	defaulted := job.DeepCopy()
	vcjob.SetDefaults(defaulted)
	r.Defaults = append(r.Defaults, lint.DefaultsApplied(job, defaulted)...)
	for _, e := range validation.ValidateJob(defaulted) {
		r.Invalid = append(r.Invalid, FieldError{Field: e.Field, Type: e.Type.String(), Detail: e.Detail, Text: e.Error()})
	}
	if len(r.Invalid) > 0 {
		return r
	}
	t := lint.Explain(defaulted)
	r.Explain = t.Text()
	var pods int32
	for _, task := range defaulted.Spec.Tasks {
		pods += task.Replicas
	}
	if pods > maxPods {
		r.Scenario = "the playground simulates jobs of up to 2000 pods; run cmd/simulate -o html for bigger ones"
		return r
	}
	cmds, err := scenario.Parse(strings.NewReader(script))
	if err != nil {
		r.Scenario = err.Error()
		return r
	}
	tl := timeline.New(job.Name, scenario.Start)
	var text bytes.Buffer
	if err := scenario.Run(defaulted, cmds, both{tl, scenario.NewText(&text)}); err != nil {
		r.Scenario = err.Error()
		tl.Fail(err.Error())
	}
	d := tl.Data()
	r.Timeline = &d
	r.Transcript = text.String()
	return r
}

// Handler serves the page (/), the examples (/api/examples) and Check
// (POST /api/check with {"manifest": ..., "scenario": ...}).
func Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		page, _ := files.ReadFile("index.html")
		page = bytes.Replace(page, []byte("/*TIMELINE_STYLE*/"), []byte(timeline.Style), 1)
		page = bytes.Replace(page, []byte("/*TIMELINE_SCRIPT*/"), []byte(timeline.Script), 1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(page)
	})
	mux.HandleFunc("GET /api/examples", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, Examples())
	})
	mux.HandleFunc("POST /api/check", func(w http.ResponseWriter, req *http.Request) {
		var in struct {
			Manifest string `json:"manifest"`
			Scenario string `json:"scenario"`
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, 4<<20))
		if err == nil {
			err = json.Unmarshal(body, &in)
		}
		if err != nil {
			var tooBig *http.MaxBytesError
			status := http.StatusBadRequest
			if errors.As(err, &tooBig) {
				status = http.StatusRequestEntityTooLarge
			}
			http.Error(w, "playground: "+err.Error(), status)
			return
		}
		writeJSON(w, Check(in.Manifest, in.Scenario))
	})
	return mux
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// both tells two observers.
type both [2]scenario.Observer
