package podgroup

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFind(t *testing.T) {
	boom := errors.New("boom")
	j := job(1, task("a", 1, nil, "", "cpu=1")) // name "train", uid "uid-1"

	tests := []struct {
		name      string
		stored    map[string]string // name → PodGroup (a string stands in)
		failOn    string            // get fails for this name
		want      string
		wantFound bool
		wantErr   error
		wantAsked []string
	}{
		{"the new name", map[string]string{"train-uid-1": "new", "train": "legacy"}, "", "new", true, nil, []string{"train-uid-1"}},
		{"the legacy name when the new one is missing", map[string]string{"train": "legacy"}, "", "legacy", true, nil, []string{"train-uid-1", "train"}},
		{"neither", map[string]string{"other": "x"}, "", "", false, nil, []string{"train-uid-1", "train"}},
		{"an error on the new name: no fallback", map[string]string{"train": "legacy"}, "train-uid-1", "", false, boom, []string{"train-uid-1"}},
		{"an error on the legacy name", map[string]string{}, "train", "", false, boom, []string{"train-uid-1", "train"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			get := func(name string) (string, bool, error) {
				asked = append(asked, name)
				if name == tt.failOn {
					return "", false, boom
				}
				pg, ok := tt.stored[name]
				return pg, ok, nil
			}
			got, found, err := Find(j, get)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantFound, found)
			assert.ErrorIs(t, err, tt.wantErr)
			if tt.wantErr == nil {
				assert.NoError(t, err)
			}
			assert.Equal(t, tt.wantAsked, asked)
		})
	}
}
