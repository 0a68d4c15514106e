package statemachine

import (
	"crypto/rand"
	"hash/fnv"
	mrand "math/rand/v2"
)

// NameSource makes the random parts of the names Volcano generates:
// RandomString(n) is n characters of [0-9a-z], as Volcano's GenRandomStr.
// A volume claim without a name becomes <job>-pvc-<12 random>, and every
// pod mounts each job volume under <job>-<12 random>.
type NameSource interface {
	RandomString(n int) string
}

const nameAlphabet = "0123456789abcdefghijklmnopqrstuvwxyz"

// SeededNames is a NameSource whose strings follow from seed: a replay of
// the same calls gives the same names. Tests, simulators and the default
// of a plan (seeded by the job's UID) use it. It is not safe for
// concurrent use.
func SeededNames(seed uint64) NameSource {
	return &seededNames{r: mrand.New(mrand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

type seededNames struct{ r *mrand.Rand }

func (s *seededNames) RandomString(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = nameAlphabet[s.r.IntN(len(nameAlphabet))]
	}
	return string(b)
}

// RandomNames is a NameSource reading crypto/rand, for a controller that
// wants names nobody can predict, as Volcano's.
func RandomNames() NameSource { return randomNames{} }

type randomNames struct{}

func (randomNames) RandomString(n int) string {
	out := make([]byte, 0, n)
	buf := make([]byte, n+8)
	for len(out) < n {
		// crypto/rand.Read never fails (it panics on the platform's failure).
		_, _ = rand.Read(buf)
		for _, c := range buf {
			// 252 = 7·36: bytes above it are skipped, so that every
			// character is equally likely.
			if c < 252 && len(out) < n {
				out = append(out, nameAlphabet[int(c)%len(nameAlphabet)])
			}
		}
	}
	return string(out)
}

// namesFor is the plan's name source: the given one, else one seeded by
// the job's UID, so that a plan is reproducible.
func namesFor(names NameSource, uid string) NameSource {
	if names != nil {
		return names
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(uid))
	return SeededNames(h.Sum64())
}
