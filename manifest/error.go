package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	yaml3 "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/runtime"
)

// Error is a document that does not decode into a Job or CronJob:
// where it is, what it is, and which fields are wrong.
type Error struct {
	// Line is the line of the input the first problem is on, counted from
	// 1; the document's first line when no closer line is known.
	Line int
	// Object names the object once its name was read (`job "train"`),
	// else "".
	Object string
	// Fields are the fields that do not decode, in the order the decoder
	// met them, then the list items given as null; empty when the problem
	// is the document as a whole (not a mapping, the wrong kind, invalid
	// YAML).
	Fields []FieldProblem
	// Err is the cause as the decoder reported it; for problems only the
	// CRDs' schemas see (a list item given as null), the first of them.
	Err error
}

// FieldProblem is one field that does not decode.
type FieldProblem struct {
	// Path is the field's path in the object, as an API server writes it:
	// spec.tasks[1].template.spec.containers.
	Path string
	// Line is the input line the field is on (0 when unknown).
	Line int
	// Problem says what is wrong: "unknown field", "duplicate field", or
	// the kind of value expected and found ("must be a list, not an
	// object", "must be an object, not null" for a list item).
	Problem string
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "line %d: ", e.Line)
	if e.Object != "" {
		b.WriteString(e.Object + ": ")
	}
	switch len(e.Fields) {
	case 0:
		b.WriteString(e.Err.Error())
	case 1:
		fmt.Fprintf(&b, "%s: %s", e.Fields[0].Path, e.Fields[0].Problem)
	default:
		fmt.Fprintf(&b, "%d fields do not decode:", len(e.Fields))
		for _, f := range e.Fields {
			b.WriteString("\n  ")
			if f.Line > 0 {
				fmt.Fprintf(&b, "line %d: ", f.Line)
			}
			fmt.Fprintf(&b, "%s: %s", f.Path, f.Problem)
		}
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// UnknownFields are the paths of the fields the types do not know (what
// Options.AllowUnknownFields drops).
func (e *Error) UnknownFields() []string {
	var out []string
	for _, f := range e.Fields {
		if f.Problem == problemUnknown {
			out = append(out, f.Path)
		}
	}
	return out
}

const (
	problemUnknown   = "unknown field"
	problemDuplicate = "duplicate field"
)

// newError explains why doc did not decode (JSON data read from the YAML
// or JSON document src, which starts at line first of the input): err,
// the decoder's failure (nil when it decoded), and nulls, the null list
// items the CRDs' schemas refuse (see schemaNulls). It lists the fields
// at fault with their paths and lines.
func newError(err error, nulls []FieldProblem, src, data []byte, first int, object string, into reflect.Type) *Error {
	de := &Error{Line: first, Object: object, Err: err}
	if strict, ok := runtime.AsStrictDecodingError(err); ok {
		for _, e := range strict.Errors() {
			de.Fields = append(de.Fields, strictProblem(e.Error()))
		}
	} else if p, ok := firstTypeMismatch(data, into); ok {
		de.Fields = append(de.Fields, p)
	}
	switch {
	case err == nil:
		de.Err = fmt.Errorf("%s: %s", nulls[0].Path, nulls[0].Problem)
		de.Fields = nulls
	case len(de.Fields) > 0:
		// Listed after the decoder's own problems; after an error that
		// names no field, the nulls wait for that one to be fixed.
		de.Fields = append(de.Fields, nulls...)
	default:
		return de
	}
	var root yaml3.Node
	if yaml3.Unmarshal(src, &root) == nil {
		for i := range de.Fields {
			if line := lineOf(&root, de.Fields[i].Path); line > 0 {
				de.Fields[i].Line = first + line - 1
			}
		}
	}
	if de.Fields[0].Line > 0 {
		de.Line = de.Fields[0].Line
	}
	return de
}

// strictProblem reads one of the strict decoder's errors: `unknown field
// "spec.x"` or `duplicate field "spec.x"`.
func strictProblem(msg string) FieldProblem {
	for _, problem := range []string{problemUnknown, problemDuplicate} {
		if rest, ok := strings.CutPrefix(msg, problem+" "); ok {
			if path, err := strconv.Unquote(rest); err == nil {
				return FieldProblem{Path: path, Problem: problem}
			}
		}
	}
	return FieldProblem{Problem: msg}
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// firstTypeMismatch finds the first value of data (JSON) whose kind the
// Go type t cannot hold: the field a "cannot unmarshal" error is about,
// with its index path, which the JSON decoder's error leaves out.
func firstTypeMismatch(data []byte, t reflect.Type) (FieldProblem, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return FieldProblem{}, false
	}
	return mismatchIn(v, t, "")
}

func mismatchIn(v any, t reflect.Type, path string) (FieldProblem, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v == nil || reflect.PointerTo(t).Implements(unmarshalerType) || t.Kind() == reflect.Interface {
		// null fits every field (a null list item is schemaNulls' to
		// report); a type that decodes itself (times, quantities,
		// int-or-string) says what it takes in its own error.
		return FieldProblem{}, false
	}
	want := jsonKindOf(t)
	if got := jsonValueKind(v); got != want {
		return FieldProblem{Path: path, Problem: fmt.Sprintf("must be %s, not %s", want, got)}, true
	}
	switch t.Kind() {
	case reflect.Struct:
		fields := jsonFields(t)
		for _, key := range sortedKeys(v.(map[string]any)) {
			if ft, ok := fields[key]; ok {
				if p, bad := mismatchIn(v.(map[string]any)[key], ft, joinPath(path, key)); bad {
					return p, true
				}
			}
		}
	case reflect.Map:
		m := v.(map[string]any)
		for _, key := range sortedKeys(m) {
			if p, bad := mismatchIn(m[key], t.Elem(), path+"["+key+"]"); bad {
				return p, true
			}
		}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return FieldProblem{}, false
		}
		for i, item := range v.([]any) {
			if p, bad := mismatchIn(item, t.Elem(), path+"["+strconv.Itoa(i)+"]"); bad {
				return p, true
			}
		}
	}
	return FieldProblem{}, false
}

// sortedKeys is an object's keys in name order, so that the mismatch
// reported is the same on every run.
func sortedKeys(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// jsonFields maps a struct's JSON names to their types, inlined and
// embedded structs flattened, as the API machinery's decoder reads them.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if name == "" && (f.Anonymous || strings.Contains(opts, "inline")) && ft.Kind() == reflect.Struct {
			for k, v := range jsonFields(ft) {
				if _, taken := out[k]; !taken {
					out[k] = v
				}
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// The kinds of JSON value, as a message names them.
const (
	kindObject = "an object"
	kindList   = "a list"
	kindString = "a string"
	kindNumber = "a number"
	kindBool   = "a boolean"
)

func jsonKindOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return kindObject
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return kindString
		}
		return kindList
	case reflect.String:
		return kindString
	case reflect.Bool:
		return kindBool
	}
	return kindNumber
}

func jsonValueKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return kindObject
	case []any:
		return kindList
	case string:
		return kindString
	case bool:
		return kindBool
	}
	return kindNumber
}

// lineOf is the line of the node at path in a YAML document (its key's
// line for a field), 0 when the path is not in it.
func lineOf(doc *yaml3.Node, path string) int {
	n := doc
	if n.Kind == yaml3.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := n.Line
	for _, seg := range pathSegments(path) {
		switch n.Kind {
		case yaml3.MappingNode:
			found := false
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == seg {
					line, n, found = n.Content[i].Line, n.Content[i+1], true
					break
				}
			}
			if !found {
				return line
			}
		case yaml3.SequenceNode:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(n.Content) {
				return line
			}
			n = n.Content[i]
			line = n.Line
		default:
			return line
		}
	}
	return line
}

// pathSegments splits spec.tasks[1].labels[a.b/c] into spec, tasks, 1,
// labels, a.b/c.
func pathSegments(path string) []string {
	var segs []string
	for path != "" {
		switch path[0] {
		case '.':
			path = path[1:]
		case '[':
			end := strings.IndexByte(path, ']')
			if end < 0 {
				return append(segs, path[1:])
			}
			segs = append(segs, path[1:end])
			path = path[end+1:]
		default:
			end := strings.IndexAny(path, ".[")
			if end < 0 {
				end = len(path)
			}
			segs = append(segs, path[:end])
			path = path[end:]
		}
	}
	return segs
}

// inDocument places a document's decoding error in the input: err's
// lines, counted in the document, are moved to the document's first line,
// first; an error that is no *Error becomes one at that line.
func inDocument(err error, first int) *Error {
	var de *Error
	if !errors.As(err, &de) {
		return &Error{Line: first, Err: err}
	}
	de.Line += first - 1
	for i := range de.Fields {
		if de.Fields[i].Line > 0 {
			de.Fields[i].Line += first - 1
		}
	}
	return de
}
