// Package policy resolves a request to what Volcano's job controller does
// about it: an action, a delay before it runs, the target it acts on, and
// the rule that decided it, so that a caller can explain every decision.
//
// The rules are tried in order and the first hit wins: a command's action;
// internal events (OutOfSync, CommandIssued, PodRunning) sync; a request for
// another incarnation of the job (other UID) or an older job version
// (stale) syncs; then the task's policies, then the job's; nothing matched
// syncs.
//
//	d := policy.Resolve(job, req)
//	fmt.Println(d.Action, d.Delay, d.Rule) // RestartPod 0s task "worker" policy 1
//
// What the author of a job may not have meant (lint), the table of every
// request a job can see (explain) and the comparison of profiles are
// package lint's: this package owns request → decision alone.
//
// The policy extensions (Extensions, from the vcjob.dev/policy
// annotation or ResolveWith) come after the stale-version rule: a disrupted
// pod restarts without a retry, then exit-code sets and ranges; Stateful
// applies the escalation and the retry budget from a History the caller
// keeps.
//
//	d := policy.ResolveWith(job, req, ext)
//	d = policy.Stateful(ext, history, d, req, now)
//
// # Where things are
//
//	resolve.go                    Resolve, ResolveWith, Decision, Rule: request to decision, rule by rule
//	extensions.go                 Extensions, the vcjob.dev/policy annotation (ExtensionsOf, ValidateExtensions), Disrupted
//	history.go                    History, Stateful, NeedsHistory: the retry budget and the escalation
//	*_test.go                     a table test beside each file; extensions_document_test.go: the annotation's document
//	extensions_document_test.go   also TestBackoffWaitProperties (rapid)
//	extensions_fuzz_test.go       FuzzDecodeExtensions
package policy
