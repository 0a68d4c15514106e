package statemachine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/vcjob/vcjob"
)

// Mermaid draws Table as a Mermaid state diagram: one edge per phase change
// a transition can make, labelled with the actions that make it. The
// README's diagram is generated from it, so the picture cannot drift from
// the code.
func Mermaid() string {
	type edge struct{ from, to string }
	labels := map[edge][]string{}
	for _, tr := range Table() {
		if tr.Mark != 0 || tr.When != 0 {
			continue // Volcano's machine only
		}
		for _, from := range phasesOf(tr.State) {
			for _, to := range tr.To {
				if to == from {
					continue
				}
				e := edge{string(from), string(to)}
				label := string(tr.Action)
				if tr.Action == AnyOtherAction {
					label = "other (" + string(tr.Call) + ")"
				}
				labels[e] = append(labels[e], label)
			}
		}
	}
	edges := make([]edge, 0, len(labels))
	for e := range labels {
		edges = append(edges, e)
	}
	order := map[string]int{}
	for i, p := range vcjob.Phases() {
		order[string(p)] = i
	}
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].from != edges[j].from {
			return order[edges[i].from] < order[edges[j].from]
		}
		return order[edges[i].to] < order[edges[j].to]
	})
	var b strings.Builder
	b.WriteString("stateDiagram-v2\n")
	b.WriteString("    [*] --> Pending\n")
	for _, e := range edges {
		fmt.Fprintf(&b, "    %s --> %s: %s\n", e.from, e.to, strings.Join(labels[e], ", "))
	}
	for _, p := range []vcjob.JobPhase{vcjob.Completed, vcjob.Terminated, vcjob.Failed} {
		fmt.Fprintf(&b, "    %s --> [*]\n", p)
	}
	return b.String()
}

// phasesOf lists the phases a state stands for.
func phasesOf(s State) []vcjob.JobPhase {
	if s == StateFinished {
		return []vcjob.JobPhase{vcjob.Completed, vcjob.Terminated, vcjob.Failed}
	}
	return []vcjob.JobPhase{vcjob.JobPhase(s)}
}
