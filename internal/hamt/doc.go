// Package hamt is a persistent map from strings to values: a hash array
// mapped trie whose updates copy only the path to the changed entry. A Map
// is a value; Set and Delete return a new Map and leave the old one as it
// was, so a copy of a Map is a snapshot that costs nothing to take and
// stays valid however the original moves on.
//
// An owner that knows which nodes nobody else can see may also change
// those in place (SetIn, DeleteIn): every node carries the generation it
// was made in, and an Edit names the generations that are the owner's
// alone. That is how vcjob's cache updates a pod without copying anything
// while no snapshot of the job is out.
//
//	var m hamt.Map[*corev1.Pod]
//	m2 := m.Set("worker-0", pod) // m is unchanged: a snapshot for free
package hamt
