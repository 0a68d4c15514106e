package scenario

// createVerb is "create": the user creates the deleted job again from
// its manifest (the same name and spec, a new UID).
func createVerb() verb {
	return verb{
		name:        "create",
		example:     "create",
		help:        []usage{{"create", "the deleted job is created again from its manifest (a new UID)"}},
		parse:       noArgs,
		play:        playCreate,
		afterDelete: true,
	}
}

func playCreate(s *sim, c Command) error {
	if s.ext.deletedAt == 0 {
		return c.errorf("the job exists: \"delete\" it first")
	}
	job := s.cluster.PutJob(s.ext.manifest)
	s.ext.deletedAt = 0
	s.note("the job is created again under its name, with UID %s", job.UID)
	return s.settle()
}
