// Package coalesce holds back a job controller worker's status writes
// (--coalesce-status): a write that only moves pod counts, or that of a
// finished job, goes into the cache at once and out to the API server
// once per pass over the worker's queue; any other write, and any pod or
// job write of the same job, sends what was held back first. Why and how
// is told at the top of coalesce.go.
//
//	st := coalesce.New(jobs, a, queueFlush) // one per worker
//	step.Cluster.Applier = st.Applier()    // instead of a
//	st.Overlay(ns, name)                   // before each step of the job
//	st.Flush(ctx, key)                     // on the flush item queueFlush queued
package coalesce
