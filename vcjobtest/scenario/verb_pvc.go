package scenario

// pvcVerb is "pvc NAME": someone creates the volume claim NAME in the
// job's namespace.
func pvcVerb() verb {
	return verb{
		name:    "pvc",
		example: "pvc data",
		help:    []usage{{"pvc NAME", "someone creates the volume claim NAME in the job's namespace"}},
		parse:   parseClaim,
		play:    playClaim,
	}
}

// parseClaim parses "pvc NAME".
func parseClaim(c *Command, args []string) error {
	if err := wantArgs(c.verb, args, 1, 1); err != nil {
		return err
	}
	c.word = args[0]
	return nil
}

// playClaim creates the claim. No request: Volcano does not watch claims
// for jobs; the next sync (a requeued one) finds it.
func playClaim(s *sim, c Command) error {
	s.cluster.PutClaim(s.ns, c.word)
	return s.settle()
}
