// Package hamt is a persistent map from strings to values: a hash array
// mapped trie whose updates copy only the path to the changed entry. A Map
// is a value; Set and Delete return a new Map and leave the old one as it
// was, so a copy of a Map is a snapshot that costs nothing to take and
// stays valid however the original moves on.
//
// vcjob keeps a job's pods in it, so the cache can hand out a snapshot per
// event without copying the job's pods.
package hamt

import "iter"

const (
	bitsPerLevel = 5
	width        = 1 << bitsPerLevel
	levelMask    = width - 1
)

// node is a level (kids set) or a leaf. Leaves whose keys share the whole
// 64-bit hash are chained through next.
type node[V any] struct {
	key  string
	val  V
	next *node[V]
	kids *[width]*node[V]
}

// level is a level node and its slots in one allocation: copying one
// level of a path costs one allocation of a fixed size.
type level[V any] struct {
	node[V]
	slots [width]*node[V]
}

func newLevel[V any](from *node[V]) *node[V] {
	l := &level[V]{}
	if from != nil {
		l.slots = *from.kids
	}
	l.kids = &l.slots
	return &l.node
}

// Map is a persistent map from string to V. The zero Map is empty and
// ready to use. Maps are safe to read concurrently; Set and Delete never
// change the receiver.
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
	m, _, _ = m.Swap(key, val)
	return m
}

// Swap is Set that also returns the value key held before, if any, in the
// same walk down the trie.
func (m Map[V]) Swap(key string, val V) (next Map[V], old V, had bool) {
	root := m.root
	if root == nil {
		root = newLevel[V](nil)
	}
	added := false
	m.root = set(root, 0, hash(key), key, val, &added, &old, hash)
	if added {
		m.n++
	}
	return m, old, !added
}

// set returns a copy of level n with key set.
// The value key held is left in *old.
func set[V any](n *node[V], shift uint, h uint64, key string, val V, added *bool, old *V, hashOf func(string) uint64) *node[V] {
	out := newLevel(n)
	i := slot(h, shift)
	switch child := n.kids[i]; {
	case child == nil:
		*added = true
		out.kids[i] = &node[V]{key: key, val: val}
	case child.kids != nil:
		out.kids[i] = set(child, shift+bitsPerLevel, h, key, val, added, old, hashOf)
	default:
		if chain, ok := replace(child, key, val, old); ok {
			out.kids[i] = chain
			break
		}
		*added = true
		if hc := hashOf(child.key); hc == h {
			// Every bit of the hash agrees: chain the leaves.
			out.kids[i] = &node[V]{key: key, val: val, next: child}
		} else {
			out.kids[i] = split(child, hc, &node[V]{key: key, val: val}, h, shift+bitsPerLevel)
		}
	}
	return out
}

// replace copies a chain with key's value replaced, leaving the old value
// in *old; ok is false when the chain does not hold key.
func replace[V any](chain *node[V], key string, val V, old *V) (*node[V], bool) {
	if chain == nil {
		return nil, false
	}
	if chain.key == key {
		*old = chain.val
		return &node[V]{key: key, val: val, next: chain.next}, true
	}
	rest, ok := replace(chain.next, key, val, old)
	if !ok {
		return nil, false
	}
	return &node[V]{key: chain.key, val: chain.val, next: rest}, true
}

// split makes the levels that tell apart two leaves (or chains) whose
// hashes differ somewhere at or above shift.
func split[V any](a *node[V], ha uint64, b *node[V], hb uint64, shift uint) *node[V] {
	out := newLevel[V](nil)
	sa, sb := slot(ha, shift), slot(hb, shift)
	if sa == sb {
		out.kids[sa] = split(a, ha, b, hb, shift+bitsPerLevel)
	} else {
		out.kids[sa], out.kids[sb] = a, b
	}
	return out
}

// Delete returns a map without key, and the old map unchanged.
func (m Map[V]) Delete(key string) Map[V] {
	if m.root == nil {
		return m
	}
	root, removed := del(m.root, 0, hash(key), key)
	if !removed {
		return m
	}
	m.root = root
	m.n--
	return m
}

// del returns a copy of level n without key, and whether key was there. A
// level left holding a single leaf is replaced by that leaf (except the
// root), so the trie stays as shallow as its keys need.
func del[V any](n *node[V], shift uint, h uint64, key string) (*node[V], bool) {
	i := slot(h, shift)
	child := n.kids[i]
	var repl *node[V]
	switch {
	case child == nil:
		return n, false
	case child.kids != nil:
		sub, removed := del(child, shift+bitsPerLevel, h, key)
		if !removed {
			return n, false
		}
		repl = sub
		if only := single(sub); only != nil && only.kids == nil {
			repl = only
		}
	default:
		rest, removed := unchain(child, key)
		if !removed {
			return n, false
		}
		repl = rest
	}
	out := newLevel(n)
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

// unchain copies a chain without key.
func unchain[V any](chain *node[V], key string) (*node[V], bool) {
	if chain == nil {
		return nil, false
	}
	if chain.key == key {
		return chain.next, true
	}
	rest, ok := unchain(chain.next, key)
	if !ok {
		return nil, false
	}
	return &node[V]{key: chain.key, val: chain.val, next: rest}, true
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
