// Package validation says of a Volcano Job or CronJob exactly what
// Volcano's admission says: the CRD's OpenAPI schema, then Volcano's
// validating webhooks, including Kubernetes' pod template validation of
// every task's template. No more and no less: a check stricter than
// Volcano's is a lint.Lint finding, not an error here. It owns create
// validation (ValidateJob), update validation (ValidateJobUpdate), CronJob
// validation (ValidateCronJob) and the pod template validation
// (ValidatePodTemplateSpec); package vcjob holds the types it checks, and
// package manifest decodes them (a task template given as null as one
// left out, as the API server stores it).
//
// Errors are a field.ErrorList, every problem at once, each with the path
// of the field at fault. Run the defaults first, as the API server runs
// Volcano's mutating webhook before the validating one:
//
//	job, err := manifest.DecodeJob(data)
//	if err != nil {
//		return err
//	}
//	vcjob.SetDefaults(job)
//	if errs := validation.ValidateJob(job); len(errs) > 0 {
//		return errs.ToAggregate()
//	}
//
// What needs the cluster comes in through Options: a QueueLookup for
// Volcano's queue rules (exists, Open, a leaf, not root), and a
// PodTemplateValidator to replace the built-in pod template validation by
// a full one (Kubernetes' own, say; see validation/podvalidation):
//
//	errs := validation.ValidateJobWith(job, validation.Options{Queues: myQueues})
package validation
