package scenario

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

// commandVerb is "command ACTION": a user creates a bus Command asking
// for one of the policy actions on the job.
func commandVerb() verb {
	return verb{
		name:    "command",
		example: "command AbortJob",
		help:    []usage{{"command ACTION", "a Command asks for ACTION (AbortJob, ResumeJob, ...)"}},
		parse:   parseAction,
		play:    playCommand,
	}
}

// parseAction parses "command ACTION", one of the policy actions.
func parseAction(c *Command, args []string) error {
	if err := wantArgs(c.verb, args, 1, 1); err != nil {
		return err
	}
	known := false
	for _, a := range vcjob.PolicyActions() {
		known = known || string(a) == args[0]
	}
	if !known {
		return fmt.Errorf("unknown action %q", args[0])
	}
	c.word = args[0]
	return nil
}

// playCommand hands the Command to the controller's command handler,
// which deletes it, records CommandIssued on the job and queues the
// request.
func playCommand(s *sim, c Command) error {
	cmd := &vcjob.Command{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: strings.ToLower(c.word) + "-" + s.job},
		Action: c.word, TargetObject: &metav1.OwnerReference{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind, Name: s.job}}
	if req, events, ok := s.cache.OnCommand(cmd); ok {
		if len(events) > 0 {
			s.out.Recorded(events, s.now)
		}
		s.queue = append(s.queue, req)
	}
	return s.settle()
}
