package scenario

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/vcjob/vcjob/validation"
)

// updateVerb is "update FIELD=N...": the user changes the job's spec, as
// Volcano's end-to-end tests do.
func updateVerb() verb {
	return verb{
		name:    "update",
		example: "update minAvailable=1 worker.replicas=3",
		help:    []usage{{"update FIELD=N...", "the job is updated: minAvailable, TASK.replicas, TASK.minAvailable"}},
		parse:   parseUpdates,
		play:    playUpdate,
	}
}

// parseUpdates parses "update FIELD=N...", keeping the fields as written.
func parseUpdates(c *Command, args []string) error {
	if err := wantArgs(c.verb, args, 1, 1<<10); err != nil {
		return err
	}
	for _, a := range args {
		if _, _, _, err := parseUpdate(a); err != nil {
			return err
		}
	}
	c.word = strings.Join(args, " ")
	return nil
}

// parseUpdate reads one FIELD=N of an update: minAvailable, or
// TASK.replicas or TASK.minAvailable.
func parseUpdate(arg string) (task, field string, n int32, err error) {
	k, v, ok := strings.Cut(arg, "=")
	num, perr := strconv.ParseInt(v, 10, 32)
	if !ok || perr != nil {
		return "", "", 0, fmt.Errorf("update: want FIELD=N, got %q; usage:\n%s", arg, usageOf("update"))
	}
	task, field, dotted := strings.Cut(k, ".")
	if !dotted {
		task, field = "", k
	}
	if (dotted && field != "replicas" && field != "minAvailable") || (!dotted && field != "minAvailable") {
		return "", "", 0, fmt.Errorf("update: unknown field %q (minAvailable, TASK.replicas, TASK.minAvailable)", k)
	}
	return task, field, int32(num), nil
}

// playUpdate replaces the spec by a copy with the fields changed, which
// the API server's update validation must accept.
func playUpdate(s *sim, c Command) error {
	job := s.cluster.Job(s.ns, s.job)
	old := job.DeepCopy()
	for _, a := range strings.Fields(c.word) {
		task, field, n, _ := parseUpdate(a)
		if task == "" {
			job.Spec.MinAvailable = n
			continue
		}
		t := job.Task(task)
		if t == nil {
			return c.errorf("no task %q", task)
		}
		if field == "replicas" {
			t.Replicas = n
		} else {
			t.MinAvailable = &n
		}
	}
	if errs := validation.ValidateJobUpdate(job, old); len(errs) > 0 {
		return c.errorf("the API server would refuse the update: %w", errs.ToAggregate())
	}
	s.cluster.PutJob(job)
	return s.settle()
}
