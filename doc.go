// Package vcjob is the batch.volcano.sh/v1alpha1 API as Go types: Job,
// CronJob and Command with their lists, DeepCopy and scheme registration
// (AddToScheme, for client-go's and controller-runtime's typed clients),
// the events and actions lifecycle policies name, the well-known label and
// annotation keys and pod names, and the defaults Volcano's mutating
// webhook and the CRD schema write.
//
// Every other package points here and never the other way:
//
//	job, err := manifest.DecodeJob(data) // strict YAML or JSON
//	vcjob.SetDefaults(job)               // what Volcano's mutating webhook writes
//	if errs := validation.ValidateJob(job); len(errs) > 0 { // what its admission says
//		return errs.ToAggregate()
//	}
//
// What acts on the API lives elsewhere: manifest (strict decoding, with
// errors that point at the field and line), validation (admission),
// jobinfo (a job with its pods, counted), request (the work a controller
// does), policy (request to action, lint, the policy extensions),
// statemachine, cache, delay, worker, cronjob, ttl, and semantics (the
// corrections of Volcano's behaviour a user may ask for).
package vcjob

// The marker below asks deepcopy-gen for DeepCopy on every type of the
// package; it stands apart from the package comment so that go doc does
// not show it.

// +k8s:deepcopy-gen=package

//go:generate go run k8s.io/code-generator/cmd/deepcopy-gen@v0.37.2 --output-file zz_generated.deepcopy.go --go-header-file hack/boilerplate.go.txt .
