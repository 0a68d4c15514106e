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
// Lint (and LintCronJob) report what Volcano will do that the author did
// not mean, including what Volcano's admission accepts but will not work:
// package validation says only what Volcano says, and each check stricter
// than Volcano's is a finding here, with a stable code (Checks).
//
// The policy extensions (Extensions, from the vcjob.dev/policy
// annotation or ResolveWith) come after the stale-version rule: a disrupted
// pod restarts without a retry, then exit-code sets and ranges; Stateful
// applies the escalation and the retry budget from a History the caller
// keeps. Compare lists where a semantics profile decides otherwise than
// Volcano.
//
//	d := policy.ResolveWith(job, req, ext)
//	d = policy.Stateful(ext, history, d, req, now)
package policy
