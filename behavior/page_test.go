package behavior_test

import (
	"fmt"
	"strings"

	"github.com/vcjob/vcjob/behavior"
)

// page renders docs/differences.md from the registry.
func page() string {
	var b strings.Builder
	b.WriteString(pageHead)
	for _, k := range []struct {
		kind  behavior.Kind
		title string
		intro string
	}{
		{behavior.Correction, "Corrections", correctionsIntro},
		{behavior.Extension, "Policy extensions", extensionsIntro},
		{behavior.Choice, "Choices", choicesIntro},
	} {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", k.title, k.intro)
		var kind []behavior.Entry
		for _, e := range behavior.Registry() {
			if e.Kind == k.kind {
				kind = append(kind, e)
			}
		}
		b.WriteString("\n| difference | under Volcano | with it | upstream |\n|---|---|---|---|\n")
		for _, e := range kind {
			fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s |\n", e.Name, e.Name, cell(e.Volcano), cell(e.With), e.Upstream)
		}
		for _, e := range kind {
			fmt.Fprintf(&b, "\n### %s\n\n", e.Name)
			if e.Detail != "" {
				b.WriteString(wrap(e.Detail) + "\n\n")
			}
			if e.Enable != "" {
				fmt.Fprintf(&b, "- Asked for with: `%s`\n", e.Enable)
			}
			fmt.Fprintf(&b, "- Owner: `%s`\n", e.Owner)
			tests := make([]string, len(e.Tests))
			for i, t := range e.Tests {
				tests[i] = "`" + t + "`"
			}
			fmt.Fprintf(&b, "- Tests: %s\n", strings.Join(tests, ", "))
		}
	}
	b.WriteString(pageTail)
	return b.String()
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// wrap breaks s into lines of at most 72 characters.
func wrap(s string) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len(line)+1+len(w) > 72 {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return strings.Join(append(lines, line), "\n")
}

const pageHead = `<!-- Generated from package behavior's registry: do not edit.
     go test ./behavior -run TestDifferencesPageIsGenerated -update -->

# Where vcjob differs from Volcano, on request

By default vcjob decides and writes what Volcano does. Every difference is
one entry of one registry (` + "`behavior.Registry`" + `), with what Volcano
does, what the difference does, the upstream report, the code that owns it
and the tests that pin it; this page is generated from it, and a test fails
when an owner or a test it names no longer exists.

There are three kinds:

- **corrections** of Volcano behaviour that looks like a bug, off by
  default: a ` + "`behavior.Set`" + ` turns them on, for the embedder or for one job;
- **policy extensions**, lifecycle policies Volcano lacks, asked for by a
  job's ` + "`vcjob.dev/policy`" + ` annotation;
- **choices** in what vcjob writes or how it runs, asked for by the
  embedder through an option.
`

const correctionsIntro = `The embedder's ` + "`behavior.Set`" + ` (` + "`worker.Step`" + ` and ` + "`statemachine.Applied`" + `
take it as ` + "`Behavior`" + `, ` + "`cache.Cache`" + ` too) is the zero Set for
Volcano's decisions, ` + "`behavior.Corrected()`" + ` for all corrections, or
` + "`behavior.Of(...)`" + ` for some. A job changes it with the annotation
` + "`vcjob.dev/semantics`" + `: words applied in order on top of the embedder's,
` + "`volcano`" + `, ` + "`corrected`" + `, a correction's name, or ` + "`-name`" + ` to turn one off
(` + "`behavior.Parse`" + `). An annotation that does not parse is ignored by
decisions and reported by ` + "`lint.Lint`" + `.

The state machine's variants are rows of its table
(` + "`statemachine.Table`" + `), each tagged with the correction that selects it;
the other corrections each live in the function named as their owner, which
the code of a job that does not ask for them never enters.`

const extensionsIntro = "One annotation, `vcjob.dev/policy`, holds a small document\n" +
	"(`policy.Extensions`, decoded strictly by `policy.DecodeExtensions` and\n" +
	"validated with paths into the document by\n" +
	"`policy.ValidateExtensionsAnnotation`), or Go passes it\n" +
	"(`policy.ResolveWith`, `statemachine.Applied.Extensions`):\n\n" +
	"```yaml\n" +
	"metadata:\n" +
	"  annotations:\n" +
	"    vcjob.dev/policy: |\n" +
	"      exitCodes:                       # tried after a disruption, before the job's own policies\n" +
	"        - {task: worker, operator: In, values: [\"128-255\"], action: RestartPod}\n" +
	"        - {operator: NotIn, values: [\"0\", \"42\"], action: TerminateJob}\n" +
	"      disruptions: {action: RestartJob}  # DisruptionTarget pods restart without a retry\n" +
	"      deadline: {after: 6h, action: TerminateJob}\n" +
	"      restartBackoff: {base: 10s, max: 5m, jitterPercent: 20}\n" +
	"      retryBudget: {restarts: 3, window: 1h}\n" +
	"      escalation: {restartPod: 2, restartTask: 1}\n" +
	"```\n\n" +
	"The budget and the escalation need memory Volcano does not keep (it has\n" +
	"only `retryCount`): `policy.History`, which `worker.Step` keeps per job\n" +
	"in memory (`Step.History`, `ForgetHistory`). Delayed actions that fire\n" +
	"do not go through them. A restart the extensions mark (one that keeps\n" +
	"retries, one that fails the job) is a row of the transition table of its\n" +
	"own (`statemachine.MarkKeepRetries`, `statemachine.MarkFailJob`)."

const choicesIntro = `Each is an option of the package that writes the object, off by default.
The example controller adds two flags of its own, ` + "`--coalesce-status`" + ` and
` + "`--ordered-retries`" + ` (its README says what they do).`

const pageTail = `
## Seeing the difference

` + "`go run ./cmd/simulate -job JOB.yaml -semantics corrected SCENARIO`" + ` runs a
scenario under a Set; ` + "`-compare`" + ` runs it under Volcano's and the chosen one
(all corrections by default) and prints where they first diverge, then both
transcripts. The scenarios in ` + "`vcjobtest/scenario/testdata/semantics/`" + ` pin
one comparison per correction. ` + "`lint.Compare(job, set)`" + ` lists, row by row
of ` + "`lint.Explain`" + `, where a Set decides otherwise (the lint tool prints it
with ` + "`-semantics corrected`" + `). The exhaustive explorer
(` + "`vcjobtest/exhaustive`" + `, ` + "`TestExploreCorrected`" + `) and the rapid properties
(` + "`TestPropertyInvariantsCorrected`" + `: random Sets) run the invariants under
the corrections.
`
