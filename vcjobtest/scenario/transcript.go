package scenario

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/delay"
	"github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine/memcluster"
	"github.com/vcjob/vcjob/worker"
)

// An Observer receives what happens in a run, in order: each script
// command (line 0 is the job's creation), each step's record, the cluster's
// changes as the informers see them (after the command or step that made
// them), the PodGroup's phase whenever it changed ("" when there is none),
// and a summary at the end. Records and changes are shared: read them.
//
// Recorded receives the Kubernetes Events recorded outside a step (the
// command handler's CommandIssued, before its request is processed); a
// step's own are in its record (worker.Record.Events). Requeued follows
// the record of a step that failed and is requeued: the requeues of its
// request so far (at most MaxRequeue) and when it runs again.
type Observer interface {
	Command(line int, text string, now time.Time)
	Record(r worker.Record)
	Recorded(events []record.Event, now time.Time)
	Requeued(req request.Request, requeues int, due time.Time)
	Changes(chs []memcluster.Change, now time.Time)
	PodGroup(phase string, now time.Time)
	End(summary string)
}

// NewText is the readable transcript.
func NewText(w io.Writer) Observer { return textTranscript{w} }

// NewJSON writes JSON Lines: one object per command, per record (its
// Events in "events"), per change of the PodGroup's phase ({"podGroup":
// phase, "time": ...}; "" when there is none), per Events recorded outside
// a step ({"events": [...], "time": ...}), per requeue ({"requeued":
// request, "requeues": n, "due": ...}) and at the end.
func NewJSON(w io.Writer) Observer {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return jsonTranscript{enc}
}

// textTranscript is the readable form.
type textTranscript struct{ w io.Writer }

func (t textTranscript) Command(line int, text string, now time.Time) {
	fmt.Fprintf(t.w, "> %s   [%s]\n", text, offset(now))
}

func (t textTranscript) Changes([]memcluster.Change, time.Time) {}
func (t textTranscript) PodGroup(string, time.Time)             {}

// Recorded shows Events recorded outside a step, at the command's level.
func (t textTranscript) Note(text string, _ time.Time) {
	fmt.Fprintf(t.w, "  note     %s\n", text)
}

func (t textTranscript) Recorded(events []record.Event, _ time.Time) {
	for _, e := range events {
		fmt.Fprintf(t.w, "  event    %s\n", describeEvent(e))
	}
}

func (t textTranscript) Requeued(_ request.Request, requeues int, due time.Time) {
	fmt.Fprintf(t.w, "    requeue  %d of %d, again at %s\n", requeues, MaxRequeue, offset(due))
}

func (t textTranscript) End(summary string) { fmt.Fprintf(t.w, "= %s\n", summary) }

func (t textTranscript) Record(r worker.Record) {
	w := t.w
	defer t.extended(r)
	if r.Rule.Kind == worker.RuleGiveUp {
		fmt.Fprintf(w, "  give up  %s: failed again after %d requeues\n", Describe(r.Request), MaxRequeue)
		fmt.Fprintf(w, "    rule     retry limit reached -> %s\n", r.Action)
		t.events(r, false)
		t.outcome(r)
		return
	}
	if r.Fired != nil {
		fmt.Fprintf(w, "  fired    %s for %s at %s (registered at %s on %s)\n", r.Fired.Action, describeTarget(r.Fired.Target, r.Fired.Request), offset(r.Time), offset(r.Fired.Registered), Describe(r.Fired.Request))
	} else {
		fmt.Fprintf(w, "  request  %s\n", Describe(r.Request))
	}
	for _, e := range r.Cancelled[:cancelledBefore(r)] {
		fmt.Fprintf(w, "    cancel   %s\n", describeEntry(e))
	}
	if r.Skipped != "" {
		fmt.Fprintf(w, "    skipped  %s\n", r.Skipped)
		return
	}
	if r.FailureFirst != nil {
		fmt.Fprintf(w, "    failure  %s, in the cache already: its policy runs instead of the sync\n", Describe(*r.FailureFirst))
	}
	if r.Fired == nil {
		fmt.Fprintf(w, "    rule     %s -> %s\n", r.Rule, r.Action)
	}
	t.stateful(r)
	t.events(r, false)
	switch {
	case r.Registered != nil:
		fmt.Fprintf(w, "    delay    %s registered, due at %s\n", r.Delay, offset(r.Registered.Due))
		return
	case r.DelayDropped:
		fmt.Fprintf(w, "    delay    %s dropped: the pod already has a pending %s\n", r.Delay, r.Action)
		return
	}
	t.outcome(r)
}

// outcome shows what a step's call did: the phase, the pods, the
// cancellations, its Events, its error.
func (t textTranscript) outcome(r worker.Record) {
	w := t.w
	call := ""
	if r.Transition != nil {
		call = string(r.Transition.Call)
	}
	if r.PhaseBefore == r.PhaseAfter {
		fmt.Fprintf(w, "    %-8s phase stays %s", call, orNone(r.PhaseBefore))
	} else {
		fmt.Fprintf(w, "    %-8s phase %s -> %s", call, orNone(r.PhaseBefore), orNone(r.PhaseAfter))
	}
	if s := r.Effects.Status; s != nil {
		fmt.Fprintf(w, " (retry %d, version %d)", s.RetryCount, s.Version)
	}
	fmt.Fprintln(w)
	if len(r.Effects.Created) > 0 {
		fmt.Fprintf(w, "    create   %s\n", strings.Join(r.Effects.Created, " "))
	}
	if len(r.Effects.Deleted) > 0 {
		fmt.Fprintf(w, "    delete   %s\n", strings.Join(r.Effects.Deleted, " "))
	}
	if r.Effects.HeldUntil != nil {
		fmt.Fprintf(w, "    held     no pod created before %s (restart backoff)\n", offset(r.Effects.HeldUntil.Time))
	}
	if len(r.Effects.Waiting) > 0 {
		fmt.Fprintf(w, "    waiting  %s (dependsOn not met)\n", strings.Join(r.Effects.Waiting, " "))
	}
	for _, warning := range r.Effects.Warnings {
		fmt.Fprintf(w, "    warning  %s (Volcano logs it and goes on)\n", warning)
	}
	if r.Effects.PodGroupDeleted {
		fmt.Fprintf(w, "    podgroup deleted\n")
	}
	for _, e := range r.Cancelled[cancelledBefore(r):] {
		fmt.Fprintf(w, "    cancel   %s (same level)\n", describeEntry(e))
	}
	t.events(r, true)
	if r.Err != nil {
		fmt.Fprintf(w, "    error    %v\n", r.Err)
	}
}

// events shows the step's Events where Volcano records them: those of the
// worker before its call (call false: processNextReq's, GiveUp's) or the
// call's own (call true).
func (t textTranscript) events(r worker.Record, call bool) {
	events := r.Events[:len(r.Events)-len(r.Effects.Events)]
	if call {
		events = r.Events[len(events):]
	}
	for _, e := range events {
		fmt.Fprintf(t.w, "    event    %s\n", describeEvent(e))
	}
}

// describeEvent is an Event as the transcripts show it: type, reason and
// the message quoted, so that a trailing space shows.
func describeEvent(e record.Event) string {
	return fmt.Sprintf("%s %s %q", e.Type, e.Reason, e.Message)
}

// cancelledBefore counts the cancellations a pod event made before the
// step ran; the rest came from the same-level cleanup after it.
func cancelledBefore(r worker.Record) int {
	n := 0
	for _, e := range r.Cancelled {
		if r.Request.PodName != "" && e.Request.PodName == r.Request.PodName && r.Request.Event != vcjob.PodPendingEvent && r.Fired == nil && (e.Request.Event == vcjob.PodPendingEvent || r.Request.Event == vcjob.PodRunningEvent) {
			n++
			continue
		}
		break
	}
	return n
}

// jsonTranscript writes JSON Lines: one object per command, per record and
// at the end.
type jsonTranscript struct{ enc *json.Encoder }

func (t jsonTranscript) Command(line int, text string, now time.Time) {
	_ = t.enc.Encode(map[string]any{"command": text, "line": line, "time": now})
}

func (t jsonTranscript) Changes([]memcluster.Change, time.Time) {}

// Recorded writes {"events": [...], "time": ...} for Events recorded
// outside a step.
// Note writes {"note": text, "time": ...}.
func (t jsonTranscript) Note(text string, now time.Time) {
	_ = t.enc.Encode(map[string]any{"note": text, "time": now})
}

func (t jsonTranscript) Recorded(events []record.Event, now time.Time) {
	_ = t.enc.Encode(map[string]any{"events": events, "time": now})
}

// Requeued writes {"requeued": request, "requeues": n, "due": ...}.
func (t jsonTranscript) Requeued(req request.Request, requeues int, due time.Time) {
	_ = t.enc.Encode(map[string]any{"requeued": req, "requeues": requeues, "due": due})
}

func (t jsonTranscript) PodGroup(phase string, now time.Time) {
	_ = t.enc.Encode(map[string]any{"podGroup": phase, "time": now})
}

func (t jsonTranscript) Record(r worker.Record) {
	_ = t.enc.Encode(struct {
		Record worker.Record `json:"record"`
		Error  string        `json:"error,omitempty"`
	}{r, r.Error()})
}

func (t jsonTranscript) End(summary string) { _ = t.enc.Encode(map[string]string{"summary": summary}) }

func offset(t time.Time) string { return "+" + t.Sub(Start).String() }

// Describe names a request as the transcripts and the timeline show it:
// the event (or command), the pod, the exit code, "disrupted", and the
// job version it carries where it carries one.
func Describe(r request.Request) string {
	var parts []string
	switch {
	case r.Action != "":
		parts = append(parts, "command "+string(r.Action))
	case r.Event == "":
		parts = append(parts, "PodGroup changed")
	default:
		parts = append(parts, string(r.Event))
	}
	if r.PodName != "" {
		parts = append(parts, r.PodName)
	}
	if r.ExitCode != 0 {
		parts = append(parts, fmt.Sprintf("exit=%d", r.ExitCode))
	}
	if r.Disrupted {
		parts = append(parts, "disrupted")
	}
	// Requests about pods and from PodGroup changes carry a job version;
	// job events and commands do not.
	if r.PodName != "" || r.Event == "" || r.Event == vcjob.JobUnknownEvent {
		parts = append(parts, fmt.Sprintf("v%d", r.JobVersion))
	}
	return strings.Join(parts, " ")
}

func describeTarget(t request.Target, r request.Request) string {
	switch t.Level {
	case vcjob.TaskLevel:
		return "task " + t.TaskName
	case vcjob.PodLevel:
		return "pod " + t.PodName
	case vcjob.PartitionLevel:
		return fmt.Sprintf("partition %s/%s", t.TaskName, t.PartitionID)
	}
	return "the job"
}

func describeEntry(e delay.Entry) string {
	s := fmt.Sprintf("delayed %s of %s (from %s at %s)", e.Action, e.Request.PodName, e.Request.Event, offset(e.Registered))
	if e.Orphaned {
		s += " [orphaned]"
	}
	return s
}

// extended shows the delayed actions a step registered for the job's
// policy extensions.
func (t textTranscript) extended(r worker.Record) {
	for _, e := range r.Extended {
		fmt.Fprintf(t.w, "    extend   %s registered (%s), due at %s\n", e.Action, e.Request.Event, offset(e.Due))
	}
}

// stateful shows what the escalation and the retry budget made of the
// step's decision.
func (t textTranscript) stateful(r worker.Record) {
	if r.Escalated {
		fmt.Fprintf(t.w, "    escalate to %s (extension escalation)\n", r.Action)
	}
	if r.KeepRetries && r.Rule.Kind != "Disruption" {
		fmt.Fprintf(t.w, "    budget   within the retry budget: no retry counted\n")
	}
	if r.FailJob {
		fmt.Fprintf(t.w, "    budget   beyond the retry budget: the job fails\n")
	}
}
