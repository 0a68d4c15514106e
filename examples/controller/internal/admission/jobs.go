package admission

import (
	"encoding/json"
	"fmt"

	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/validation"
)

// MutateJob is Volcano's mutating webhook for Jobs: on create, the
// defaults vcjob.SetDefaults fills in, as a JSON patch.
//
// The patch is the difference between the job as decoded and the job
// defaulted, both encoded from vcjob's types, so it holds the defaults
// and nothing else: a patch against the request's own bytes would also
// rewrite what the typed encoding spells differently (quantities, empty
// fields). gomodules.xyz/jsonpatch computes it, the library
// controller-runtime's admission responses use (already in this module's
// graph through it).
func MutateJob(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	if req.Operation != admissionv1.Create {
		return allowed()
	}
	job, err := decodeJob(req.Object)
	if err != nil {
		return failed(err)
	}
	before, err := json.Marshal(job)
	if err != nil {
		return failed(err)
	}
	vcjob.SetDefaults(job)
	after, err := json.Marshal(job)
	if err != nil {
		return failed(err)
	}
	ops, err := jsonpatch.CreatePatch(before, after)
	if err != nil {
		return failed(err)
	}
	if len(ops) == 0 {
		return allowed()
	}
	patch, err := json.Marshal(ops)
	if err != nil {
		return failed(err)
	}
	pt := admissionv1.PatchTypeJSONPatch
	return &admissionv1.AdmissionResponse{Allowed: true, Patch: patch, PatchType: &pt}
}

// ValidateJob is Volcano's validating webhook for Jobs: a create is
// checked by validation.ValidateJob (the job arrives defaulted: the API
// server runs the mutating webhooks first), an update by
// validation.ValidateJobUpdate (only the counts Volcano lets change may
// change). Status writes go to the status subresource, which the
// webhook's rules do not match.
func ValidateJob(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	job, err := decodeJob(req.Object)
	if err != nil {
		return failed(err)
	}
	switch req.Operation {
	case admissionv1.Create:
		if errs := validation.ValidateJob(job); len(errs) > 0 {
			return refused(errs)
		}
	case admissionv1.Update:
		old, err := decodeJob(req.OldObject)
		if err != nil {
			return failed(err)
		}
		if errs := validation.ValidateJobUpdate(job, old); len(errs) > 0 {
			return refused(errs)
		}
	}
	return allowed()
}

// ValidateCronJob is Volcano's validating webhook for CronJobs, on create
// and update: validation.ValidateCronJob, after the defaults the CRD's
// schema fills in (already there when the API server calls).
func ValidateCronJob(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	var cj vcjob.CronJob
	if err := json.Unmarshal(req.Object.Raw, &cj); err != nil {
		return failed(fmt.Errorf("decode cronjob: %w", err))
	}
	vcjob.SetCronJobDefaults(&cj)
	if errs := validation.ValidateCronJob(&cj); len(errs) > 0 {
		return refused(errs)
	}
	return allowed()
}

func decodeJob(obj runtime.RawExtension) (*vcjob.Job, error) {
	var job vcjob.Job
	if err := json.Unmarshal(obj.Raw, &job); err != nil {
		return nil, fmt.Errorf("decode job: %w", err)
	}
	return &job, nil
}
