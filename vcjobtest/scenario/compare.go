package scenario

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
)

// Compare is the report of the simulator's -compare: the first line where
// the text transcripts under Volcano's semantics and under sem differ,
// with the script line it follows, then each transcript whole. A run that
// fails ends its transcript with the error. Volcano's own semantics as
// sem stand for the corrected ones.
func Compare(job *vcjob.Job, script []Command, sem behavior.Set) string {
	sem = compareAgainst(sem)
	run := func(s behavior.Set) []string {
		var out bytes.Buffer
		if err := RunWith(job, script, NewText(&out), Options{Behavior: s}); err != nil {
			fmt.Fprintf(&out, "error: %v\n", err)
		}
		return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	}
	volcano, other := run(behavior.Set{}), run(sem)
	var b strings.Builder
	i := 0
	for i < len(volcano) && i < len(other) && volcano[i] == other[i] {
		i++
	}
	if i == len(volcano) && i == len(other) {
		fmt.Fprintf(&b, "== volcano and %s agree\n", sem)
	} else {
		after := "the start"
		for j := i - 1; j >= 0; j-- {
			if strings.HasPrefix(volcano[j], "> ") {
				after = fmt.Sprintf("%q", volcano[j])
				break
			}
		}
		fmt.Fprintf(&b, "== first divergence at line %d, after %s\n", i+1, after)
		at := func(lines []string) string {
			if i < len(lines) {
				return lines[i]
			}
			return "(transcript ends)"
		}
		fmt.Fprintf(&b, "  volcano:   %s\n  %s: %s\n", strings.TrimSpace(at(volcano)), sem, strings.TrimSpace(at(other)))
	}
	for _, t := range []struct {
		name  string
		lines []string
	}{{"volcano", volcano}, {sem.String(), other}} {
		fmt.Fprintf(&b, "== %s\n%s\n", t.name, strings.Join(t.lines, "\n"))
	}
	return b.String()
}

// compareAgainst is the semantics Compare sets against Volcano's: sem,
// or the corrected semantics when sem is Volcano's own, which would only
// agree with itself.
func compareAgainst(sem behavior.Set) behavior.Set {
	if sem.IsVolcano() {
		return behavior.Corrected()
	}
	return sem
}
