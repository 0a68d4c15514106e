// Command conformance replays Volcano's recorded controller steps through
// vcjob and reports every case where vcjob decides or writes differently.
//
//	go run ./cmd/conformance [-v] [-areas] [-via direct|step] [-recount] FILE.jsonl...
//
// A file holds one kind of case, told from its first line: job-controller
// steps, CronJob syncs (FORMAT-cron.md: a "cronJob" key) or garbage
// collector decisions (FORMAT-ttl.md: a "fresh" key).
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
// right (events out of the cases that carry them).
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
//	v2.go            the v2 and v3 areas, FORMAT-v2.md's normalisation, diffEvents
//	cron.go          runCronFile, diffCron: CronJob syncs through cronjob.Decide (FORMAT-cron.md)
//	ttl.go           runTTLFile, replayTTL, diffTTL: garbage collector decisions through package ttl
//	*_test.go        the public vectors of each kind pass, and each diff sees every area
//	shared_test.go   the copies in testdata are the recorded files
//	testdata         the public vectors and their FORMAT files
package main
