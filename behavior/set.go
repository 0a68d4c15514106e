package behavior

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vcjob/vcjob"
)

// Annotation is the job annotation that turns corrections on or off for
// one job, on top of what its embedder chose (see Set.For). It is vcjob's
// own key: Volcano ignores it.
const Annotation = "vcjob.dev/semantics"

// Set is the behaviour a job is decided under: the Volcano version whose
// upstream changes it has, and which corrections are on. The zero Set
// decides as Volcano's DefaultVersion does; ForVersion picks another
// version, Corrected turns every correction on, Of names some. A Set is a
// value: compare it with ==.
type Set struct {
	version Version
	// bits are the differences on, but for the upstream changes, whose
	// bit says the set differs there from DefaultVersion: so the zero
	// Set is DefaultVersion's.
	bits uint64
}

// defaultBits are the upstream changes DefaultVersion has; corrections are
// off by default. Computed once from the registry, never written.
var defaultBits = func() uint64 {
	var b uint64
	v := Version{}
	for i := range entries {
		if entries[i].Kind == Upstream && v.Has(entries[i].ID) {
			b |= entries[i].ID.bit()
		}
	}
	return b
}()

// ForVersion is the Set of Volcano version v, with no correction on.
func ForVersion(v Version) Set { return Set{}.WithVersion(v) }

// WithVersion is s deciding as Volcano version v does; its corrections
// stay as they are.
func (s Set) WithVersion(v Version) Set {
	s.version = v
	for i := range entries {
		e := &entries[i]
		if e.Kind != Upstream {
			continue
		}
		if v.Has(e.ID) != (defaultBits&e.ID.bit() != 0) {
			s.bits |= e.ID.bit()
		} else {
			s.bits &^= e.ID.bit()
		}
	}
	return s
}

// Version is the Volcano version s decides as.
func (s Set) Version() Version { return s.version }

// Of is the Set with the differences ids on.
func Of(ids ...ID) Set { return Set{}.With(ids...) }

// Corrected is the Set of DefaultVersion with every correction on.
func Corrected() Set { return Set{bits: correctionBits} }

// correctionBits are the corrections' bits.
var correctionBits = func() uint64 {
	var b uint64
	for i := range entries {
		if entries[i].Kind == Correction {
			b |= entries[i].ID.bit()
		}
	}
	return b
}()

// Has reports whether id is on in s: a correction or an extension's mark
// turned on, or an upstream change s's version has.
func (s Set) Has(id ID) bool { return (s.bits^defaultBits)&id.bit() != 0 }

// With is s with ids on. An upstream change is a version's, not a
// switch: With and Without leave those alone (see WithVersion).
func (s Set) With(ids ...ID) Set {
	for _, id := range ids {
		if !id.upstream() {
			s.bits |= id.bit()
		}
	}
	return s
}

// Without is s with ids off (but for upstream changes, as With).
func (s Set) Without(ids ...ID) Set {
	for _, id := range ids {
		if !id.upstream() {
			s.bits &^= id.bit()
		}
	}
	return s
}

// IsVolcano reports whether s decides as Volcano (its version) does: no
// correction is on.
func (s Set) IsVolcano() bool { return len(s.Corrections()) == 0 }

// Corrections lists the corrections on in s, in registry order.
func (s Set) Corrections() []ID {
	var out []ID
	for i := range entries {
		if entries[i].Kind == Correction && s.Has(entries[i].ID) {
			out = append(out, entries[i].ID)
		}
	}
	return out
}

// String is "volcano", "corrected", or the names of the corrections that
// are on, comma-separated: a value Parse reads back.
func (s Set) String() string {
	switch {
	case s.IsVolcano():
		return "volcano"
	case s.bits&correctionBits == Corrected().bits:
		return "corrected"
	}
	on := s.Corrections()
	names := make([]string, len(on))
	for i, id := range on {
		names[i] = id.String()
	}
	return strings.Join(names, ",")
}

// MarshalText writes String, so records and reports carry the Set by name.
func (s Set) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads what MarshalText wrote (Parse over the Set's
// version, no correction on).
func (s *Set) UnmarshalText(text []byte) error {
	out, err := Parse(ForVersion(s.version), string(text))
	if err != nil {
		return err
	}
	*s = out
	return nil
}

// Parse applies value, a comma-separated list of words, to base, word by
// word: "volcano" turns every correction off, "corrected" turns every one
// on, a correction's name turns it on and the name after a "-" turns it
// off. Blanks around words are ignored. An unknown word, or the name of a
// difference that is not a correction, is an error and leaves base as it
// was.
func Parse(base Set, value string) (Set, error) {
	s := base
	for rest := value; rest != ""; {
		var word string
		word, rest, _ = strings.Cut(rest, ",")
		word = strings.TrimSpace(word)
		switch word {
		case "":
			continue
		case "volcano":
			s = s.Without(Corrected().Corrections()...)
			continue
		case "corrected":
			s = s.With(Corrected().Corrections()...)
			continue
		}
		name, on := word, true
		if n, ok := strings.CutPrefix(word, "-"); ok {
			name, on = n, false
		}
		id, ok := Lookup(name)
		if !ok || id.Entry().Kind != Correction {
			return base, fmt.Errorf("behavior: unknown word %q (want volcano, corrected or one of %s)", word, correctionNames())
		}
		if on {
			s = s.With(id)
		} else {
			s = s.Without(id)
		}
	}
	return s, nil
}

func correctionNames() string {
	ids := Corrected().Corrections()
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = id.String()
	}
	return strings.Join(names, ", ")
}

// For is the behaviour of job: s, the embedder's choice, with the job's
// Annotation applied on top (Parse). An annotation that does not parse is
// ignored, so a decision never fails on it; ValidateAnnotation and
// lint.Lint report it. A job without the annotation costs one map lookup.
func (s Set) For(job *vcjob.Job) Set {
	if job == nil {
		return s
	}
	v, ok := job.Annotations[Annotation]
	if !ok {
		return s
	}
	out, err := Parse(s, v)
	if err != nil {
		return s
	}
	return out
}

// ValidateAnnotation checks the job's Annotation. It is not part of
// validation.ValidateJob: Volcano's admission does not know the key.
func ValidateAnnotation(job *vcjob.Job) field.ErrorList {
	if job == nil {
		return nil
	}
	v, ok := job.Annotations[Annotation]
	if !ok {
		return nil
	}
	if _, err := Parse(Set{}, v); err != nil {
		return field.ErrorList{field.Invalid(field.NewPath("metadata", "annotations").Key(Annotation), v, err.Error())}
	}
	return nil
}
