package scenario

import (
	"fmt"
	"strconv"

	"github.com/vcjob/vcjob/validation"
)

// scaleVerb is "scale TASK N": the user updates the job so that TASK has
// N replicas (and a minAvailable no larger).
func scaleVerb() verb {
	return verb{
		name:    "scale",
		example: "scale worker 3",
		help:    []usage{{"scale TASK N", "the job is updated: TASK gets N replicas"}},
		parse:   parseScale,
		play:    playScale,
	}
}

// parseScale parses "scale TASK REPLICAS".
func parseScale(c *Command, args []string) error {
	if err := wantArgs(c.verb, args, 2, 2); err != nil {
		return err
	}
	v, err := strconv.ParseInt(args[1], 10, 32)
	if err != nil || v < 0 {
		return fmt.Errorf("scale: bad replica count %q", args[1])
	}
	c.word, c.n = args[0], int32(v)
	return nil
}

// playScale writes the update, which the API server's update validation
// must accept.
func playScale(s *sim, c Command) error {
	job := s.cluster.Job(s.ns, s.job)
	t := job.Task(c.word)
	if t == nil {
		return c.errorf("no task %q", c.word)
	}
	old := job.DeepCopy()
	t.Replicas = c.n
	if t.MinAvailable != nil && *t.MinAvailable > c.n {
		t.MinAvailable = &c.n
	}
	if errs := validation.ValidateJobUpdate(job, old); len(errs) > 0 {
		return c.errorf("the API server would refuse the update: %w", errs.ToAggregate())
	}
	s.cluster.PutJob(job)
	return s.settle()
}
