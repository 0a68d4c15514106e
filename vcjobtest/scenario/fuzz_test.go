package scenario

import (
	"strings"
	"testing"
)

// Parse never panics, and what it accepts names lines of the script.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"podgroup Inqueue\nstart all\nfail worker-1 137\n",
		"advance 10m # comment\n\nscale worker 3\ncommand AbortJob\n",
		"restart worker-* 2\nadvance 10 minutes\n",
		"fail\n", "advance -1s\n", "podgroup\tRunning\n", "podgroup Inqueue relisted\n", "controller restart held\n", "\x00\n#",
	} {
		f.Add(seed)
	}
	for _, v := range verbs() {
		f.Add(v.example + "\n")
	}
	f.Fuzz(func(t *testing.T, script string) {
		cmds, err := Parse(strings.NewReader(script))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "line ") && !strings.Contains(err.Error(), "token too long") {
				t.Fatalf("an error that names no line: %v", err)
			}
			return
		}
		lines := strings.Count(script, "\n") + 1
		for _, c := range cmds {
			if c.Line < 1 || c.Line > lines || c.Text == "" {
				t.Fatalf("command %+v of a script of %d lines", c, lines)
			}
		}
	})
}
