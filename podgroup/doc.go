// Package podgroup owns the PodGroup Volcano's scheduler gangs a job's pods
// by: its name, and (as pure functions) the spec the controller wants it to
// have.
//
//	name := podgroup.Name(job) // "<job>-<job uid>"
package podgroup
