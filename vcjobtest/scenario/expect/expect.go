// Package expect states what an end-to-end test waits for and checks it
// against a run: the job's phases in order (Volcano's WaitJobPhases, a
// subsequence of the job's writes with the counter check of each phase),
// its phase, status counts, pods, plugin objects, the PodGroup and its
// minResources, and the Kubernetes Events on the job and its PodGroup.
//
// A run is a Trace: every write of the job object in order, each with the
// script line it happened during, and a Snapshot of the cluster after
// each script line. The simulator builds one (scenario.Trace) and so does
// the example controller's end-to-end player against a real API server,
// so one list of expectations is checked in both places.
//
// Expectations are lines (# starts a comment):
//
//	[after LINE:] CHECK ARGS...
//
// A check is made on the snapshot after script line LINE (0: the job just
// created), or at the end. The checks (POD is a pod's full name or its
// name without the job's, <task>-<index>):
//
//	phases [from LINE] PHASE...      WaitJobPhases: the job's writes from LINE's (the write before it first, as a
//	                                 watch's initial list) pass through the phases in order, each with its count check
//	states PHASE...                  WaitJobStates: the phases are written in this order, the last one is the phase now
//	status FIELD N                   retryCount, version, pending, running, succeeded, failed, terminating, minAvailable
//	ready [N]                        WaitTasksReady: N pods (default spec.minAvailable) of the job Running or Succeeded
//	pending-pods [N]                 WaitJobPending: N pods (default spec.minAvailable) Pending
//	completed N                      WaitTasksCompleted: N pods Succeeded
//	ready-by-priority CLASS=N...     WaitTasksReadyEx: N Running or Succeeded pods with that priorityClassName
//	pods N                           exactly N pods of the job
//	owned-pods N                     exactly N pods whose controller is the job (its UID)
//	pod POD gone|kept|PHASE          the pod is gone; exists and is not being deleted; is in PHASE
//	recreated from LINE [POD...]     every pod of the snapshot before LINE exists, Running, not being deleted, and
//	                                 has a new UID exactly when listed
//	event REASON [TEXT...]           an Event on the job of that reason whose message contains TEXT
//	no-event REASON [TEXT...]        none
//	podgroup-event REASON            WaitJobUnschedulable: the PodGroup exists and has an Event of that reason
//	podgroup present|absent|PHASE    the job's PodGroup exists, does not, is in PHASE
//	minresources KEY=VALUE...        every key of the PodGroup's minResources is listed, with that value
//	consistently from LINE COND...   every write of the job from LINE's to the point, and the point, hold each COND:
//	                                 version=N, retryCount=N, same-uid (the point's job's UID), !PHASE (not in PHASE)
//	owned KIND NAME                  the object's controller is the job (its UID)
//	object KIND NAME                 a plugin object or claim (ConfigMap, Secret, Service, NetworkPolicy,
//	no-object KIND NAME              PersistentVolumeClaim) exists, does not
//	configmap NAME KEY=VALUE...      the ConfigMap's data is exactly these (\n in VALUE is a newline)
//	volume POD NAME                  the pod has a volume of that name
//	env POD NAME...                  every container and init container of the pod has env vars of these names
//	node NODE                        every pod of the job is bound to NODE
//	same-node                        every pod of the job is on one node
//	volumes N                        the job's spec has N volumes
//	claim INDEX NAME|*               spec.volumes[INDEX].volumeClaimName is NAME (*: any, not empty)
//	gone                             the job does not exist
//	cleaned-up                       WaitJobCleanedUp: the job, its PodGroup and its pods are gone
package expect

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/vcjob/vcjob"
)

// Expectation is one line of expectations.
type Expectation struct {
	// Line is the line in the expectations text, from 1; Text the line
	// without its comment.
	Line int
	Text string
	// After is the script line whose snapshot the check is made on; -1:
	// the end.
	After int
	verb  string
	args  []string
	from  int // phases and recreated: from this script line
}

// End is Expectation.After for a check made at the end of the run.
const End = -1

// Parse reads expectations; an error names the line.
func Parse(text string) ([]Expectation, error) {
	var out []Expectation
	for i, raw := range strings.Split(text, "\n") {
		line := raw
		if j := strings.Index(line, "#"); j >= 0 {
			line = line[:j]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		e, err := parseLine(line)
		if err != nil {
			return nil, fmt.Errorf("expect line %d: %q: %w", i+1, line, err)
		}
		e.Line, e.Text = i+1, line
		out = append(out, e)
	}
	return out, nil
}

// argCounts are the checks and how many arguments each takes (max -1:
// any number).
var argCounts = map[string][2]int{
	"phases": {1, -1}, "states": {1, -1}, "status": {2, 2}, "ready": {0, 1}, "pending-pods": {0, 1},
	"completed": {1, 1}, "ready-by-priority": {1, -1}, "pods": {1, 1}, "pod": {2, 2}, "recreated": {2, -1},
	"event": {1, -1}, "no-event": {1, -1}, "podgroup-event": {1, 1}, "podgroup": {1, 1}, "minresources": {1, -1},
	"object": {2, 2}, "no-object": {2, 2}, "configmap": {1, -1}, "volume": {2, 2}, "env": {2, -1},
	"node": {1, 1}, "same-node": {0, 0}, "owned-pods": {1, 1}, "owned": {2, 2}, "consistently": {1, -1}, "volumes": {1, 1}, "claim": {2, 2}, "gone": {0, 0}, "cleaned-up": {0, 0},
}

func parseLine(line string) (Expectation, error) {
	e := Expectation{After: End}
	if strings.HasPrefix(line, "after ") {
		head, rest, ok := strings.Cut(strings.TrimPrefix(line, "after "), ":")
		n, err := strconv.Atoi(strings.TrimSpace(head))
		if !ok || err != nil || n < 0 {
			return e, fmt.Errorf("after: want \"after LINE: CHECK\"")
		}
		e.After, line = n, strings.TrimSpace(rest)
	}
	f := strings.Fields(line)
	if len(f) == 0 {
		return e, fmt.Errorf("no check after the line number")
	}
	e.verb, e.args = f[0], f[1:]
	fromVerb := e.verb == "phases" || e.verb == "recreated" || e.verb == "consistently"
	if fromVerb && len(e.args) >= 2 && e.args[0] == "from" {
		n, err := strconv.Atoi(e.args[1])
		if err != nil || n < 0 {
			return e, fmt.Errorf("%s from: bad line %q", e.verb, e.args[1])
		}
		e.from, e.args = n, e.args[2:]
	} else if e.verb == "recreated" || e.verb == "consistently" {
		return e, fmt.Errorf("%s: want \"%s from LINE ...\"", e.verb, e.verb)
	}
	counts, ok := argCounts[e.verb]
	if !ok {
		return e, fmt.Errorf("unknown check %q", e.verb)
	}
	minArgs := counts[0]
	if e.verb == "recreated" {
		minArgs = 0
	}
	if len(e.args) < minArgs || (counts[1] >= 0 && len(e.args) > counts[1]) {
		return e, fmt.Errorf("%s: wrong number of arguments (%d)", e.verb, len(e.args))
	}
	switch e.verb {
	case "phases":
		for _, p := range e.args {
			switch vcjob.JobPhase(p) {
			case vcjob.Pending, vcjob.Running, vcjob.Restarting, vcjob.Aborting, vcjob.Terminating, vcjob.Completing,
				vcjob.Terminated, vcjob.Aborted, vcjob.Completed:
			default:
				// As Volcano's WaitJobPhases, which cannot wait for Failed.
				return e, fmt.Errorf("phases: unknown phase %s (WaitJobPhases takes no Failed: use states)", p)
			}
		}
	case "states":
		for _, p := range e.args {
			if !vcjob.JobPhase(p).IsKnown() {
				return e, fmt.Errorf("states: unknown phase %s", p)
			}
		}
	}
	return e, nil
}
