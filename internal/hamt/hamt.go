package hamt

import (
	"iter"
	"math"
)

const (
	bitsPerLevel = 5
	width        = 1 << bitsPerLevel
	levelMask    = width - 1
)

// Edit says what an update may change in place: nodes of generation
// Floor or later belong to the writer alone. Nodes it makes or copies are
// stamped Gen, which should be at least Floor for the writer to change
// them again in place.
type Edit struct {
	Gen, Floor uint64
}

// Persistent is the edit of an ordinary persistent update: nothing is
// changed in place.
func Persistent() Edit { return Edit{Floor: math.MaxUint64} }

// node is a level (kids set) or a leaf. Leaves whose keys share the whole
// 64-bit hash are chained through next.
type node[V any] struct {
	key  string
	val  V
	next *node[V]
	kids *[width]*node[V]
	gen  uint64
}

// level is a level node and its slots in one allocation: copying one
// level of a path costs one allocation of a fixed size.
type level[V any] struct {
	node[V]
	slots [width]*node[V]
}

// mutable returns level n itself when e owns it, else a copy stamped
// e.Gen.
func mutable[V any](n *node[V], e Edit) *node[V] {
	if n.gen >= e.Floor {
		return n
	}
	l := &level[V]{slots: *n.kids}
	l.kids, l.gen = &l.slots, e.Gen
	return &l.node
}

func newLevel[V any](gen uint64) *node[V] {
	l := &level[V]{}
	l.kids, l.gen = &l.slots, gen
	return &l.node
}

// Map is a persistent map from string to V. The zero Map is empty and
// ready to use. Maps are safe to read concurrently; Set and Delete never
// change the receiver, nor anything it shares.
type Map[V any] struct {
	root *node[V]
	n    int
}

// Len is the number of entries.
func (m Map[V]) Len() int { return m.n }

// hash is FNV-1a, 64 bits: deterministic, allocation-free, and good
// enough for keys such as pod names.
func hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func slot(h uint64, shift uint) int { return int((h >> shift) & levelMask) }

// Get returns the value under key.
func (m Map[V]) Get(key string) (V, bool) { return get(m.root, hash(key), key) }

func get[V any](n *node[V], h uint64, key string) (V, bool) {
	for shift := uint(0); n != nil && n.kids != nil; shift += bitsPerLevel {
		n = n.kids[slot(h, shift)]
	}
	for ; n != nil; n = n.next {
		if n.key == key {
			return n.val, true
		}
	}
	var zero V
	return zero, false
}

// Set returns a map holding val under key, and the old map unchanged.
func (m Map[V]) Set(key string, val V) Map[V] {
	m, _, _ = m.SetIn(Persistent(), key, val)
	return m
}

// Swap is Set that also returns the value key held before, if any.
func (m Map[V]) Swap(key string, val V) (next Map[V], old V, had bool) {
	return m.SetIn(Persistent(), key, val)
}

// SetIn is Swap under edit e: nodes e owns are changed in place, so m and
// every map sharing them see the change; use it only on nodes nobody else
// can see.
func (m Map[V]) SetIn(e Edit, key string, val V) (next Map[V], old V, had bool) {
	root := m.root
	if root == nil {
		root = newLevel[V](e.Gen)
	}
	added := false
	m.root = set(root, e, 0, hash(key), key, val, &added, &old, hash)
	if added {
		m.n++
	}
	return m, old, !added
}

// set returns level n, or a copy of it, with key set; the value key held
// is left in *old.
func set[V any](n *node[V], e Edit, shift uint, h uint64, key string, val V, added *bool, old *V, hashOf func(string) uint64) *node[V] {
	i := slot(h, shift)
	child := n.kids[i]
	var repl *node[V]
	switch {
	case child == nil:
		*added = true
		repl = &node[V]{key: key, val: val, gen: e.Gen}
	case child.kids != nil:
		repl = set(child, e, shift+bitsPerLevel, h, key, val, added, old, hashOf)
		if repl == child {
			return n // changed in place below; nothing to relink
		}
	default:
		if chain, ok := replace(child, e, key, val, old); ok {
			if chain == child {
				return n
			}
			repl = chain
			break
		}
		*added = true
		if hc := hashOf(child.key); hc == h {
			// Every bit of the hash agrees: chain the leaves.
			repl = &node[V]{key: key, val: val, next: child, gen: e.Gen}
		} else {
			repl = split(child, hc, &node[V]{key: key, val: val, gen: e.Gen}, h, shift+bitsPerLevel, e.Gen)
		}
	}
	out := mutable(n, e)
	out.kids[i] = repl
	return out
}

// replace returns a chain with key's value replaced (changed in place
// where e owns the leaf), leaving the old value in *old; ok is false when
// the chain does not hold key.
func replace[V any](chain *node[V], e Edit, key string, val V, old *V) (*node[V], bool) {
	if chain == nil {
		return nil, false
	}
	if chain.key == key {
		*old = chain.val
		if chain.gen >= e.Floor {
			chain.val = val
			return chain, true
		}
		return &node[V]{key: key, val: val, next: chain.next, gen: e.Gen}, true
	}
	rest, ok := replace(chain.next, e, key, val, old)
	if !ok {
		return nil, false
	}
	if rest == chain.next {
		return chain, true
	}
	if chain.gen >= e.Floor {
		chain.next = rest
		return chain, true
	}
	return &node[V]{key: chain.key, val: chain.val, next: rest, gen: e.Gen}, true
}

// split makes the levels that tell apart two leaves (or chains) whose
// hashes differ somewhere at or above shift.
func split[V any](a *node[V], ha uint64, b *node[V], hb uint64, shift uint, gen uint64) *node[V] {
	out := newLevel[V](gen)
	sa, sb := slot(ha, shift), slot(hb, shift)
	if sa == sb {
		out.kids[sa] = split(a, ha, b, hb, shift+bitsPerLevel, gen)
	} else {
		out.kids[sa], out.kids[sb] = a, b
	}
	return out
}

// Delete returns a map without key, and the old map unchanged.
func (m Map[V]) Delete(key string) Map[V] {
	m, _ = m.DeleteIn(Persistent(), key)
	return m
}

// DeleteIn is Delete under edit e (see SetIn); removed reports whether
// key was there.
func (m Map[V]) DeleteIn(e Edit, key string) (next Map[V], removed bool) {
	if m.root == nil {
		return m, false
	}
	root, removed := del(m.root, e, 0, hash(key), key)
	if !removed {
		return m, false
	}
	m.root = root
	m.n--
	return m, true
}

// del returns level n, or a copy of it, without key, and whether key was
// there. A level left holding a single leaf is replaced by that leaf
// (except the root), so the trie stays as shallow as its keys need.
func del[V any](n *node[V], e Edit, shift uint, h uint64, key string) (*node[V], bool) {
	i := slot(h, shift)
	child := n.kids[i]
	var repl *node[V]
	switch {
	case child == nil:
		return n, false
	case child.kids != nil:
		sub, removed := del(child, e, shift+bitsPerLevel, h, key)
		if !removed {
			return n, false
		}
		repl = sub
		if only := single(sub); only != nil && only.kids == nil {
			repl = only
		} else if sub == child {
			return n, true
		}
	default:
		rest, removed := unchain(child, e, key)
		if !removed {
			return n, false
		}
		repl = rest
	}
	out := mutable(n, e)
	out.kids[i] = repl
	return out, true
}

// single returns the only occupied slot of level n, or nil when it has
// none or several.
func single[V any](n *node[V]) *node[V] {
	var only *node[V]
	for _, k := range n.kids {
		if k != nil {
			if only != nil {
				return nil
			}
			only = k
		}
	}
	return only
}

// unchain returns a chain without key.
func unchain[V any](chain *node[V], e Edit, key string) (*node[V], bool) {
	if chain == nil {
		return nil, false
	}
	if chain.key == key {
		return chain.next, true
	}
	rest, ok := unchain(chain.next, e, key)
	if !ok {
		return nil, false
	}
	if chain.gen >= e.Floor {
		chain.next = rest
		return chain, true
	}
	return &node[V]{key: chain.key, val: chain.val, next: rest, gen: e.Gen}, true
}

// All yields every key and value, in an order fixed by the keys' hashes.
func (m Map[V]) All() iter.Seq2[string, V] {
	return func(yield func(string, V) bool) {
		walk(m.root, yield)
	}
}

func walk[V any](n *node[V], yield func(string, V) bool) bool {
	if n == nil {
		return true
	}
	if n.kids == nil {
		for ; n != nil; n = n.next {
			if !yield(n.key, n.val) {
				return false
			}
		}
		return true
	}
	for _, k := range n.kids {
		if !walk(k, yield) {
			return false
		}
	}
	return true
}
