package scenario

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"
)

// A Command is one line of a scenario script.
type Command struct {
	Line int    // in the script, from 1
	Text string // the line without its comment
	verb string
	// op is the verb's entry in the table (verbs), nil for a Command
	// Parse did not make.
	op   *verb
	pods string // a pod, "all", or "TASK-*"
	n    int32  // exit code or restart count
	d    time.Duration
	word string // PodGroup phase, action, task
	// relisted: the PodGroup's phase change is lost with a cut watch and
	// the relist shows the PodGroup as new (an add).
	relisted bool
	// held: the requests a controller restart's list raises wait for the
	// next command's changes.
	held bool
}

// Parse reads a scenario script; an error names the line.
func Parse(r io.Reader) ([]Command, error) {
	var out []Command
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		text := strings.TrimSpace(sc.Text())
		if i := strings.Index(text, "#"); i >= 0 {
			text = strings.TrimSpace(text[:i])
		}
		if text == "" {
			continue
		}
		c, err := parseLine(text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %q: %w", n, text, err)
		}
		c.Line, c.Text = n, text
		out = append(out, c)
	}
	return out, sc.Err()
}

// parseLine parses one command: its verb, then the arguments the verb
// takes (the verb's parse).
func parseLine(text string) (Command, error) {
	f := strings.Fields(text)
	c := Command{verb: f[0], op: lookupVerb(f[0])}
	if c.op == nil {
		return c, fmt.Errorf("unknown command %q\n%s", c.verb, Usage())
	}
	return c, c.op.parse(&c, f[1:])
}
