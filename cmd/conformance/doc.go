// Command conformance replays Volcano's recorded controller steps through
// vcjob and reports every case where vcjob decides or writes differently.
//
//	go run ./cmd/conformance [-v] [-areas] [-via direct|step] [-recount] FILE.jsonl...
//
// A file holds one kind of case, told from its first line: job-controller
// steps, multi-step scenarios (FORMAT-steps.md: "script" and
// "podGroupPhase" keys), CronJob syncs (FORMAT-cron.md: a "cronJob" key)
// or garbage collector decisions (FORMAT-ttl.md: a "fresh" key).
//
// For job-controller steps it reads v1 cases (FORMAT.md: the decision, the status, the names,
// labels and annotations of created pods), v2 cases (FORMAT-v2.md:
// every object a SyncJob writes: whole pods, plugin objects, the PodGroup
// and its minResources, claims, controlledResources, the job's spec
// written back) and v3 cases (FORMAT-v3.md: v2 and the Kubernetes Events
// recorded) alike, and compares v2 objects after FORMAT-v2.md's
// normalisation; a pod matches any of its recorded variants. A v3 case's
// Events are compared in order: through the step, the record's Events
// must be processNextReqEvents followed by events; directly, the call's
// must be events and the decision's processNextReqEvents. With -areas it
// prints, before the last line, how many v2 and v3 cases each area gets
// right (events out of the cases that carry them), and as many for the
// other kinds.
//
// A multi-step scenario is always played as a controller runs it: the job
// and its pods in the in-memory cluster and a job cache, the PodGroup in
// its phase, a worker step with a delay queue on a virtual clock. A pod
// change goes to the cluster and, through the cache's handlers, to the
// cache, then the step's recorded request (as Volcano's handler queued
// it) is processed; an advance fires what falls due, in due order, each
// at its due time. Pods created and deleted and the job's status written
// are fed back to the cache after each step and each fire, as informers
// would; the requests they raise are not processed, as in the recording.
// Every field of every step's expectation is compared (-areas counts the
// cases right in each); a failure names the step and the field. Where
// vcjob's cache derives another request for a pod change than the
// recorded one, the runner counts it by kind (-v: each), without failing
// the case: the recording's evictions leave the pod in the cache (a
// Failed pod, reason Evicted) and some of its changes leave the pod's
// phase as it was, where Volcano's own handler would not queue the
// recorded request either.
//
// Files recorded at Volcano releases add three fields. expectAlternatives
// (on a case) are outcomes Volcano produces with equal right: a job case
// matches expect or any alternative (each an expect object), a scenario
// expect or any alternative list (each one expectation per step). panic
// on a step's expectation means Volcano's code panicked there: the step
// is expected to be an error, and vcjob, which returns errors and never
// panics, matches it only when its step returns one, so a crash Volcano
// fixed later counts as that release's difference. webhook on a job case
// is the release's admission verdict; the case's expect is still what the
// controller does with the job stored anyway, so the case is replayed as
// usual and the refusals are only counted ("webhook refusals recorded").
//
// With -via step each case is loaded into a job cache and run through the
// worker's processing step (policy, delays, state machine), as a controller
// runs it; the default runs the policy and the state machine directly.
// With -recount the plans walk every pod, as Volcano's controller does,
// instead of reading the counts the job info keeps: the oracle the counted
// plans must agree with.
//
// It prints one line per mismatching case (its name, where it is and the
// first difference) and ends with "N passed, M failed". It exits 1 when a
// case fails or no case was found, and 2 when a file cannot be read or a
// line is not a case (unknown keys included).
//
// # Where things are
//
//	main.go          the flags, runFile: job-controller steps, line by line; the -areas tally
//	kinds.go         sniffKind, runAnyFile: a file's kind from its first case
//	open.go          openVectors: plain or gzipped files
//	vector.go        Case, Expect, Status, PodMeta: a job-controller step as recorded (FORMAT.md)
//	replay.go        Replay: a case directly or through worker.Step; Diff: the v1 comparison
//	controller.go    a job held in a cluster, a cache and a worker step; the feedback of changes
//	v2.go            the v2 and v3 areas, FORMAT-v2.md's normalisation, diffEvents
//	steps.go         multi-step scenarios: decoding, replay on a virtual clock, comparison (FORMAT-steps.md)
//	cron.go          runCronFile, diffCron: CronJob syncs through cronjob.Decide (FORMAT-cron.md)
//	ttl.go           runTTLFile, replayTTL, diffTTL: garbage collector decisions through package ttl
//	*_test.go        the public vectors of each kind pass, and each diff sees every area
//	shared_test.go   the copies in testdata are the recorded files
//	testdata         the public vectors and their FORMAT files
package main
