// Package record holds the Kubernetes Events Volcano's controllers record,
// as values: a type (Normal or Warning), a reason and a message, word for
// word as Volcano writes them.
//
// These are not vcjob.Event, the enum of pod events a job's lifecycle
// policies match: a record.Event is what `kubectl describe` shows.
//
// The library's decisions return Events in the order Volcano records them
// (statemachine.Effects.Events for a cluster call, worker.Record.Events
// for a whole step, cache.Cache.OnCommand for a Command taken); a
// controller hands each to its event recorder on the object the decision
// is about (the job for the job controller's steps, the cronjob for
// cronjob.Decide):
//
//	for _, e := range rec.Events {
//		recorder.Event(job, e.Type, e.Reason, e.Message)
//	}
//
// The package decides nothing and imports nothing of vcjob's.
package record
