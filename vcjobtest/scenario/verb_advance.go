package scenario

import (
	"fmt"
	"time"
)

// advanceVerb is "advance DURATION": time passes on the simulation's
// clock (sim.advance). It is the one verb that plays after the garbage
// collector deleted the job.
func advanceVerb() verb {
	return verb{
		name:    "advance",
		example: "advance 10m",
		help: []usage{{"advance DURATION", "time passes (Go duration: 30s, 10m); delayed actions fire,\n" +
			"failed requests come back (requeued: 5ms doubling, 15 times),\n" +
			"and the garbage collector deletes a finished job whose\n" +
			"ttlSecondsAfterFinished ran out (no command reaches it after)"}},
		parse:       parseAdvance,
		play:        playAdvance,
		afterDelete: true,
		afterGC:     true,
		trace:       traceAdvance,
	}
}

// parseAdvance parses "advance DURATION", a positive Go duration.
func parseAdvance(c *Command, args []string) error {
	if err := wantArgs(c.verb, args, 1, 1); err != nil {
		return err
	}
	d, err := time.ParseDuration(args[0])
	if err != nil || d <= 0 {
		return fmt.Errorf("advance: bad duration %q (use a Go duration such as 30s or 10m)", args[0])
	}
	c.d = d
	return nil
}

func playAdvance(s *sim, c Command) error { return s.advance(c.d) }

// traceAdvance notes whether a delayed action, a requeued request or the
// garbage collector's look waits as the time starts passing (Step.Waits).
func traceAdvance(s *sim, st *Step) {
	_, gcWaits := s.gc.due()
	st.Waits = s.step.Delays.Len() > 0 || len(s.retries) > 0 || gcWaits
}
