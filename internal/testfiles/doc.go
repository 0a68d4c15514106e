// Package testfiles reads the files tests are built on, so that packages
// sharing a fixture read it the same way: the repository's testdata, and
// what the project that checks vcjob against Volcano keeps beside the
// repository in ../shared (Volcano's own example manifests, the recorded
// conformance vectors), which is not part of it.
//
// A test that needs ../shared asks for it through Shared (or Manifests,
// which does), so that, without it, every such test skips the same way,
// naming what is missing and where it is expected; go test -v shows it:
//
//	f, err := os.Open(testfiles.Shared(t, "../shared/conformance/vectors-public.jsonl",
//		"the recorded controller inputs (public conformance vectors)"))
package testfiles
