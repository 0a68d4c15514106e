package hamt

import (
	"fmt"
	"maps"
	"testing"

	"pgregory.net/rapid"
)

// model checks a Map against a Go map through random sets and deletes.
// Some versions are taken as snapshots: leased ones until released, pinned
// ones for good. The writer edits in place whatever no live snapshot can
// see (the Edit a vcjob JobInfo uses), and every live snapshot is checked
// after every operation: it must never change. hashOf replaces the hash
// so that tests can force shared prefixes and full collisions.
func model(t *rapid.T, hashOf func(string) uint64) {
	type snapshot struct {
		m      Map[int]
		want   map[string]int
		pinned bool
	}
	var m Map[int]
	want := map[string]int{}
	var snaps []snapshot
	var gen, floor, pinned uint64
	keys := rapid.SampledFrom([]string{"", "a", "b", "c", "job-w-0", "job-w-1", "job-w-2", "job-w-10", "job-w-11", "x", "yy", "zzz", "job-ps-0"})
	for i := range rapid.IntRange(0, 80).Draw(t, "ops") {
		e := Edit{Gen: gen, Floor: floor}
		switch op := rapid.IntRange(0, 9).Draw(t, fmt.Sprintf("op%d", i)); {
		case op < 5:
			k := keys.Draw(t, fmt.Sprintf("key%d", i))
			added := false
			var old int
			root := m.root
			if root == nil {
				root = newLevel[int](e.Gen)
			}
			m.root = set(root, e, 0, hashOf(k), k, i, &added, &old, hashOf)
			if added {
				m.n++
			}
			w, had := want[k]
			if had == added {
				t.Fatalf("set %q: added=%v but key present=%v", k, added, had)
			}
			if had && old != w {
				t.Fatalf("set %q: old value %d, want %d", k, old, w)
			}
			want[k] = i
		case op < 8:
			k := keys.Draw(t, fmt.Sprintf("key%d", i))
			root, removed := m.root, false
			if root != nil {
				root, removed = del(m.root, e, 0, hashOf(k), k)
			}
			if _, had := want[k]; had != removed {
				t.Fatalf("delete %q: removed=%v but key present=%v", k, removed, had)
			}
			if removed {
				m.root, m.n = root, m.n-1
			}
			delete(want, k)
		case op == 8: // lease or pin a snapshot: everything now is frozen
			pin := rapid.Bool().Draw(t, fmt.Sprintf("pin%d", i))
			gen++
			floor = gen
			if pin {
				pinned = floor
			}
			snaps = append(snaps, snapshot{m, maps.Clone(want), pin})
		default: // release a leased snapshot
			var leased []int
			for j, sn := range snaps {
				if !sn.pinned {
					leased = append(leased, j)
				}
			}
			if len(leased) == 0 {
				continue
			}
			j := leased[rapid.IntRange(0, len(leased)-1).Draw(t, fmt.Sprintf("release%d", i))]
			snaps = append(snaps[:j:j], snaps[j+1:]...)
			if len(leased) == 1 {
				floor = pinned // no lease left: all but the pinned is the writer's again
			}
		}
		check(t, fmt.Sprintf("the map after op %d", i), m, want, hashOf)
		for si, sn := range snaps {
			check(t, fmt.Sprintf("snapshot %d after op %d", si, i), sn.m, sn.want, hashOf)
		}
	}
}

func check(t *rapid.T, what string, m Map[int], want map[string]int, hashOf func(string) uint64) {
	if m.Len() != len(want) {
		t.Fatalf("%s: Len %d, want %d", what, m.Len(), len(want))
	}
	got := map[string]int{}
	for k, v := range m.All() {
		if _, dup := got[k]; dup {
			t.Fatalf("%s: All yields %q twice", what, k)
		}
		got[k] = v
	}
	if !maps.Equal(got, want) {
		t.Fatalf("%s: All gives %v, want %v", what, got, want)
	}
	for _, k := range []string{"", "a", "b", "c", "job-w-0", "job-w-1", "job-w-2", "job-w-10", "job-w-11", "x", "yy", "zzz", "job-ps-0", "absent"} {
		v, ok := get(m.root, hashOf(k), k)
		w, wok := want[k]
		if ok != wok || v != w {
			t.Fatalf("%s: Get(%q) = %d,%v, want %d,%v", what, k, v, ok, w, wok)
		}
	}
}

func TestMapMatchesGoMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { model(t, hash) })
}

// Hashes that agree on their low bits share trie levels; equal hashes go
// to collision levels past the last bit.
func TestMapSharedPrefixes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { model(t, func(s string) uint64 { return hash(s) << 40 }) })
}

func TestMapFullCollisions(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { model(t, func(s string) uint64 { return uint64(len(s) % 2) }) })
}

func TestMapPublicAPI(t *testing.T) {
	var m Map[string]
	a := m.Set("p-0", "zero").Set("p-1", "one")
	b := a.Set("p-1", "uno").Delete("p-0")
	if v, ok := a.Get("p-1"); !ok || v != "one" {
		t.Fatalf("a[p-1] = %q,%v after b was made from a", v, ok)
	}
	if _, ok := b.Get("p-0"); ok || b.Len() != 1 {
		t.Fatalf("b holds p-0 or has %d entries", b.Len())
	}
	if m.Len() != 0 {
		t.Fatal("the zero map changed")
	}
	if c, old, had := b.Swap("p-1", "eins"); !had || old != "uno" || c.Len() != 1 {
		t.Fatalf("Swap over p-1: old %q, had %v, len %d", old, had, c.Len())
	}
	if _, old, had := b.Swap("p-2", "two"); had || old != "" {
		t.Fatalf("Swap of a new key reports an old value %q", old)
	}
	if b.Delete("absent").Len() != 1 {
		t.Fatal("deleting an absent key changed the length")
	}
	n := 0
	for range a.All() {
		n++
		break
	}
	if n != 1 {
		t.Fatal("All kept yielding after the loop stopped")
	}
}

func BenchmarkSet(b *testing.B) {
	for _, n := range []int{100, 10000} {
		b.Run(fmt.Sprint("n=", n), func(b *testing.B) {
			var m Map[int]
			keys := make([]string, n)
			for i := range keys {
				keys[i] = fmt.Sprint("big-worker-", i)
				m = m.Set(keys[i], i)
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				m = m.Set(keys[i%n], i)
			}
		})
	}
}
