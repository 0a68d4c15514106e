// Package semantics says where a job's decisions depart from Volcano's. A
// Profile is a set of corrections, each a switch that fixes one behaviour
// of Volcano that looks like a bug; the zero Profile is Volcano, decision
// for decision, and Corrected turns every correction on.
//
// An embedder chooses a profile (cache.Cache.Semantics,
// statemachine.Applied.Semantics), and each job may choose its own with
// the vcjob.dev/semantics annotation, on top (Profile.For):
//
//	p, err := semantics.Parse(semantics.Profile{}, "finished-pods-on-add,podgroup-phase-on-add")
//	sem := p.For(job) // the job's annotation on top
//	if sem.LeaveFinishedJobs { ... }
//
// What vcjob writes into objects when it departs from Volcano is
// statemachine.Choices; the policies Volcano lacks are policy.Extensions.
package semantics
