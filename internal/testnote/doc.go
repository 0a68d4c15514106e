// Package testnote lets a test binary say one line that a person running
// `go test ./...` sees even when every test passes.
//
// go test shows a passing package's output only with -v (or when it runs
// in the package's own directory with no package arguments); skip messages
// and anything TestMain prints are dropped otherwise. Say writes the line
// to the test binary's stderr, and, when the binary was started by the go
// command on Linux, to the go command's own stderr as well, which go test
// does not capture.
//
//	func TestMain(m *testing.M) {
//		if _, err := os.Stat("../shared"); err != nil {
//			testnote.Say("vcjob: ../shared is missing: the conformance tests skip")
//		}
//		os.Exit(m.Run())
//	}
package testnote
