package lint

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vcjob/vcjob"
)

// CodeTTLAbortedNeverDeleted: spec.ttlSecondsAfterFinished on a job whose
// policies can abort it. Volcano's garbage collector (package ttl) cleans
// up only Completed, Failed and Terminated jobs; an Aborted job is kept,
// whatever its ttl. (A suspend, vcctl's AbortJob command, ends a job
// Aborted too; Lint reads policies, not what users may do.)
const CodeTTLAbortedNeverDeleted = "ttl-aborted-never-deleted"

// noteAbort records a live AbortJob policy (one some request reaches),
// for the ttl check.
func (l *linter) noteAbort(path *field.Path, p vcjob.LifecyclePolicy, live []firing) {
	if p.Action != vcjob.AbortJobAction || len(live) == 0 {
		return
	}
	var events []string
	for _, f := range live {
		ev := string(f.event)
		if f.exitCode != nil {
			ev = fmt.Sprintf("exit code %d", *f.exitCode)
		}
		events = appendUnique(events, ev)
	}
	l.aborts = append(l.aborts, fmt.Sprintf("%s on %s", path, strings.Join(events, ", ")))
}

// ttl lints spec.ttlSecondsAfterFinished against the phases the job's
// policies can end it in.
func (l *linter) ttl() {
	ttl := l.a.given.Spec.TTLSecondsAfterFinished
	if ttl == nil || len(l.aborts) == 0 {
		return
	}
	l.add(field.NewPath("spec", "ttlSecondsAfterFinished"), CodeTTLAbortedNeverDeleted,
		"ttlSecondsAfterFinished %d does not apply when the job ends Aborted (AbortJob by %s): Volcano's garbage collector deletes only Completed, Failed and Terminated jobs, so an Aborted job, with the pods the abort kept, stays until it is deleted by hand or resumed; use TerminateJob to end the job and have it cleaned up",
		*ttl, strings.Join(l.aborts, "; "))
}
