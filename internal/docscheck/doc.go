// Package docscheck holds tests of the repository's own documentation; it
// has no code of its own.
//
//	go test ./internal/docscheck/
//
// TestFileMaps walks every package directory of the module (leaving out
// directories with a go.mod of their own, testdata, and those whose name
// begins with "." or "_") and, for each package of more than eight Go
// files, test files included, checks its doc.go's file map: that the
// package comment has a "# Where things are" section, that each non-test
// file of the package but doc.go has a line of its own there (the file
// name first), and that every file a line names exists (a line naming a
// pattern such as *_test.go must match at least one file). A package whose
// map others are still writing is on the test's pending list; the test
// fails once such a package passes, so that the list only ever shrinks.
//
// TestDocsNameWhatExists reads docs/*.md and README.md: what a page names
// must exist, so that a page cannot go on naming a folder, file, command,
// identifier or test that moved. It checks:
//
//   - repository paths in code spans, shell blocks and markdown links: a
//     name that starts with ./ or ../, or whose first element is an entry
//     of the repository's root (cmd/..., vcjobtest/..., docs/...), must
//     exist; a name such as scenario/testdata/x.txt, with a file extension
//     but a first element the root does not have, must end some file's
//     path. Paths that leave the repository (../shared), URLs, flags and
//     patterns with wildcards are not checked. In a shell line, `cd DIR &&`
//     makes what follows relative to DIR; a link is relative to its page;
//   - pkg.Name in code spans and Go blocks, where pkg is the name of one of
//     the repository's packages: such a package must have Name, exported at
//     its top level, as a method, or as a test;
//   - TestX, FuzzX, BenchmarkX and ExampleX anywhere on a page: a function
//     of some _test.go file (in a shell line, a -run pattern some test
//     starts with).
//
// Pages not yet held to it are listed, with why, in the test.
package docscheck
