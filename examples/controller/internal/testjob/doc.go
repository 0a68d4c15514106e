// Package testjob is the job the controller's unit tests run: one task of
// two workers with a PodPending timeout, decoded and defaulted as the
// controller's job informer hands it over. Only tests import it.
//
//	job := testjob.New(t, vcjob.Running)
package testjob
