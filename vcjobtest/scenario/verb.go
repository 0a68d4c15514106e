package scenario

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// A verb is one script command: how its line parses, how it plays
// against the simulation, and its help. Each has a file verb_NAME.go
// (a family of verbs that share one meaning shares one file) and a line
// in verbs; Parse and the engine know verbs only through that table.
type verb struct {
	name string
	// help is the verb's entry in Usage: one or more forms.
	help []usage
	// example is a line of the verb that parses, for the tests (and the
	// fuzz target's seeds).
	example string
	// parse reads the words after the verb into c (c.verb is set); an
	// error says what is wrong, Parse adds the line.
	parse func(c *Command, args []string) error
	// play runs the command on the simulation and settles what it sets
	// off (or leaves it queued, as "controller restart held" does); an
	// error names the line (Command.errorf).
	play func(s *sim, c Command) error
	// group is which pods a group argument (all, TASK-*) takes, of those
	// not being deleted; nil for a verb that takes no pods.
	group func(p *corev1.Pod) bool
	// afterDelete: the verb still plays once a "delete" deleted the job;
	// afterGC: once the garbage collector deleted it.
	afterDelete, afterGC bool
	// trace fills what a Step records of the line before it plays (nil:
	// nothing beyond the parsed command).
	trace func(s *sim, st *Step)
}

// verbs is the table of the script's verbs, in the order Usage lists
// them. Adding a verb is adding its file and a line here.
func verbs() []verb {
	return []verb{
		podPhase("start"),
		podPhase("run"),
		podPhase("pending"),
		podPhase("ready"),
		podPhase("unready"),
		restartVerb(),
		failVerb(),
		podPhase("succeed"),
		podPhase("unknown"),
		evictVerb(),
		preemptVerb(),
		finishVerb(),
		podGroupVerb(),
		commandVerb(),
		scaleVerb(),
		pvcVerb(),
		unschedulableVerb(),
		updateVerb(),
		deleteVerb(),
		releaseVerb(),
		createVerb(),
		controllerVerb(),
		advanceVerb(),
	}
}

// lookupVerb is the verb of that name, or nil.
func lookupVerb(name string) *verb {
	for _, v := range verbs() {
		if v.name == name {
			return &v
		}
	}
	return nil
}

// A usage is one form of a verb in Usage: the verb with its arguments,
// and what it does (lines broken by hand, no indentation).
type usage struct {
	synopsis, text string
}

// The column a usage's text starts at, and the indentation of a form.
const (
	usageColumn = 24
	usageIndent = "  "
)

// String is the form as Usage lists it: the synopsis, then the text from
// usageColumn, on the next line when the synopsis leaves no room.
func (u usage) String() string {
	var b strings.Builder
	b.WriteString(usageIndent + u.synopsis)
	pad := strings.Repeat(" ", usageColumn)
	if n := len(usageIndent) + len(u.synopsis); n <= usageColumn-2 {
		b.WriteString(pad[n:])
	} else {
		b.WriteString("\n" + pad)
	}
	b.WriteString(strings.ReplaceAll(u.text, "\n", "\n"+pad))
	return b.String()
}

// usageHead and usageTail open and close Usage around the verbs' forms.
const (
	usageHead = "scenario commands, one per line (# starts a comment):"
	usageTail = `PODS is a pod (worker-0, or its full name), TASK-* for a task's pods, or all.

A job's pods exist only once its PodGroup is admitted: the controller creates
the PodGroup, the scheduler moves it to Inqueue, then the next sync creates the
pods. So a scenario starts with "podgroup Inqueue", then "start all".`
)

// Usage lists the scenario commands, for errors and -help.
func Usage() string {
	lines := []string{usageHead}
	for _, v := range verbs() {
		lines = append(lines, v.usage())
	}
	return strings.Join(append(lines, usageTail), "\n")
}

// usage is the verb's entry in Usage.
func (v verb) usage() string {
	var forms []string
	for _, u := range v.help {
		forms = append(forms, u.String())
	}
	return strings.Join(forms, "\n")
}

// usageOf is the Usage entry of the verb named, or the whole Usage.
func usageOf(name string) string {
	if v := lookupVerb(name); v != nil {
		return v.usage()
	}
	return Usage()
}

// wantArgs says, with the verb's usage, when verb got fewer than min or
// more than max arguments.
func wantArgs(verb string, args []string, min, max int) error {
	if len(args) >= min && len(args) <= max {
		return nil
	}
	n := fmt.Sprintf("%d to %d arguments", min, max)
	switch {
	case min == max && min == 0:
		n = "no argument"
	case min == max && min == 1:
		n = "one argument"
	case min == max:
		n = fmt.Sprintf("%d arguments", min)
	}
	return fmt.Errorf("%s takes %s, got %d; usage:\n%s", verb, n, len(args), usageOf(verb))
}

// noArgs parses a verb that takes no argument.
func noArgs(c *Command, args []string) error { return wantArgs(c.verb, args, 0, 0) }

// errorf is an error of the command as it plays: its line, its text,
// then what went wrong (format may wrap an error with %w).
func (c Command) errorf(format string, args ...any) error {
	return fmt.Errorf("line %d: %q: %w", c.Line, c.Text, fmt.Errorf(format, args...))
}
