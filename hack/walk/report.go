package main

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"text/tabwriter"
)

// short is a function or package name without the module's path: the
// root package is vcjob.
func short(fn string) string {
	if rest, ok := strings.CutPrefix(fn, module+"/"); ok {
		return rest
	}
	if rest, ok := strings.CutPrefix(fn, module); ok {
		return "vcjob" + rest
	}
	return fn
}

var closure = regexp.MustCompile(`\.func\d+$`)

// kind is how a climb's callee was reached, from its name: a range body
// (the loop body of a range-over-func loop, which the iterator calls as
// yield), a method (through an interface) or a func value.
func kind(callee string) string {
	rest := strings.TrimPrefix(callee, pkgOf(callee)+".")
	switch {
	case strings.Contains(rest, "-range"):
		return "range body"
	case closure.MatchString(rest) || !strings.Contains(rest, "."):
		return "func value"
	default:
		return "method"
	}
}

func report(w io.Writer, commit string, walks []walk, tree bool) {
	fmt.Fprintf(w, "worker.(*Step).Process walk at %s\n\n", commit)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "request\trooms\tfunctions\tfiles\tcalls\tclimbs\tclimb pairs\tclimb package pairs")
	both := walk{name: "both requests (union of the sets, sum of the calls)"}
	for _, wk := range walks {
		both.calls = append(both.calls, wk.calls...)
		both.climbs = append(both.climbs, wk.climbs...)
	}
	for _, wk := range append(walks, both) {
		rooms, fns, files := sets(wk.calls)
		pairs, _ := climbPairs(wk.climbs)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", wk.name, len(rooms), len(fns), len(files), len(wk.calls),
			len(wk.climbs), len(pairs), len(packagePairs(wk.climbs)))
	}
	tw.Flush()
	fmt.Fprintln(w, "\nrooms: packages of the module entered; functions, files: distinct ones entered; calls: entries;")
	fmt.Fprintln(w, "climbs: calls against the import graph; climb pairs: distinct caller -> callee functions of them.")
	for _, wk := range walks {
		rooms, fns, files := sets(wk.calls)
		fmt.Fprintf(w, "\n%s\n", wk.name)
		fmt.Fprintf(w, "  rooms (%d), with the functions and calls entered in each:\n", len(rooms))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, p := range sortedKeys(rooms) {
			n := 0
			for fn := range fns {
				if pkgOf(fn) == p {
					n++
				}
			}
			fmt.Fprintf(tw, "    %s\t%d functions\t%d calls\n", short(p), n, rooms[p])
		}
		tw.Flush()
		fmt.Fprintf(w, "  files (%d): %s\n", len(files), strings.Join(sortedKeys(files), " "))
		pairs, order := climbPairs(wk.climbs)
		fmt.Fprintf(w, "  climbs: %d calls, %d distinct caller -> callee pairs:\n", len(wk.climbs), len(pairs))
		for _, k := range order {
			c := pairs[k]
			via := ""
			if c.via != "" {
				via = ", via " + short(c.via)
			}
			fmt.Fprintf(w, "    %dx %s -> %s  (%s%s)\n", c.n, short(c.caller.fn), short(c.callee.fn), kind(c.callee.fn), via)
		}
		pp := packagePairs(wk.climbs)
		fmt.Fprintf(w, "  climbs by package (%d):\n", len(pp))
		for _, k := range sortedKeys(pp) {
			fmt.Fprintf(w, "    %dx %s\n", pp[k], k)
		}
		if tree {
			fmt.Fprintf(w, "  call tree (indented by the module's functions on the stack below):\n")
			for _, c := range wk.calls {
				fmt.Fprintf(w, "    %s%s  %s:%d\n", strings.Repeat("  ", c.depth), short(c.callee.fn), c.callee.file, c.callee.line)
			}
		}
	}
}

// packagePairs counts climbs by caller and callee package.
func packagePairs(climbs []call) map[string]int {
	pp := map[string]int{}
	for _, c := range climbs {
		pp[short(pkgOf(c.caller.fn))+" -> "+short(pkgOf(c.callee.fn))]++
	}
	return pp
}

// sets are the rooms (with their calls), functions and files of calls.
func sets(calls []call) (rooms map[string]int, fns, files map[string]bool) {
	rooms, fns, files = map[string]int{}, map[string]bool{}, map[string]bool{}
	for _, c := range calls {
		rooms[pkgOf(c.callee.fn)]++
		fns[c.callee.fn] = true
		files[c.callee.file] = true
	}
	return rooms, fns, files
}

type pair struct {
	call
	n int
}

// climbPairs groups climbs by caller and callee, in the order first made.
func climbPairs(climbs []call) (map[string]*pair, []string) {
	pairs := map[string]*pair{}
	var order []string
	for _, c := range climbs {
		k := c.caller.fn + " -> " + c.callee.fn
		if pairs[k] == nil {
			pairs[k] = &pair{call: c}
			order = append(order, k)
		}
		pairs[k].n++
	}
	return pairs, order
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
