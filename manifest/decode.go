package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"sigs.k8s.io/yaml"

	"github.com/vcjob/vcjob"
)

// Options tunes decoding.
type Options struct {
	// AllowUnknownFields drops fields the Job types do not know (and
	// tolerates duplicate keys, the last one winning) instead of failing,
	// which is what an API server that prunes unknown fields does.
	AllowUnknownFields bool
	// FirstLine is the line of a larger input the data starts on (a
	// document cut out of a file), so that errors count lines in that
	// input; 0 or 1 counts from the data's own first line.
	FirstLine int
}

// lineOf is the input line of line (counted in the data).
func (o Options) lineOf(line int) int {
	return line + max(o.FirstLine, 1) - 1
}

// DocumentError is a decoding failure about the input or a document as a
// whole, not a particular field; it carries no further detail of its own.
// Compare with errors.Is.
type DocumentError string

func (e DocumentError) Error() string { return string(e) }

// The failures that are not about a particular field.
const (
	// ErrEmpty: the input (or the document) holds nothing but whitespace,
	// comments or document separators.
	ErrEmpty DocumentError = "empty manifest"
	// ErrNotMapping: the document is a list, string, number, ... rather
	// than an object with apiVersion, kind, metadata and spec.
	ErrNotMapping DocumentError = "manifest is not a mapping"
	// ErrMultipleDocuments: DecodeJob (or DecodeCronJob) was given a
	// stream of several objects.
	ErrMultipleDocuments DocumentError = "more than one document holds an object"
)

// TypeMismatchError says a document is not a batch.volcano.sh/v1alpha1 Job.
// APIVersion and Kind are what the document holds ("" when missing).
type TypeMismatchError struct {
	APIVersion string
	Kind       string
}

func (e *TypeMismatchError) Error() string {
	return typeMismatch(e.APIVersion, e.Kind, vcjob.JobKind)
}

// typeMismatch says how a document's apiVersion and kind differ from a
// batch.volcano.sh/v1alpha1 object of kind want.
func typeMismatch(apiVersion, kind, want string) string {
	var parts []string
	if apiVersion != vcjob.APIVersion {
		parts = append(parts, fmt.Sprintf("apiVersion is %s, expected %q", describeFound(apiVersion), vcjob.APIVersion))
	}
	if kind != want {
		parts = append(parts, fmt.Sprintf("kind is %s, expected %q", describeFound(kind), want))
	}
	return "not a Volcano " + want + ": " + strings.Join(parts, "; ")
}

func describeFound(s string) string {
	if s == "" {
		return "missing"
	}
	return fmt.Sprintf("%q", s)
}

// DecodeJob decodes one Job manifest, YAML or JSON. Unknown fields
// anywhere in the document, duplicate keys, a list item given as null,
// and a wrong or missing apiVersion/kind are errors; any other null
// decodes as an API server with the Job CRD stores it, as the field left
// out (a task template given as `template:` with nothing under it is no
// template; see the package comment). Empty documents around the job (a
// leading or trailing "---") are ignored; a second job is an error.
func DecodeJob(data []byte) (*vcjob.Job, error) {
	return DecodeJobWith(data, Options{})
}

// DecodeJobWith is DecodeJob with options.
func DecodeJobWith(data []byte, opts Options) (*vcjob.Job, error) {
	jobs, err := decodeStream(data, opts, 2)
	if err != nil {
		return nil, err
	}
	if len(jobs) > 1 {
		return nil, fmt.Errorf("vcjob: %w: DecodeJobs reads several jobs", ErrMultipleDocuments)
	}
	return jobs[0], nil
}

// DecodeJobs decodes a multi-document YAML stream ("---" separated) into
// its jobs, in order, skipping empty documents. Decoding is strict as in
// DecodeJob; an error's lines count in the whole stream.
func DecodeJobs(data []byte) ([]*vcjob.Job, error) {
	return DecodeJobsWith(data, Options{})
}

// DecodeJobsWith is DecodeJobs with options.
func DecodeJobsWith(data []byte, opts Options) ([]*vcjob.Job, error) {
	return decodeStream(data, opts, -1)
}

// decodeStream decodes up to limit jobs (all when limit < 0); stopping
// early lets DecodeJob refuse a stream without decoding all of it.
func decodeStream(data []byte, opts Options, limit int) ([]*vcjob.Job, error) {
	docs, err := splitDocuments(data)
	if err != nil {
		return nil, fmt.Errorf("vcjob: %w", err)
	}
	var jobs []*vcjob.Job
	for _, doc := range docs {
		if limit >= 0 && len(jobs) >= limit {
			break
		}
		job, err := decodeDocument(doc.data, opts)
		switch {
		case errors.Is(err, ErrEmpty):
			continue
		case err != nil:
			return nil, inDocument(err, opts.lineOf(doc.line))
		}
		jobs = append(jobs, job)
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("vcjob: %w", ErrEmpty)
	}
	return jobs, nil
}

// document is one document of a YAML stream and the line it starts on,
// which is how an error points the reader at it.
type document struct {
	line int
	data []byte
}

// splitDocuments cuts a YAML stream at its "---" lines. Like kubectl, it
// accepts only a comment after the marker on the same line.
func splitDocuments(data []byte) ([]document, error) {
	var docs []document
	start, startLine := 0, 1
	for pos, line := 0, 1; pos < len(data); line++ {
		next := len(data)
		if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
			next = pos + i + 1
		}
		if text := data[pos:next]; isDocumentSeparator(text) {
			if rest := bytes.TrimSpace(text[3:]); len(rest) > 0 && rest[0] != '#' {
				return nil, fmt.Errorf("line %d: invalid document separator %q: only a comment may follow \"---\"", line, bytes.TrimSpace(text))
			}
			docs = append(docs, document{line: startLine, data: data[start:pos]})
			start, startLine = next, line+1
		}
		pos = next
	}
	return append(docs, document{line: startLine, data: data[start:]}), nil
}

// isDocumentSeparator: "---" alone or followed by white space; "---x" is
// ordinary content in YAML.
func isDocumentSeparator(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("---")) {
		return false
	}
	return len(line) == 3 || strings.ContainsRune(" \t\r\n", rune(line[3]))
}

func decodeDocument(doc []byte, opts Options) (*vcjob.Job, error) {
	job := &vcjob.Job{}
	if err := decodeObject(doc, opts, jobDocument(), job, &job.ObjectMeta); err != nil {
		return nil, err
	}
	return job, nil
}

// documentKind is what decodeObject reads a document as.
type documentKind struct {
	// name names the object in errors: job "train".
	name string
	// checkTypeMeta accepts the document's apiVersion and kind.
	checkTypeMeta func(data []byte) error
}

func jobDocument() documentKind {
	return documentKind{name: "job", checkTypeMeta: checkTypeMeta}
}

// decodeObject decodes one document into obj, a Job or a CronJob: it
// must be a mapping whose apiVersion and kind the kind accepts. A decode
// error names the object (kind.name, meta.Name) when its name was read.
func decodeObject(doc []byte, opts Options, kind documentKind, obj runtime.Object, meta *metav1.ObjectMeta) error {
	if len(bytes.TrimSpace(doc)) == 0 {
		return ErrEmpty // YAML would choke on a stray tab
	}
	data, err := documentToJSON(doc, opts)
	if err != nil {
		return err
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || bytes.Equal(data, []byte("null")) {
		return ErrEmpty
	}
	if data[0] != '{' {
		return fmt.Errorf("%w: found %s", ErrNotMapping, jsonKind(data[0]))
	}
	if err := kind.checkTypeMeta(data); err != nil {
		return err
	}
	// The apimachinery serializer is what an API server decodes with: case
	// sensitive, and in strict mode it names every unknown or duplicate
	// field by its full path (spec.tasks[0].template.spec...).
	serializer := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, unregisteredTypes{}, unregisteredTypes{},
		kjson.SerializerOptions{Strict: !opts.AllowUnknownFields})
	_, _, err = serializer.Decode(data, nil, obj)
	decoded := reflect.ValueOf(obj)
	if err != nil {
		decoded = reflect.New(decoded.Type().Elem()) // the types alone: nothing to prune
	}
	nulls := schemaNulls(data, decoded)
	if err == nil && len(nulls) == 0 {
		return nil
	}
	object := ""
	if meta.Name != "" {
		object = fmt.Sprintf("%s %q", kind.name, meta.Name)
	}
	return newError(err, nulls, doc, data, 1, object, reflect.TypeOf(obj).Elem())
}

// documentToJSON turns one YAML or JSON document into JSON. JSON is kept
// as it is, so that JSON that is not also YAML (tab indentation) decodes.
func documentToJSON(doc []byte, opts Options) ([]byte, error) {
	trimmed := bytes.TrimSpace(doc)
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') && json.Valid(trimmed) {
		return trimmed, nil
	}
	convert := yaml.YAMLToJSONStrict
	if opts.AllowUnknownFields {
		convert = yaml.YAMLToJSON
	}
	data, err := convert(doc)
	if err != nil {
		return nil, fmt.Errorf("invalid YAML: %w", err)
	}
	return data, nil
}

func jsonKind(first byte) string {
	switch {
	case first == '[':
		return "a list"
	case first == '"':
		return "a string"
	case first == 't' || first == 'f':
		return "a boolean"
	default:
		return "a number"
	}
}

// checkTypeMeta reads apiVersion and kind with exact (case-sensitive) keys.
func checkTypeMeta(data []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return fmt.Errorf("reading apiVersion and kind: %w", err)
	}
	var found TypeMismatchError
	for _, f := range []struct {
		key string
		dst *string
	}{{"apiVersion", &found.APIVersion}, {"kind", &found.Kind}} {
		raw, ok := fields[f.key]
		if !ok || bytes.Equal(raw, []byte("null")) {
			continue
		}
		if err := json.Unmarshal(raw, f.dst); err != nil {
			return fmt.Errorf("%s must be a string, found %s: %w", f.key, raw, err)
		}
	}
	if found.APIVersion != vcjob.APIVersion || found.Kind != vcjob.JobKind {
		return &found
	}
	return nil
}

// unregisteredTypes is a type registry that knows no types: it makes the
// apimachinery serializer decode straight into the object it is given.
type unregisteredTypes struct{}

func (unregisteredTypes) ObjectKinds(obj runtime.Object) ([]schema.GroupVersionKind, bool, error) {
	return nil, false, runtime.NewNotRegisteredErrForType("manifest", reflect.TypeOf(obj))
}

func (unregisteredTypes) Recognizes(schema.GroupVersionKind) bool { return false }

func (unregisteredTypes) New(kind schema.GroupVersionKind) (runtime.Object, error) {
	return nil, runtime.NewNotRegisteredErrForKind("manifest", kind)
}
