// Package lint says what Volcano will do to a job that its author may not
// have meant, and shows every decision the job can meet.
//
// Package validation says only what Volcano's admission says; each check
// stricter than that, and each surprise of Volcano's semantics, is a
// Finding here with a stable code (Checks lists them):
//
//	for _, f := range lint.Lint(job) { // job as written, before defaults
//		fmt.Println(f) // warning spec.tasks[0].policies[0]: [restart-pod-on-evicted] ...
//	}
//	fmt.Print(lint.Explain(job).Text()) // every (task, event, exit code) and what it resolves to
//	for _, d := range lint.Compare(job, behavior.Corrected()) {
//		fmt.Println(d) // a request a correction decides otherwise than Volcano
//	}
//
// LintCronJob does the same for a CronJob, its schedule and its job
// template; DefaultsApplied lists what Volcano's mutating webhook changed,
// one line per field, for a reader.
//
// # Where things are
//
//	lint.go                the checks, Lint and the policy walk
//	lint_analysis.go       what every policy of a job fires on (shared by Lint and Explain)
//	lint_admission.go      findings stricter than admission: exit codes, topology, pod names, CronJobs
//	lint_ttl.go            ttlSecondsAfterFinished findings
//	explain.go             Explain: the decision table of a job
//	explain_extensions.go  the rows and notes the policy extensions add
//	compare.go             Compare: where a profile decides otherwise; the annotations' findings
//	defaults_applied.go    DefaultsApplied
package lint
