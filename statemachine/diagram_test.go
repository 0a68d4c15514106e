package statemachine_test

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/vcjob/vcjob/statemachine"
)

var update = flag.Bool("update", false, "rewrite the state diagram in docs/state-machine.md")

const (
	diagramBegin = "<!-- BEGIN state diagram"
	diagramEnd   = "<!-- END state diagram -->"
)

// TestDocsStateDiagram keeps the picture in docs/state-machine.md equal
// to the table.
func TestDocsStateDiagram(t *testing.T) {
	const path = "../docs/state-machine.md"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	begin := strings.Index(readme, diagramBegin)
	end := strings.Index(readme, diagramEnd)
	if begin < 0 || end < begin {
		t.Fatalf("%s: no %q ... %q block", path, diagramBegin, diagramEnd)
	}
	headerEnd := begin + strings.Index(readme[begin:], "\n") + 1
	want := "```mermaid\n" + statemachine.Mermaid() + "```\n"
	if got := readme[headerEnd:end]; got != want {
		if !*update {
			t.Fatalf("%s: the state diagram is stale; run: go test ./statemachine -run TestDocsStateDiagram -update\n--- docs\n%s\n--- table\n%s", path, got, want)
		}
		if err := os.WriteFile(path, []byte(readme[:headerEnd]+want+readme[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMermaidDrawsEveryPhase(t *testing.T) {
	m := statemachine.Mermaid()
	for _, edge := range []string{
		"Pending --> Running: other (SyncJob)",
		"Running --> Restarting: RestartJob, RestartTask, RestartPod, RestartPartition",
		"Aborted --> Restarting: ResumeJob",
		"Completing --> Completed: other (KillJob)",
		"Terminating --> Terminated: other (KillJob)",
		"Failed --> [*]",
	} {
		if !strings.Contains(m, edge) {
			t.Errorf("diagram lacks %q:\n%s", edge, m)
		}
	}
}
