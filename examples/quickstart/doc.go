// Command quickstart walks a PyTorch job through Volcano's lifecycle with
// vcjob: it decodes the manifest beside it, then plays the cluster (the
// scheduler admits the gang, pods start, a worker is OOM-killed, a node is
// drained) and prints, for each request, the rule that decided it, the
// action and the phase change.
//
//	go run ./examples/quickstart
package main
