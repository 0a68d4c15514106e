package record

import "testing"

func TestEventConstructors(t *testing.T) {
	for _, tc := range []struct {
		got  Event
		want string
	}{
		{Normalf("SuccessfulCreate", "Created job %v", "a-1"), "Normal SuccessfulCreate Created job a-1"},
		{Warningf("FailedDelete", "Error deleting: %v", "boom"), "Warning FailedDelete Error deleting: boom"},
		{Event{Type: Normal, Reason: "R", Message: "100%"}, "Normal R 100%"},
	} {
		if s := tc.got.String(); s != tc.want {
			t.Errorf("got %q, want %q", s, tc.want)
		}
	}
}
