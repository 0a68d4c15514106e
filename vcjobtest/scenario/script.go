package scenario

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
)

// A Command is one line of a scenario script.
type Command struct {
	Line int    // in the script, from 1
	Text string // the line without its comment
	verb string
	pods string // a pod, "all", or "TASK-*"
	n    int32  // exit code or restart count
	d    time.Duration
	word string // PodGroup phase, action, task
	// relisted: the PodGroup's phase change is lost with a cut watch and
	// the relist shows the PodGroup as new (an add).
	relisted bool
	// held: the requests a controller restart's list raises wait for the
	// next command's changes.
	held bool
}

// Usage lists the scenario commands, for errors and -help.
const Usage = `scenario commands, one per line (# starts a comment):
  start PODS            Pending pods are bound and run, containers ready (PodRunning)
  run PODS              pods are bound and run, containers not ready yet
  pending PODS          pods go back to Pending
  ready PODS            containers become ready
  unready PODS          containers stop being ready
  restart PODS [N]      containers restart N times (default 1); the pod stays Running (or Pending)
  fail PODS [CODE]      pods fail, the first container exiting with CODE (default 1)
  succeed PODS          pods succeed
  unknown PODS          pods' phase becomes Unknown
  evict PODS            pods are deleted by someone else (PodEvicted)
  preempt PODS          pods are disrupted: a DisruptionTarget condition, then Failed (exit 143)
  finish                pods being deleted finish terminating and disappear
  podgroup PHASE        the scheduler sets the PodGroup's phase (Pending, Inqueue, Running, Unknown)
  podgroup PHASE relisted
                        the same, but the watch loses the change: a relist shows the
                        PodGroup as new, already in PHASE (an add; see podgroup-phase-on-add)
  command ACTION        a Command asks for ACTION (AbortJob, ResumeJob, ...)
  scale TASK N          the job is updated: TASK gets N replicas
  pvc NAME              someone creates the volume claim NAME in the job's namespace
  unschedulable [REASON]
                        the scheduler cannot place the gang: the PodGroup gets a true
                        Unschedulable condition and a Warning Unschedulable Event, and its
                        phase from the pods (Unknown if a pod runs, Running if minMember are
                        bound, else Pending unless Inqueue); a later "podgroup Inqueue" or
                        "podgroup Running" places it (condition Scheduled)
  update FIELD=N...     the job is updated: minAvailable, TASK.replicas, TASK.minAvailable
  delete [POD...]       the job is deleted: the garbage collector removes its pods and
                        PodGroup at once, but the pods listed, which a finalizer holds,
                        being deleted; then only advance, release and create
  release POD...        the finalizer holding the pods goes (a pod being deleted is gone)
  create                the deleted job is created again from its manifest (a new UID)
  controller restart [held]
                        the job controller restarts: its cache, queue, requeues and
                        delayed actions are lost; the new one lists the job, then its
                        pods, as adds, and handles what they raise; with held, those
                        requests wait until the next command's changes have reached
                        the new cache (a pod that fails as the controller starts)
  advance DURATION      time passes (Go duration: 30s, 10m); delayed actions fire,
                        failed requests come back (requeued: 5ms doubling, 15 times),
                        and the garbage collector deletes a finished job whose
                        ttlSecondsAfterFinished ran out (no command reaches it after)
PODS is a pod (worker-0, or its full name), TASK-* for a task's pods, or all.

A job's pods exist only once its PodGroup is admitted: the controller creates
the PodGroup, the scheduler moves it to Inqueue, then the next sync creates the
pods. So a scenario starts with "podgroup Inqueue", then "start all".`

// Parse reads a scenario script; an error names the line.
func Parse(r io.Reader) ([]Command, error) {
	var out []Command
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		text := strings.TrimSpace(sc.Text())
		if i := strings.Index(text, "#"); i >= 0 {
			text = strings.TrimSpace(text[:i])
		}
		if text == "" {
			continue
		}
		c, err := parseLine(text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %q: %w", n, text, err)
		}
		c.Line, c.Text = n, text
		out = append(out, c)
	}
	return out, sc.Err()
}

// parseLine parses one command: its verb, then the arguments the verb
// takes.
func parseLine(text string) (Command, error) {
	f := strings.Fields(text)
	c := Command{verb: f[0]}
	args := f[1:]
	var err error
	switch c.verb {
	case "start", "run", "pending", "ready", "unready", "succeed", "unknown", "evict", "preempt":
		if err = wantArgs(c.verb, args, 1, 1); err == nil {
			c.pods = args[0]
		}
	case "restart", "fail":
		err = c.parseRestarts(args)
	case "finish":
		err = wantArgs(c.verb, args, 0, 0)
	case "podgroup":
		err = c.parsePodGroup(args)
	case "command":
		err = c.parseAction(args)
	case "scale":
		err = c.parseScale(args)
	case "pvc":
		if err = wantArgs(c.verb, args, 1, 1); err == nil {
			c.word = args[0]
		}
	case "advance":
		err = c.parseAdvance(args)
	case "controller":
		err = c.parseController(args)
	default:
		var ok bool
		if ok, err = parseExtra(&c, args); !ok {
			err = fmt.Errorf("unknown command %q\n%s", c.verb, Usage)
		}
	}
	return c, err
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

// parseRestarts parses "restart PODS [N]" and "fail PODS [CODE]": N (or
// the exit code) is 1 when left out.
func (c *Command) parseRestarts(args []string) error {
	if err := wantArgs(c.verb, args, 1, 2); err != nil {
		return err
	}
	c.pods = args[0]
	c.n = 1
	if len(args) == 2 {
		v, err := strconv.ParseInt(args[1], 10, 32)
		if err != nil || v < 0 {
			return fmt.Errorf("%s: bad number %q", c.verb, args[1])
		}
		c.n = int32(v)
	}
	return nil
}

// parsePodGroup parses "podgroup PHASE [relisted]".
func (c *Command) parsePodGroup(args []string) error {
	if err := wantArgs(c.verb, args, 1, 2); err != nil {
		return err
	}
	if len(args) == 2 {
		if args[1] != "relisted" {
			return fmt.Errorf("podgroup: unknown word %q after the phase (only \"relisted\"); usage:\n%s", args[1], usageOf(c.verb))
		}
		c.relisted = true
	}
	switch p := podgroup.Phase(args[0]); p {
	case podgroup.PhasePending, podgroup.PhaseInqueue, podgroup.PhaseRunning, podgroup.PhaseUnknown, podgroup.PhaseCompleted:
		c.word = args[0]
	default:
		return fmt.Errorf("unknown PodGroup phase %q (Pending, Inqueue, Running, Unknown, Completed)", args[0])
	}
	return nil
}

// parseAction parses "command ACTION", one of the policy actions.
func (c *Command) parseAction(args []string) error {
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

// parseScale parses "scale TASK REPLICAS".
func (c *Command) parseScale(args []string) error {
	if err := wantArgs(c.verb, args, 2, 2); err != nil {
		return err
	}
	v, err := strconv.ParseInt(args[1], 10, 32)
	if err != nil || v < 0 {
		return fmt.Errorf("scale: bad replica count %q", args[1])
	}
	c.word, c.n = args[0], int32(v)
	return nil
}

// parseAdvance parses "advance DURATION", a positive Go duration.
func (c *Command) parseAdvance(args []string) error {
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

// usageOf is the Usage line of verb.
func usageOf(verb string) string {
	var out []string
	in := false
	for _, line := range strings.Split(Usage, "\n") {
		switch {
		case strings.HasPrefix(line, "  "+verb+" "):
			in = true
		case in && strings.HasPrefix(line, "    "):
			// the continuation of the verb's entry
		default:
			in = false
		}
		if in {
			out = append(out, line)
		}
	}
	if len(out) == 0 {
		return Usage
	}
	return strings.Join(out, "\n")
}

// podPhaseFor is the phase a pod command leaves the pod in.
func podPhaseFor(verb string) corev1.PodPhase {
	switch verb {
	case "start", "run", "ready", "unready", "restart":
		return corev1.PodRunning
	case "pending":
		return corev1.PodPending
	case "fail", "preempt":
		return corev1.PodFailed
	case "succeed":
		return corev1.PodSucceeded
	case "unknown":
		return corev1.PodUnknown
	}
	return ""
}
