package statemachine

import (
	"slices"

	"github.com/vcjob/vcjob"
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
)

// AnyOtherAction in a transition matches every action that has no row of
// its own for the state.
const AnyOtherAction vcjob.Action = "*"

// Transition is one row of the table: in State, Action makes Call (with
// Retain for KillJob) and judges the new status with Update, which can
// lead to the phases in To.
type Transition struct {
	State  State            `json:"state"`
	Action vcjob.Action     `json:"action"`
	Call   Call             `json:"call"`
	Retain Retain           `json:"retain,omitempty"`
	Update UpdateRule       `json:"update"`
	To     []vcjob.JobPhase `json:"to,omitempty"`
}

// Table is the whole state machine, one row per (state, action), with an
// AnyOtherAction row closing each state.
func Table() []Transition {
	var t []Transition
	for _, s := range []State{StatePending, StateRunning} {
		sync, to := UpdatePendingSync, []vcjob.JobPhase{vcjob.Running}
		if s == StateRunning {
			sync, to = UpdateRunningSync, []vcjob.JobPhase{vcjob.Completed, vcjob.Failed, vcjob.Pending}
		}
		t = append(t,
			Transition{s, vcjob.RestartJobAction, CallKillJob, RetainNone, UpdateRestart, []vcjob.JobPhase{vcjob.Restarting}},
			Transition{s, vcjob.RestartTaskAction, CallKillTarget, "", UpdateRestart, []vcjob.JobPhase{vcjob.Restarting}},
			Transition{s, vcjob.RestartPodAction, CallKillTarget, "", UpdateRestart, []vcjob.JobPhase{vcjob.Restarting}},
			Transition{s, vcjob.RestartPartitionAction, CallKillTarget, "", UpdateRestart, []vcjob.JobPhase{vcjob.Restarting}},
			Transition{s, vcjob.AbortJobAction, CallKillJob, RetainSoft, UpdateAbort, []vcjob.JobPhase{vcjob.Aborting}},
			Transition{s, vcjob.CompleteJobAction, CallKillJob, RetainSoft, UpdateComplete, []vcjob.JobPhase{vcjob.Completing}},
			Transition{s, vcjob.TerminateJobAction, CallKillJob, RetainSoft, UpdateTerminate, []vcjob.JobPhase{vcjob.Terminating}},
			Transition{s, AnyOtherAction, CallSyncJob, "", sync, to},
		)
	}
	restarting := []vcjob.JobPhase{vcjob.Failed, vcjob.Pending}
	t = append(t,
		Transition{StateRestarting, vcjob.SyncJobAction, CallSyncJob, "", UpdateRestarting, restarting},
		Transition{StateRestarting, vcjob.RestartTaskAction, CallKillTarget, "", UpdateRestarting, restarting},
		Transition{StateRestarting, vcjob.RestartPodAction, CallKillTarget, "", UpdateRestarting, restarting},
		Transition{StateRestarting, vcjob.RestartPartitionAction, CallKillTarget, "", UpdateRestarting, restarting},
		// Every other action in Restarting is a whole-job kill under the
		// restart rule, without a new retry: AbortJob here never aborts.
		Transition{StateRestarting, AnyOtherAction, CallKillJob, RetainNone, UpdateRestarting, restarting},

		Transition{StateAborting, vcjob.ResumeJobAction, CallKillJob, RetainSoft, UpdateRestart, []vcjob.JobPhase{vcjob.Restarting}},
		Transition{StateAborting, AnyOtherAction, CallKillJob, RetainSoft, UpdateAborted, []vcjob.JobPhase{vcjob.Aborted}},
		Transition{StateAborted, vcjob.ResumeJobAction, CallKillJob, RetainSoft, UpdateRestart, []vcjob.JobPhase{vcjob.Restarting}},
		Transition{StateAborted, AnyOtherAction, CallKillJob, RetainSoft, UpdateKeep, nil},
		Transition{StateCompleting, AnyOtherAction, CallKillJob, RetainSoft, UpdateCompleted, []vcjob.JobPhase{vcjob.Completed}},
		Transition{StateTerminating, AnyOtherAction, CallKillJob, RetainSoft, UpdateTerminated, []vcjob.JobPhase{vcjob.Terminated}},
		// A finished job only ever kills (what is left of) its pods; every
		// such kill still bumps status.version.
		Transition{StateFinished, AnyOtherAction, CallKillJob, RetainSoft, UpdateKeep, nil},
	)
	return t
}

// table is Table built once for Lookup; it is never written after
// initialisation: Table hands callers their own copy, and Lookup copies the
// one slice a row holds.
var table = Table()

// rowsOf holds each state's rows of table, so Lookup scans a handful.
var rowsOf = func() map[State][]Transition {
	m := map[State][]Transition{}
	for i := 0; i < len(table); {
		j := i
		for j < len(table) && table[j].State == table[i].State {
			j++
		}
		m[table[i].State] = table[i:j:j]
		i = j
	}
	return m
}()

// Lookup finds the row for action in state: its own row, or else the
// state's AnyOtherAction row.
func Lookup(state State, action vcjob.Action) Transition {
	var found *Transition
	rows := rowsOf[state]
	for i := range rows {
		tr := &rows[i]
		if tr.Action == action {
			found = tr
			break
		}
		if tr.Action == AnyOtherAction {
			found = tr
		}
	}
	if found == nil {
		return Transition{}
	}
	out := *found
	out.To = slices.Clone(out.To) // the caller's own: the table stays as it is
	return out
}
