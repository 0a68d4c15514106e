package manifest

import (
	"errors"
	"fmt"

	"github.com/vcjob/vcjob"
)

// CronJobTypeMismatchError says a document is not a batch.volcano.sh/v1alpha1
// CronJob. APIVersion and Kind are what the document holds ("" when
// missing).
type CronJobTypeMismatchError struct {
	APIVersion string
	Kind       string
}

func (e *CronJobTypeMismatchError) Error() string {
	return typeMismatch(e.APIVersion, e.Kind, vcjob.CronJobKind)
}

// DecodeCronJob decodes one CronJob manifest, YAML or JSON, as strictly as
// DecodeJob decodes a job: unknown fields anywhere (the job template
// included), duplicate keys, a list item given as null, and a wrong or
// missing apiVersion/kind are errors, each naming the field; any other
// null decodes as the field left out (a task template given as null is no
// template). Empty documents around the cronjob are ignored; a second
// document is an error. Errors wrap ErrEmpty, ErrNotMapping,
// ErrMultipleDocuments or *CronJobTypeMismatchError where those apply.
func DecodeCronJob(data []byte) (*vcjob.CronJob, error) {
	return DecodeCronJobWith(data, Options{})
}

// DecodeCronJobWith is DecodeCronJob with options: AllowUnknownFields
// drops fields the types do not know, as an API server with the CRD
// prunes them.
func DecodeCronJobWith(data []byte, opts Options) (*vcjob.CronJob, error) {
	docs, err := splitDocuments(data)
	if err != nil {
		return nil, fmt.Errorf("vcjob: %w", err)
	}
	var found *vcjob.CronJob
	for _, doc := range docs {
		cj, err := decodeCronJobDocument(doc.data, opts)
		switch {
		case errors.Is(err, ErrEmpty):
			continue
		case err != nil:
			return nil, inDocument(err, opts.lineOf(doc.line))
		case found != nil:
			return nil, inDocument(fmt.Errorf("a manifest holds one cronjob, found a second: %w", ErrMultipleDocuments), opts.lineOf(doc.line))
		}
		found = cj
	}
	if found == nil {
		return nil, fmt.Errorf("vcjob: %w", ErrEmpty)
	}
	return found, nil
}

func decodeCronJobDocument(doc []byte, opts Options) (*vcjob.CronJob, error) {
	cj := &vcjob.CronJob{}
	kind := documentKind{name: "cronjob", checkTypeMeta: checkCronJobTypeMeta}
	if err := decodeObject(doc, opts, kind, cj, &cj.ObjectMeta); err != nil {
		return nil, err
	}
	return cj, nil
}

// checkCronJobTypeMeta reads apiVersion and kind with DecodeJob's
// checkTypeMeta (exact, case-sensitive keys) and wants a CronJob instead.
func checkCronJobTypeMeta(data []byte) error {
	var mismatch *TypeMismatchError
	switch err := checkTypeMeta(data); {
	case errors.As(err, &mismatch):
		if mismatch.APIVersion == vcjob.APIVersion && mismatch.Kind == vcjob.CronJobKind {
			return nil
		}
		return &CronJobTypeMismatchError{APIVersion: mismatch.APIVersion, Kind: mismatch.Kind}
	case err != nil:
		return err
	default: // a Volcano Job
		return &CronJobTypeMismatchError{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind}
	}
}
