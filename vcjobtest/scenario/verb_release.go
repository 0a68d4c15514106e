package scenario

import (
	"slices"
	"strings"
)

// releaseVerb is "release POD...": the finalizer a "delete" put on the
// pods goes. It plays after the job is deleted.
func releaseVerb() verb {
	return verb{
		name:        "release",
		example:     "release worker-0",
		help:        []usage{{"release POD...", "the finalizer holding the pods goes (a pod being deleted is gone)"}},
		parse:       parseReleased,
		play:        playRelease,
		afterDelete: true,
	}
}

// parseReleased parses "release POD...", one pod at least.
func parseReleased(c *Command, args []string) error {
	if err := wantArgs(c.verb, args, 1, 1<<10); err != nil {
		return err
	}
	c.word = strings.Join(args, " ")
	return nil
}

// playRelease takes HoldFinalizer off the pods listed; one being deleted
// is then gone, as an API server removes a pod whose last finalizer goes.
func playRelease(s *sim, c Command) error {
	for _, name := range strings.Fields(c.word) {
		p := s.podNamed(name)
		if p == nil {
			return c.errorf("no pod %s", name)
		}
		p.Finalizers = slices.DeleteFunc(p.Finalizers, func(f string) bool { return f == HoldFinalizer })
		if p.DeletionTimestamp != nil && len(p.Finalizers) == 0 {
			s.cluster.RemovePod(p.Namespace, p.Name)
			continue
		}
		s.cluster.PutPod(p)
	}
	return s.settle()
}
