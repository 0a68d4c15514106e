package perturb

import (
	"fmt"
	"math/rand/v2"
)

// Kind is one of the perturbations a run plays.
type Kind string

// The kinds of run.
const (
	// None is the unperturbed run every perturbed one is compared with.
	None Kind = "none"
	// Crash stops the controller after one Applier call (or between a pod
	// delete's out-of-sync mark and the delete) and starts a new one from
	// what the cluster holds.
	Crash Kind = "crash"
	// Stale has one step decide on a cache that lags the cluster by Lag
	// changes.
	Stale Kind = "stale"
	// Unobserved keeps one state of a pod or PodGroup from the cache: the
	// object's next change (or the final relist) shows only the later state.
	Unobserved Kind = "unobserved"
)

// Kinds lists the perturbations, in the order Plans lists their runs.
func Kinds() []Kind { return []Kind{Crash, Stale, Unobserved} }

// MaxLag is the largest lag a Stale run plays.
const MaxLag = 3

// Plan is one run's perturbation.
type Plan struct {
	Kind Kind `json:"kind"`
	// At is the crash point (the Applier calls counted from 0, a pod
	// delete counting twice: its mark, then the delete), the step (from 0)
	// that decides on a stale cache, or the change (from 0, in the order
	// the cluster made them) that is never observed.
	At int `json:"at"`
	// Lag is a Stale run's lag, 1 to MaxLag changes.
	Lag int `json:"lag,omitempty"`
}

func (p Plan) String() string {
	switch p.Kind {
	case Crash:
		return fmt.Sprintf("crash after call %d", p.At)
	case Stale:
		return fmt.Sprintf("step %d lags %d", p.At, p.Lag)
	case Unobserved:
		return fmt.Sprintf("change %d unobserved", p.At)
	}
	return string(None)
}

// Counts is what an unperturbed run offers to perturb: its crash points,
// its steps, and the changes a watch could lose.
type Counts struct {
	Calls int `json:"calls"`
	Steps int `json:"steps"`
	// Skippable are the changes of a pod or PodGroup that a later change
	// of the same object follows: the intermediate states.
	Skippable []int `json:"skippable,omitempty"`
}

// Plans lists every perturbed run of a scenario with these counts: a
// crash after each call, each step at each lag from 1 to MaxLag, and each
// skippable change unobserved.
func Plans(c Counts) []Plan {
	var out []Plan
	for i := 0; i < c.Calls; i++ {
		out = append(out, Plan{Kind: Crash, At: i})
	}
	for i := 0; i < c.Steps; i++ {
		for lag := 1; lag <= MaxLag; lag++ {
			out = append(out, Plan{Kind: Stale, At: i, Lag: lag})
		}
	}
	for _, i := range c.Skippable {
		out = append(out, Plan{Kind: Unobserved, At: i})
	}
	return out
}

// Sample picks up to n runs of each kind from plans with r, keeping
// their order, so that a seeded sample plays the same runs every time.
func Sample(plans []Plan, n int, r *rand.Rand) []Plan {
	byKind := map[Kind][]int{}
	for i, p := range plans {
		byKind[p.Kind] = append(byKind[p.Kind], i)
	}
	keep := make([]bool, len(plans))
	for _, k := range Kinds() {
		idx := byKind[k]
		r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		for _, i := range idx[:min(n, len(idx))] {
			keep[i] = true
		}
	}
	var out []Plan
	for i, p := range plans {
		if keep[i] {
			out = append(out, p)
		}
	}
	return out
}
