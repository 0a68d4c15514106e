package statemachine

import (
	"reflect"
	"testing"

	"github.com/vcjob/vcjob"
)

// TestRowsOfHoldsEveryRow: Lookup scans rowsOf, which must hold each
// state's rows exactly as the table lists them, wherever they stand.
func TestRowsOfHoldsEveryRow(t *testing.T) {
	want := map[State][]Transition{}
	for _, tr := range Table() {
		want[tr.State] = append(want[tr.State], tr)
	}
	if len(rowsOf) != len(want) {
		t.Fatalf("rowsOf has %d states, the table %d", len(rowsOf), len(want))
	}
	for state, rows := range want {
		if !reflect.DeepEqual(rowsOf[state], rows) {
			t.Errorf("state %s: rowsOf holds %v, the table %v", state, rowsOf[state], rows)
		}
	}
}

// TestLookupMatchesAScan checks Lookup against a scan of the whole table
// for every state and every action, known or not.
func TestLookupMatchesAScan(t *testing.T) {
	actions := []vcjob.Action{"NoSuchAction", ""}
	for _, tr := range Table() {
		actions = append(actions, tr.Action)
	}
	for _, state := range []State{StatePending, StateRunning, StateRestarting, StateAborting, StateAborted, StateCompleting, StateTerminating, StateFinished, "NoSuchState"} {
		for _, action := range actions {
			var want, fallback Transition
			found := false
			for _, tr := range Table() {
				if tr.Mark != 0 || tr.When != 0 {
					continue // Lookup is Volcano's
				}
				if tr.State == state && tr.Action == action && !found {
					want, found = tr, true
				}
				if tr.State == state && tr.Action == AnyOtherAction {
					fallback = tr
				}
			}
			if !found {
				want = fallback
			}
			if got := Lookup(state, action); !reflect.DeepEqual(got, want) {
				t.Errorf("Lookup(%s, %s) = %+v, want %+v", state, action, got, want)
			}
		}
	}
}

// TestLookupHandsOutACopy: changing a transition Lookup returned leaves
// the table as it was.
func TestLookupHandsOutACopy(t *testing.T) {
	tr := Lookup(StateRunning, vcjob.SyncJobAction)
	want := append([]vcjob.JobPhase(nil), tr.To...)
	for i := range tr.To {
		tr.To[i] = "Changed"
	}
	if again := Lookup(StateRunning, vcjob.SyncJobAction); !reflect.DeepEqual(again.To, want) {
		t.Fatalf("the table changed with a caller's copy: %v, want %v", again.To, want)
	}
}
