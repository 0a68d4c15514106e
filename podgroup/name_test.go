package podgroup

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNames(t *testing.T) {
	j := job(1)
	assert.Equal(t, "train-uid-1", Name(j))
	assert.Equal(t, "train", LegacyName(j))
}

func TestReconcilesPods(t *testing.T) {
	tests := []struct {
		phase  Phase
		exists bool
		want   bool
	}{
		{"", false, false},
		{PhaseRunning, false, false},
		{"", true, false},
		{PhasePending, true, false},
		{PhaseInqueue, true, true},
		{PhaseRunning, true, true},
		{PhaseUnknown, true, true},
		{PhaseCompleted, true, true},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ReconcilesPods(tt.phase, tt.exists), "phase %q exists %v", tt.phase, tt.exists)
	}
}
