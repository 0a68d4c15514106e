// Command simulate answers "what will Volcano do to my job if…": it runs a
// job through a scenario on an in-memory cluster with the real pipeline
// (event derivation, cache, policies, delayed actions, the state machine)
// and a fake clock, and prints every decision, or draws them as one HTML
// page.
//
//	go run ./cmd/simulate -job JOB.yaml SCENARIO
//	go run ./cmd/simulate -job JOB.yaml -o json SCENARIO
//	go run ./cmd/simulate -job JOB.yaml -o html SCENARIO > timeline.html
//
// Run it with -help for the scenario commands. The engine is package
// vcjobtest/scenario; the page is package cmd/internal/timeline.
package main
