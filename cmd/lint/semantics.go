package main

import (
	"fmt"
	"io"
)

// printDifferences lists where the -semantics profile decides otherwise
// than Volcano.
func printDifferences(w io.Writer, r report) {
	if len(r.Differences) == 0 {
		return
	}
	fmt.Fprintf(w, "  where the chosen semantics decide otherwise than Volcano:\n")
	for _, d := range r.Differences {
		fmt.Fprintf(w, "    %s\n", d)
	}
}
