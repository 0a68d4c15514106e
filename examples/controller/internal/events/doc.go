// Package events posts the vcjob library's Events (record.Event values: a
// type, a reason, a message) as Kubernetes Events, through client-go's
// event broadcaster as Volcano's controllers do: one broadcaster, sinking
// to the core Events API, whose correlator aggregates repeats and
// rate-limits each object's events (client-go's defaults, as Volcano's).
//
// The library's package record and client-go's tools/record share a name:
// this module imports the library's as vcrecord and client-go's as
// kuberecord.
//
//	recorder, stop := events.NewRecorder(ctx, set.Kube, scheme, 4)
//	defer stop()
//	r := events.For(recorder, m, "job") // nil recorder: records nothing
//	r.Record(job, record.Events)        // the library's Events of a step
package events
