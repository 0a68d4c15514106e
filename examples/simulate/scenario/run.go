package scenario

import (
	"errors"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/semantics"
	"github.com/vcjob/vcjob/validation"
)

// Load decodes a manifest, picks the job named name (or its only job when
// name is ""), and defaults and validates it as Volcano's admission would.
func Load(manifest []byte, name string) (*vcjob.Job, error) {
	jobs, err := vcjob.DecodeJobs(manifest)
	if err != nil {
		return nil, err
	}
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
	// Semantics are the corrections the simulated controller decides
	// under (the job's vcjob.dev/semantics annotation applies on top);
	// the zero value is Volcano's semantics.
	Semantics semantics.Profile
}

// RunWith is Run with options.
func RunWith(job *vcjob.Job, script []Command, o Observer, opts Options) error {
	if job == nil || o == nil {
		return errors.New("scenario: a job and an observer are needed")
	}
	job = job.DeepCopy()
	if job.UID == "" {
		// A manifest has no UID yet; the API server would give it one.
		job.UID = types.UID("uid-" + job.Name)
	}
	if job.CreationTimestamp.IsZero() {
		// The API server stamps it; a deadline counts from it.
		job.CreationTimestamp = metav1.NewTime(Start)
	}
	s, err := newSim(job, o, opts.Semantics)
	if err != nil {
		return err
	}
	for _, c := range script {
		if err := s.run(c); err != nil {
			return err
		}
	}
	o.End(s.summary())
	return nil
}
