// Package server is the playground's HTTP side: the page, the ready
// examples, and Check, which answers one edit of the page (validation
// with field paths, lint findings, the explain table, the simulated run
// as a timeline).
//
//	http.Handle("/", server.Handler())
//
// It runs vcjob natively in the server process rather than compiled to
// WebAssembly in the page: the answers come from the very code the tests
// check, the page loads at once instead of fetching and compiling some
// 20 MB of Kubernetes types, and there is no second build to keep in step.
// The price is that the page needs the local process; everything it
// loads comes from that process (no CDN).
package server
