package scenario

import (
	"fmt"

	"github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/delay"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/worker"
)

// controllerVerb is "controller restart [held]": the job controller's
// process dies and a new one takes over. It plays after the job is
// deleted (the new controller lists nothing of it).
func controllerVerb() verb {
	return verb{
		name:    "controller",
		example: "controller restart held",
		help: []usage{{"controller restart [held]", "the job controller restarts: its cache, queue, requeues and\n" +
			"delayed actions are lost; the new one lists the job, then its\n" +
			"pods, as adds, and handles what they raise; with held, those\n" +
			"requests wait until the next command's changes have reached\n" +
			"the new cache (a pod that fails as the controller starts)"}},
		parse:       parseController,
		play:        playControllerRestart,
		afterDelete: true,
	}
}

// parseController parses "controller restart [held]".
func parseController(c *Command, args []string) error {
	if err := wantArgs(c.verb, args, 1, 2); err != nil {
		return err
	}
	if args[0] != "restart" {
		return fmt.Errorf("controller: unknown word %q (only \"restart\"); usage:\n%s", args[0], usageOf(c.verb))
	}
	c.word = args[0]
	if len(args) == 2 {
		if args[1] != "held" {
			return fmt.Errorf("controller restart: unknown word %q (only \"held\"); usage:\n%s", args[1], usageOf(c.verb))
		}
		c.held = true
	}
	return nil
}

// playControllerRestart plays the job controller's process dying and a new
// one taking over. What lived only in the old process is lost: its
// cache, its work queue, the requests waiting to be requeued and the
// delayed actions. The new one's informers list what the cluster holds
// and hand it to a new cache as adds: the job first, then its pods by
// name (a PodGroup's add in the first list raises nothing). The cluster
// itself, the garbage collector's timing and the embedder's semantics
// carry over.
//
// With held, the requests of that list are not handled yet: the next
// command's changes reach the new cache first, and their requests queue
// after these (the worker starts after its informers have moved on).
func playControllerRestart(s *sim, c Command) error {
	// The previous command settled: nothing is pending but what the
	// process loses.
	s.cluster.Drain()
	lost := len(s.queue) + len(s.retries) + s.step.Delays.Len()
	c2 := cache.New()
	c2.Behavior = s.cache.Behavior
	s.cache = c2
	// A new Applied too: what the old one remembered (desired PodGroups,
	// decoded extensions) was the old process's.
	a := s.step.Cluster
	s.step = &worker.Step{Jobs: c2, Delays: delay.New(), Cluster: &statemachine.Applied{Applier: a.Applier, Plugins: a.Plugins,
		Priorities: a.Priorities, Recount: a.Recount, Names: a.Names, Choices: a.Choices, Behavior: a.Behavior, Extensions: a.Extensions}}
	s.queue, s.retries, s.failures = nil, nil, nil
	if job := s.cluster.StoredJob(s.ns, s.job); job != nil {
		if req, ok, _ := s.cache.OnJobAdd(job); ok {
			s.queue = append(s.queue, req)
		}
	}
	pods := s.cluster.Pods(s.ns, s.job)
	for _, p := range pods {
		if req, ok := s.cache.OnPodAdd(p); ok {
			s.queue = append(s.queue, req)
		}
	}
	s.note("the controller restarts: %d delayed or queued requests lost; the new one lists the job and its pods (%d)", lost, len(pods))
	if c.held {
		s.held = true
		s.note("the new controller's %d requests wait for the next command's changes", len(s.queue))
		return nil
	}
	return s.settle()
}
