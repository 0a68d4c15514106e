package statemachine

import (
	"slices"
	"strings"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
)

// State is a state of the machine: a job phase, except that Completed,
// Terminated and Failed share the Finished state.
type State string

// The states.
const (
	StatePending     State = "Pending"
	StateRunning     State = "Running"
	StateRestarting  State = "Restarting"
	StateAborting    State = "Aborting"
	StateAborted     State = "Aborted"
	StateCompleting  State = "Completing"
	StateTerminating State = "Terminating"
	StateFinished    State = "Finished"
)

// StateOf picks the state from the job's status phase. An empty or unknown
// phase acts as Pending, as in Volcano.
func StateOf(job *vcjob.Job) State {
	switch p := job.Status.State.Phase; p {
	case vcjob.Running, vcjob.Restarting, vcjob.Aborting, vcjob.Aborted, vcjob.Completing, vcjob.Terminating:
		return State(p)
	case vcjob.Completed, vcjob.Terminated, vcjob.Failed:
		return StateFinished
	}
	return StatePending
}

// Call is which cluster call a transition makes.
type Call string

// The calls.
const (
	CallSyncJob    Call = "SyncJob"
	CallKillJob    Call = "KillJob"
	CallKillTarget Call = "KillTarget"
	// CallKillJobUnlessIdle is KillJob, or no call at all (CallNone) when
	// the job has no pod left to delete: a finished job's row under
	// behavior.LeaveFinishedJobs.
	CallKillJobUnlessIdle Call = "KillJobUnlessIdle"
	// CallNone is the call of a transition that does nothing at all.
	// Execute makes no call for it.
	CallNone Call = "None"
)

// UpdateRule names a status-update function. Rules are data so that the
// table can be printed, diffed and drawn; Func turns one into code.
type UpdateRule string

// The update rules.
const (
	// UpdateRestart moves to Restarting and counts a retry.
	UpdateRestart UpdateRule = "restart"
	// UpdateAbort, UpdateComplete and UpdateTerminate move to the "-ing"
	// phase unconditionally, even with nothing left to kill.
	UpdateAbort     UpdateRule = "abort"
	UpdateComplete  UpdateRule = "complete"
	UpdateTerminate UpdateRule = "terminate"
	// UpdatePendingSync moves Pending to Running once minAvailable pods run
	// or have finished.
	UpdatePendingSync UpdateRule = "pending-sync"
	// UpdateRunningSync applies the completion rules (minSuccess, all pods
	// finished, too many pending).
	UpdateRunningSync UpdateRule = "running-sync"
	// UpdateRestarting fails the job once retries are spent, else returns
	// to Pending once enough pods are gone.
	UpdateRestarting UpdateRule = "restarting"
	// UpdateAborted, UpdateCompleted and UpdateTerminated finish the
	// "-ing" phase once no pod is pending, running or terminating.
	UpdateAborted    UpdateRule = "aborted-when-idle"
	UpdateCompleted  UpdateRule = "completed-when-idle"
	UpdateTerminated UpdateRule = "terminated-when-idle"
	// UpdateKeep changes nothing.
	UpdateKeep UpdateRule = "keep"
	// UpdateResume moves to Restarting without counting a retry: a
	// restart marked MarkKeepRetries, ResumeJob under
	// behavior.ResumeKeepsRetries.
	UpdateResume UpdateRule = "resume"
	// UpdateFail moves to Failed: a restart marked MarkFailJob.
	UpdateFail UpdateRule = "fail"
)

// AnyOtherAction in a transition matches every action that has no row of
// its own for the state.
const AnyOtherAction vcjob.Action = "*"

// Mark is what the policy extensions add to a decision (policy.Decision):
// a restart that counts no retry, or one that fails the job instead. A
// marked decision has rows of its own.
type Mark uint8

// The marks.
const (
	// MarkKeepRetries: the restart moves to Restarting without counting a
	// retry (a disrupted pod, or a restart within the retry budget).
	MarkKeepRetries Mark = 1 << iota
	// MarkFailJob: the restart is beyond the retry budget and fails the
	// job instead: a whole-job kill that keeps finished pods, then Failed.
	MarkFailJob
)

// String names the marks that are set, comma-separated.
func (m Mark) String() string {
	var names []string
	if m&MarkKeepRetries != 0 {
		names = append(names, "keep-retries")
	}
	if m&MarkFailJob != 0 {
		names = append(names, "fail-job")
	}
	return strings.Join(names, ",")
}

// MarshalText writes String.
func (m Mark) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// Transition is one row of the table: in State, Action (with the decision's
// Mark, and when the difference When is on) makes Call (with Retain for
// KillJob) and judges the new status with Update, which can lead to the
// phases in To. Rows without Mark and When are Volcano's.
type Transition struct {
	State  State            `json:"state"`
	Action vcjob.Action     `json:"action"`
	Mark   Mark             `json:"mark,omitempty"`
	When   behavior.ID      `json:"when,omitempty"`
	Call   Call             `json:"call"`
	Retain Retain           `json:"retain,omitempty"`
	Update UpdateRule       `json:"update"`
	To     []vcjob.JobPhase `json:"to,omitempty"`
}

// Table is the whole state machine: one row per (state, action) as Volcano
// decides, with an AnyOtherAction row closing each state, then the rows of
// marked decisions and the rows a difference selects.
func Table() []Transition {
	t := volcanoTable()
	return append(t, variants(t)...)
}

func volcanoTable() []Transition {
	var t []Transition
	for _, s := range []State{StatePending, StateRunning} {
		sync, to := UpdatePendingSync, []vcjob.JobPhase{vcjob.Running}
		if s == StateRunning {
			sync, to = UpdateRunningSync, []vcjob.JobPhase{vcjob.Completed, vcjob.Failed, vcjob.Pending}
		}
		t = append(t,
			row(s, vcjob.RestartJobAction, CallKillJob, RetainNone, UpdateRestart, vcjob.Restarting),
			row(s, vcjob.RestartTaskAction, CallKillTarget, "", UpdateRestart, vcjob.Restarting),
			row(s, vcjob.RestartPodAction, CallKillTarget, "", UpdateRestart, vcjob.Restarting),
			row(s, vcjob.RestartPartitionAction, CallKillTarget, "", UpdateRestart, vcjob.Restarting),
			row(s, vcjob.AbortJobAction, CallKillJob, RetainSoft, UpdateAbort, vcjob.Aborting),
			row(s, vcjob.CompleteJobAction, CallKillJob, RetainSoft, UpdateComplete, vcjob.Completing),
			row(s, vcjob.TerminateJobAction, CallKillJob, RetainSoft, UpdateTerminate, vcjob.Terminating),
			row(s, AnyOtherAction, CallSyncJob, "", sync, to...),
		)
	}
	restarting := []vcjob.JobPhase{vcjob.Failed, vcjob.Pending}
	t = append(t,
		row(StateRestarting, vcjob.SyncJobAction, CallSyncJob, "", UpdateRestarting, restarting...),
		row(StateRestarting, vcjob.RestartTaskAction, CallKillTarget, "", UpdateRestarting, restarting...),
		row(StateRestarting, vcjob.RestartPodAction, CallKillTarget, "", UpdateRestarting, restarting...),
		row(StateRestarting, vcjob.RestartPartitionAction, CallKillTarget, "", UpdateRestarting, restarting...),
		// Every other action in Restarting is a whole-job kill under the
		// restart rule, without a new retry: AbortJob here never aborts.
		row(StateRestarting, AnyOtherAction, CallKillJob, RetainNone, UpdateRestarting, restarting...),

		row(StateAborting, vcjob.ResumeJobAction, CallKillJob, RetainSoft, UpdateRestart, vcjob.Restarting),
		row(StateAborting, AnyOtherAction, CallKillJob, RetainSoft, UpdateAborted, vcjob.Aborted),
		row(StateAborted, vcjob.ResumeJobAction, CallKillJob, RetainSoft, UpdateRestart, vcjob.Restarting),
		row(StateAborted, AnyOtherAction, CallKillJob, RetainSoft, UpdateKeep),
		row(StateCompleting, AnyOtherAction, CallKillJob, RetainSoft, UpdateCompleted, vcjob.Completed),
		row(StateTerminating, AnyOtherAction, CallKillJob, RetainSoft, UpdateTerminated, vcjob.Terminated),
		// A finished job only ever kills (what is left of) its pods; every
		// such kill still bumps status.version.
		row(StateFinished, AnyOtherAction, CallKillJob, RetainSoft, UpdateKeep),
	)
	return t
}

func row(s State, a vcjob.Action, c Call, r Retain, u UpdateRule, to ...vcjob.JobPhase) Transition {
	return Transition{State: s, Action: a, Call: c, Retain: r, Update: u, To: to}
}

// variants are the rows beyond Volcano's: those of marked decisions,
// derived from Volcano's rows, then those each difference selects.
func variants(volcano []Transition) []Transition {
	var t []Transition
	for _, tr := range volcano {
		// A restart that keeps retries moves to Restarting without
		// counting one.
		if tr.Update == UpdateRestart {
			v := tr
			v.Mark, v.Update = MarkKeepRetries, UpdateResume
			t = append(t, v)
		}
	}
	for _, tr := range volcano {
		// A restart beyond the budget fails the job: a whole-job kill
		// that keeps finished pods. A sync in Restarting is no restart.
		if tr.Update == UpdateRestart || tr.Update == UpdateRestarting && tr.Call != CallSyncJob {
			v := row(tr.State, tr.Action, CallKillJob, RetainSoft, UpdateFail, vcjob.Failed)
			v.Mark = MarkFailJob
			t = append(t, v)
		}
	}
	return append(t,
		when(behavior.ResumeKeepsRetries, row(StateAborting, vcjob.ResumeJobAction, CallKillJob, RetainSoft, UpdateResume, vcjob.Restarting)),
		when(behavior.ResumeKeepsRetries, row(StateAborted, vcjob.ResumeJobAction, CallKillJob, RetainSoft, UpdateResume, vcjob.Restarting)),
		when(behavior.AbortWhileRestarting, row(StateRestarting, vcjob.AbortJobAction, CallKillJob, RetainSoft, UpdateAbort, vcjob.Aborting)),
		when(behavior.LeaveFinishedJobs, row(StateAborted, AnyOtherAction, CallKillJobUnlessIdle, RetainSoft, UpdateKeep)),
		when(behavior.LeaveFinishedJobs, row(StateFinished, AnyOtherAction, CallKillJobUnlessIdle, RetainSoft, UpdateKeep)),
	)
}

func when(id behavior.ID, tr Transition) Transition {
	tr.When = id
	return tr
}

// table is Table built once for Lookup; it is never written after
// initialisation: Table hands callers their own copy, and Lookup copies the
// one slice a row holds.
var table = Table()

// rowsOf holds each state's rows of table, in table order, so Lookup
// scans a handful.
var rowsOf = func() map[State][]Transition {
	m := map[State][]Transition{}
	for _, tr := range table {
		m[tr.State] = append(m[tr.State], tr)
	}
	return m
}()

// Lookup finds Volcano's row for action in state: its own row, or else the
// state's AnyOtherAction row.
func Lookup(state State, action vcjob.Action) Transition {
	return LookupFor(state, action, 0, behavior.Set{})
}

// LookupFor finds the row for action in state under the decision's marks
// and the job's behaviour: of the rows that fit (the action's own or
// AnyOtherAction, no mark or one of marks, no difference or one that set
// has on) the most specific, the action's own row before a mark before a
// difference, the first in the table on a tie.
func LookupFor(state State, action vcjob.Action, marks Mark, set behavior.Set) Transition {
	var found *Transition
	best := -1
	rows := rowsOf[state]
	for i := range rows {
		tr := &rows[i]
		score := 0
		switch tr.Action {
		case action:
			score += 4
		case AnyOtherAction:
		default:
			continue
		}
		if tr.Mark != 0 {
			if marks&tr.Mark == 0 {
				continue
			}
			score += 2
		}
		if tr.When != 0 {
			if !set.Has(tr.When) {
				continue
			}
			score++
		}
		if score > best {
			found, best = tr, score
		}
	}
	if found == nil {
		return Transition{}
	}
	out := *found
	out.To = slices.Clone(out.To) // the caller's own: the table stays as it is
	return out
}
