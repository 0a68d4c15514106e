package scenario

import (
	"strings"
)

// deleteVerb is "delete [POD...]": the user deletes the job (kubectl
// delete vcjob, no propagation option); the pods listed are held by a
// finalizer. Volcano's end-to-end suites delete jobs in every phase.
func deleteVerb() verb {
	return verb{
		name:    "delete",
		example: "delete worker-0",
		help: []usage{{"delete [POD...]", "the job is deleted: the garbage collector removes its pods and\n" +
			"PodGroup at once, but the pods listed, which a finalizer holds,\n" +
			"being deleted; then only advance, release and create"}},
		parse: parseHeld,
		play:  playDelete,
	}
}

// parseHeld parses "delete [POD...]": the pods a finalizer holds.
func parseHeld(c *Command, args []string) error {
	c.word = strings.Join(args, " ")
	return nil
}

// HoldFinalizer is the finalizer "delete POD..." puts on the pods it
// holds.
const HoldFinalizer = "vcjob.dev/simulator-hold"

// playDelete plays Kubernetes' garbage collector removing what the job
// owns, its pods and PodGroup, at once, the pods without a grace period,
// but for the pods the command lists: a finalizer (HoldFinalizer, put on
// first) holds them, being deleted, until "release". The job
// controller's handlers see it all, and its cache forgets the job;
// requests still queued for it find no job, its delayed actions go, and
// nothing happens to it afterwards until "create". Plugin objects and
// claims are left, as in RemoveJob; a real garbage collector deletes them
// too.
func playDelete(s *sim, c Command) error {
	for _, name := range strings.Fields(c.word) {
		p := s.podNamed(name)
		if p == nil {
			return c.errorf("no pod %s to hold", name)
		}
		p.Finalizers = append(p.Finalizers, HoldFinalizer)
		s.cluster.PutPod(p)
	}
	if err := s.settle(); err != nil {
		return err
	}
	removed := s.cluster.RemoveJob(s.ns, s.job)
	changes := s.cluster.Drain()
	s.out.Changes(changes, s.now)
	for _, ch := range changes {
		if ch.OldJob != nil && ch.NewJob == nil {
			_ = s.cache.OnJobDelete(removed)
			continue
		}
		if req, ok := ch.Notify(s.cache); ok {
			s.queue = append(s.queue, req)
		}
	}
	s.step.Delays.ForgetJob(s.ns, s.job)
	s.retries = nil
	s.ext.deletedAt = c.Line
	s.note("the job is deleted; the garbage collector removes its pods and PodGroup, the job controller forgets it")
	return s.settle()
}
