// Package coalesce holds back a job controller worker's status writes
// (--coalesce-status): a write that only moves pod counts, or that of a
// finished job, goes into the cache at once and out to the API server
// once per pass over the worker's queue; any other status write replaces
// what was held back, and a pod or job write of the same job sends it
// first. Why and how is told at the top of coalesce.go.
//
//	st := coalesce.New(jobs, a, queueFlush) // one per worker
//	cluster := &statemachine.Applied{Applier: st.Applier(), ...} // the worker's step writes through it
//	st.Overlay(ns, name) // before each step of the job
//	st.Flush(ctx, key)   // on the flush item queueFlush queued
package coalesce
