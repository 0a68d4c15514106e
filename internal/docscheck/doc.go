// Package docscheck holds tests of the repository's own documentation; it
// has no code of its own.
//
// TestFileMaps walks every package directory of the module (leaving out
// directories with a go.mod of their own, testdata, and those whose name
// begins with "." or "_") and, for each package of more than eight Go
// files, test files included, checks its doc.go's file map: that the
// package comment has a "# Where things are" section, that each non-test
// file of the package but doc.go has a line of its own there (the file
// name first), and that every file a line names exists (a line naming a
// pattern such as *_test.go must match at least one file):
//
//	go test ./internal/docscheck/
//
// A package whose map others are still writing is on the test's pending
// list; the test fails once such a package passes, so that the list only
// ever shrinks.
package docscheck
