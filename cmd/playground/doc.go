// Command playground serves a page on which one pastes a Volcano Job
// manifest and a scenario and sees, as one types, the validation errors
// with their field paths, the lint findings, the explain table and the
// simulated run as a timeline. Three ready examples are in its menu: a
// PyTorch job with an OOM-killed worker, an MPI job losing a worker, and a
// job whose PodPending timeout aborts it.
//
//	go run ./cmd/playground            # http://localhost:8080
//	go run ./cmd/playground -addr :9000
//
// The page is answered by vcjob running in this process, not compiled to
// WebAssembly: see package cmd/playground/server for why. Nothing is
// fetched from the network.
package main
