package scenario

// finishVerb is "finish": the pods being deleted finish terminating and
// are gone.
func finishVerb() verb {
	return verb{
		name:    "finish",
		example: "finish",
		help:    []usage{{"finish", "pods being deleted finish terminating and disappear"}},
		parse:   noArgs,
		play:    playFinish,
	}
}

func playFinish(s *sim, _ Command) error {
	s.cluster.FinishTerminating()
	return s.settle()
}
