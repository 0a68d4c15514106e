// Package admission serves Volcano's admission webhooks for Jobs and
// CronJobs from the vcjob library: /jobs/mutate (vcjob.SetDefaults, as a
// JSON patch), /jobs/validate (validation.ValidateJob on create,
// validation.ValidateJobUpdate on update) and /cronjobs/validate
// (validation.ValidateCronJob), answering admission.k8s.io/v1
// AdmissionReviews. A refusal carries the library's message
// (field.ErrorList's aggregate: every problem with the path of the field
// at fault), not Volcano's hand-written sentences.
//
//	srv := &admission.Server{Addr: ":9443", CertFile: "tls.crt", KeyFile: "tls.key", Metrics: m}
//	err := srv.Run(ctx) // until ctx is done
package admission
