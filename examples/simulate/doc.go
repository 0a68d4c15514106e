// Command simulate answers "what will Volcano do to my job if…": it runs a
// job through a scenario on an in-memory cluster with the real pipeline
// (event derivation, cache, policies, delayed actions, the state machine)
// and a fake clock, and prints every decision, or draws them as one HTML
// page.
//
//	go run ./examples/simulate -job JOB.yaml SCENARIO
//	go run ./examples/simulate -job JOB.yaml -o json SCENARIO
//	go run ./examples/simulate -job JOB.yaml -o html SCENARIO > timeline.html
//
// Run it with -help for the scenario commands. The engine is package
// examples/simulate/scenario; the page is package examples/timeline.
package main
