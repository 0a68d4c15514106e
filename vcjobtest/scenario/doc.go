// Package scenario runs a Volcano job through a script of what happens in
// the cluster (pods start, fail, are evicted; the scheduler admits the
// PodGroup; commands; time passes) with the real pipeline: memcluster's
// change feed into the cache's handlers, the worker step, delayed actions
// on a fake clock, the state machine and the plugins, and Volcano's
// garbage collector for spec.ttlSecondsAfterFinished (package ttl). It is
// the engine of cmd/simulate, for programs that want the records
// themselves:
//
//	job, err := scenario.Load(manifest, "") // decode, default, validate
//	script, err := scenario.Parse(strings.NewReader("podgroup Inqueue\nstart all\nfail worker-1 137\n"))
//	err = scenario.Run(job, script, scenario.NewText(os.Stdout))
//
// An Observer receives every command, step record, cluster change and
// PodGroup phase, the Kubernetes Events recorded outside a step, and each
// requeue of a failed step; cmd/internal/timeline is one that draws them. One
// that is also a GCObserver receives each look of the garbage collector
// and the delete it sends.
//
// Perturb plays a scenario with the controller under a perturbation of
// package perturb (a crash after an Applier call, a lagging cache, a
// lost state of a pod or PodGroup) and drains the job after the script;
// TestPerturbation plays every scenario file that way against the table
// of Volcano's behaviours in testdata/perturbation.md.
//
// The simulated controller requeues a failed step as Volcano's work queue
// does (MaxRequeue times, RequeueBase doubling) and gives up on the next
// failure (worker.Step.GiveUp: the retry-limit Event, then TerminateJob).
//
// # Where things are
//
// The engine and its inputs and outputs:
//
//	run.go            Load and LoadDropping (a manifest to a defaulted, valid job), Run, RunWith, Options
//	script.go         Command and Parse: a script's lines, each handed to its verb's parse
//	engine.go         the simulation: the controller's wiring, a line played and settled, the fake clock (advance), requeues
//	summary.go        the summary that ends a run
//	gc.go             Volcano's garbage collector for ttlSecondsAfterFinished, GCObserver, DescribeGC
//	transcript.go     Observer, NoteObserver's notes, the text and JSON transcripts
//	trace.go          Trace and Step (a run as a player on a real cluster replays it), File and ParseFile
//	compare.go        Compare: a run under Volcano's semantics against one under a correction
//	perturb.go        Perturb: a run under a perturbation, and the drain after the script
//	expect/           the checks of a scenario file's "-- expect --" section
//	testdata/         scenario files with their transcript or error; semantics/ (-compare), e2e/ (Volcano's end-to-end cases), perturbation.md
//
// The verbs (listed below):
//
//	verb.go           the verb table (verbs), Usage, and what every verb's parse uses (wantArgs, errorf)
//	verb_*.go         one verb, or a family of verbs of one meaning, each: its help, parse and play
//	pods.go           what the verbs on pods share: the PODS argument, the pods it names, NodeFor, the kubelet's copy of a pod
//
// The tests:
//
//	simulate_test.go      testdata/*.txt (-rewrite rewrites them), the errors that name the line, JSON output
//	verbs_test.go         the verb table, this file map and the verb list below, the scheduler's and user's verbs
//	pods_test.go          NodeFor
//	fuzz_test.go          FuzzParse: Parse never panics, its errors name a line
//	compare_test.go       Compare of Volcano's semantics against the corrected ones
//	compare_all_test.go   every scenario file also runs under the corrected semantics
//	semantics_test.go     testdata/semantics: the -compare report pinned
//	e2e_test.go           testdata/e2e: Volcano's end-to-end cases, their expectations
//	gc_test.go            the garbage collector
//	nil_test.go           no job or observer is an error
//	perturb_test.go       the scenario files under perturbations (-perturb.debug)
//	perturb_table_test.go TestPerturbation against testdata/perturbation.md
//
// # Verbs
//
// Each script verb and the file that holds it (TestDocListsVerbs checks
// this list against the table; go test -rewrite rewrites it):
//
//	start          verb_pod_phase.go
//	run            verb_pod_phase.go
//	pending        verb_pod_phase.go
//	ready          verb_pod_phase.go
//	unready        verb_pod_phase.go
//	restart        verb_restart.go
//	fail           verb_fail.go
//	succeed        verb_pod_phase.go
//	unknown        verb_pod_phase.go
//	evict          verb_evict.go
//	preempt        verb_preempt.go
//	finish         verb_finish.go
//	podgroup       verb_podgroup.go
//	command        verb_command.go
//	scale          verb_scale.go
//	pvc            verb_pvc.go
//	unschedulable  verb_unschedulable.go
//	update         verb_update.go
//	delete         verb_delete.go
//	release        verb_release.go
//	create         verb_create.go
//	controller     verb_controller.go
//	advance        verb_advance.go
package scenario
