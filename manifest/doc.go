// Package manifest decodes Volcano Job and CronJob manifests, YAML or
// JSON, strictly: a field the types lack, a duplicate key, a value of the
// wrong kind, or the wrong apiVersion or kind is an error that names the
// field by its path, as an API server writes it, and the input line it is
// on. It owns DecodeJob, DecodeJobs (a "---" separated stream),
// DecodeCronJob, their ...With variants taking Options, and the errors
// they return: *Error with its FieldProblems, the DocumentError sentinels
// (ErrEmpty, ErrNotMapping, ErrMultipleDocuments), *TypeMismatchError and
// *CronJobTypeMismatchError. Package vcjob holds the types it decodes into
// and their defaults; package validation says what Volcano's admission
// says of them.
//
//	job, err := manifest.DecodeJob(data)
//	var e *manifest.Error
//	if errors.As(err, &e) {
//		for _, f := range e.Fields {
//			fmt.Printf("line %d: %s: %s\n", f.Line, f.Path, f.Problem)
//		}
//	}
//
// Options.AllowUnknownFields reads a manifest as an API server with
// Volcano's CRD does, dropping the fields the types lack (Error.UnknownFields
// lists what strict decoding refused); FirstLine counts lines in a larger
// input a document was cut out of.
//
// Decoding goes through the apimachinery JSON serializer an API server
// uses (case-sensitive keys, unknown and duplicate fields named by path).
// That path carries no line: the document is also read with
// go.yaml.in/yaml/v3, whose node tree keeps the line of every key, to
// point each problem at its line.
//
// A null decodes as an API server with Volcano's CRDs stores it. Before
// it defaults and validates, the server prunes a null field or map value
// whose schema is not nullable and has no default
// (apiextensions-apiserver's PruneNonNullableNullsWithoutDefaults; a
// defaulted one then gets its default), so a null field is the field
// left out, which is what Go decodes a null object, list or string as.
// A task template given as null (`template:` with nothing under it, or
// `template: null`) is thus a task without a template, which package
// validation judges as Volcano's webhook does. A null map value is
// removed from the map (`plugins: {ssh: }` is no ssh plugin). A null
// list item is not pruned, and the schema refuses it: it is a
// FieldProblem ("must be an object, not null"). Inside a task's template
// or a volume's claim, which the CRDs leave untyped, the server keeps the
// nulls as written and Go readers decode them as the decoder does.
//
// # Where things are
//
//	decode.go           Options, DecodeJob and DecodeJobs, the stream split, the type check
//	cronjob.go          DecodeCronJob and CronJobTypeMismatchError
//	error.go            Error and FieldProblem: the fields at fault, their paths and lines
//	nulls.go            the nulls the CRDs' schemas prune or refuse
//	*_test.go           the cases; manifests_test.go decodes Volcano's own example
//	                    manifests and recorded jobs, kept beside the repository
package manifest
