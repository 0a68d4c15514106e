package vcjob

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// +k8s:deepcopy-gen=false

// CronJobTypeMismatchError says a document is not a batch.volcano.sh/v1alpha1
// CronJob. APIVersion and Kind are what the document holds ("" when
// missing).
type CronJobTypeMismatchError struct {
	APIVersion string
	Kind       string
}

func (e *CronJobTypeMismatchError) Error() string {
	return typeMismatch(e.APIVersion, e.Kind, CronJobKind)
}

// DecodeCronJob decodes one CronJob manifest, YAML or JSON, as strictly as
// DecodeJob decodes a job: unknown fields anywhere (the job template
// included), duplicate keys, and a wrong or missing apiVersion/kind are
// errors, each naming the field. Empty documents around the cronjob are
// ignored; a second document is an error. Errors wrap ErrEmptyManifest,
// ErrNotMapping, ErrMultipleDocuments or *CronJobTypeMismatchError where
// those apply.
func DecodeCronJob(data []byte) (*CronJob, error) {
	return DecodeCronJobWith(data, DecodeOptions{})
}

// DecodeCronJobWith is DecodeCronJob with options: AllowUnknownFields
// drops fields the types do not know, as an API server with the CRD
// prunes them.
func DecodeCronJobWith(data []byte, opts DecodeOptions) (*CronJob, error) {
	docs, err := splitDocuments(data)
	if err != nil {
		return nil, fmt.Errorf("vcjob: %w", err)
	}
	var found *CronJob
	for _, doc := range docs {
		cj, err := decodeCronJobDocument(doc.data, opts)
		switch {
		case errors.Is(err, ErrEmptyManifest):
			continue
		case err != nil:
			return nil, inDocument(err, opts.lineOf(doc.line))
		case found != nil:
			return nil, inDocument(fmt.Errorf("a manifest holds one cronjob, found a second: %w", ErrMultipleDocuments), opts.lineOf(doc.line))
		}
		found = cj
	}
	if found == nil {
		return nil, fmt.Errorf("vcjob: %w", ErrEmptyManifest)
	}
	return found, nil
}

func decodeCronJobDocument(doc []byte, opts DecodeOptions) (*CronJob, error) {
	cj := &CronJob{}
	if err := decodeObject(doc, opts, checkCronJobTypeMeta, cj, &cj.ObjectMeta, "cronjob"); err != nil {
		return nil, err
	}
	// decodeObject has read the document as JSON once; reading it again
	// cannot fail.
	data, _ := documentToJSON(doc, opts)
	cj.nullPodTemplates = nullPodTemplates(data)
	return cj, nil
}

// nullPodTemplates finds the tasks of a cronjob's job template whose
// template is JSON null, which decoding turns into an empty template.
func nullPodTemplates(data []byte) []int {
	var raw struct {
		Spec struct {
			JobTemplate struct {
				Spec struct {
					Tasks []map[string]json.RawMessage `json:"tasks"`
				} `json:"spec"`
			} `json:"jobTemplate"`
		} `json:"spec"`
	}
	if json.Unmarshal(data, &raw) != nil {
		return nil
	}
	var nulls []int
	for i, task := range raw.Spec.JobTemplate.Spec.Tasks {
		if tmpl, ok := task["template"]; ok && bytes.Equal(bytes.TrimSpace(tmpl), []byte("null")) {
			nulls = append(nulls, i)
		}
	}
	return nulls
}

// checkCronJobTypeMeta reads apiVersion and kind with DecodeJob's
// checkTypeMeta (exact, case-sensitive keys) and wants a CronJob instead.
func checkCronJobTypeMeta(data []byte) error {
	var mismatch *TypeMismatchError
	switch err := checkTypeMeta(data); {
	case errors.As(err, &mismatch):
		if mismatch.APIVersion == APIVersion && mismatch.Kind == CronJobKind {
			return nil
		}
		return &CronJobTypeMismatchError{APIVersion: mismatch.APIVersion, Kind: mismatch.Kind}
	case err != nil:
		return err
	default: // a Volcano Job
		return &CronJobTypeMismatchError{APIVersion: APIVersion, Kind: JobKind}
	}
}
