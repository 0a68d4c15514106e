package scenario

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/manifest"
	"github.com/vcjob/vcjob/validation"
)

// Load decodes a manifest strictly (a field the Job types lack is an
// error naming it), picks the job named name (or its only job when name is
// ""), and defaults and validates it as Volcano's admission would.
func Load(data []byte, name string) (*vcjob.Job, error) {
	jobs, err := manifest.DecodeJobs(data)
	if err != nil {
		return nil, err
	}
	return pick(jobs, name)
}

// LoadDropping is Load as an API server with Volcano's CRD reads a
// manifest: the fields the Job types lack are dropped, and named in
// dropped, rather than refused.
func LoadDropping(data []byte, name string) (job *vcjob.Job, dropped []string, err error) {
	jobs, err := manifest.DecodeJobs(data)
	var de *manifest.Error
	if errors.As(err, &de) && len(de.UnknownFields()) == len(de.Fields) && len(de.Fields) > 0 {
		dropped = de.UnknownFields()
		jobs, err = manifest.DecodeJobsWith(data, manifest.Options{AllowUnknownFields: true})
	}
	if err != nil {
		return nil, nil, err
	}
	job, err = pick(jobs, name)
	return job, dropped, err
}

// pick chooses the job to simulate, and defaults and validates it.
func pick(jobs []*vcjob.Job, name string) (*vcjob.Job, error) {
	var job *vcjob.Job
	switch {
	case name != "":
		var names []string
		for _, j := range jobs {
			names = append(names, j.Name)
			if j.Name == name {
				job = j
			}
		}
		if job == nil {
			return nil, fmt.Errorf("no job named %q here (jobs: %s)", name, strings.Join(names, ", "))
		}
	case len(jobs) == 1:
		job = jobs[0]
	default:
		var names []string
		for _, j := range jobs {
			names = append(names, j.Name)
		}
		return nil, fmt.Errorf("the manifest holds %d jobs (%s): name the one to simulate (simulate -name)", len(jobs), strings.Join(names, ", "))
	}
	vcjob.SetDefaults(job)
	if errs := validation.ValidateJob(job); len(errs) > 0 {
		return nil, fmt.Errorf("invalid job: %w", errs.ToAggregate())
	}
	return job, nil
}

// Run runs the script on the job (decoded, defaulted and validated, as
// Load gives it), telling o what happens. An error names the script line
// that could not run; what happened before it has been told.
func Run(job *vcjob.Job, script []Command, o Observer) error {
	return RunWith(job, script, o, Options{})
}

// Options say how to run a scenario beyond the job and its script.
type Options struct {
	// Behavior is what the simulated controller decides under: the
	// Volcano version and the corrections (the job's vcjob.dev/semantics
	// annotation applies on top); the zero value is Volcano's default
	// release.
	Behavior behavior.Set
	// Claims are volume claims that exist in the job's namespace before
	// the job is created (Trace).
	Claims []string
}

// RunWith is Run with options.
func RunWith(job *vcjob.Job, script []Command, o Observer, opts Options) error {
	if job == nil || o == nil {
		return errors.New("scenario: a job and an observer are needed")
	}
	s, err := newSim(job, o, opts.Behavior)
	if err != nil {
		return err
	}
	for _, c := range script {
		if err := s.run(c); err != nil {
			return err
		}
	}
	// A held restart as the last command: its requests are handled.
	if len(s.queue) > 0 {
		if err := s.settle(); err != nil {
			return err
		}
	}
	o.End(s.summary())
	return nil
}
