// Command lint reports what Volcano will do with a job that its author
// probably does not expect, and answers "what happens if…" for every
// event: dead and shadowed policies, restarts that kill nothing, timeouts
// that never fire, completion rules that cannot be met.
//
//	go run ./cmd/lint JOB.yaml...              # findings and the explain table
//	go run ./cmd/lint -explain=false JOB.yaml  # findings only
//	go run ./cmd/lint -o json JOB.yaml         # one JSON object per job
//	go run ./cmd/lint -allow-unknown-fields JOB.yaml
//
// Each file may hold several jobs and CronJobs ("---" separated). Lint
// reads each job as written; the fields Volcano's webhook would default are
// listed (and validated), and the explain table is computed on the
// defaulted job, which is what the controller runs. A CronJob is validated
// as a whole and its job template is linted as the Job each run creates.
//
// Decoding is strict: a field the types do not know is an error naming it.
// An API server with Volcano's CRD drops such fields silently instead;
// -allow-unknown-fields does the same and lists what it dropped.
//
// Exit status: 2 when a file cannot be read or decoded or a job is
// invalid, else 1 when any finding is an error, else 0.
package main
