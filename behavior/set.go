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

// Set is the behaviour a job is decided under: which corrections are on.
// The zero Set decides as Volcano does; Corrected turns every correction
// on, Of names some. A Set is a value: compare it with ==.
type Set struct {
	bits uint64
}

// Of is the Set with the differences ids on.
func Of(ids ...ID) Set { return Set{}.With(ids...) }

// Corrected is the Set with every correction on.
func Corrected() Set {
	var s Set
	for i := range entries {
		if entries[i].Kind == Correction {
			s.bits |= entries[i].ID.bit()
		}
	}
	return s
}

// Has reports whether id is on in s.
func (s Set) Has(id ID) bool { return s.bits&id.bit() != 0 }

// With is s with ids on.
func (s Set) With(ids ...ID) Set {
	for _, id := range ids {
		s.bits |= id.bit()
	}
	return s
}

// Without is s with ids off.
func (s Set) Without(ids ...ID) Set {
	for _, id := range ids {
		s.bits &^= id.bit()
	}
	return s
}

// IsVolcano reports whether s decides everything as Volcano does.
func (s Set) IsVolcano() bool { return s == Set{} }

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
	switch s {
	case Set{}:
		return "volcano"
	case Corrected():
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

// UnmarshalText reads what MarshalText wrote (Parse over the zero Set).
func (s *Set) UnmarshalText(text []byte) error {
	out, err := Parse(Set{}, string(text))
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
