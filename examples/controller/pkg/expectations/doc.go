// Package expectations records a job controller's own writes that its
// informers have not shown yet: pods created (by name, with their job) and
// PodGroups created or deleted. The Applier (package applier) consults it
// so that a write is not sent twice (it would be answered 409 or 404), the
// informers' event handlers (package intake) observe what the informers
// show, and a worker holds back the requests of a job whose created pods
// it has not seen yet. Each expectation is trusted for TTL on the clock
// it is given; safe for concurrent use.
//
//	e := expectations.New(clock.RealClock{}) // k8s.io/utils/clock; a FakeClock in tests
//	e.ExpectPodCreation("ns/job-worker-0", "ns/job")   // before the create
//	job, last := e.CreationObserved("ns/job-worker-0") // its add event
//	_ = e.Satisfied("ns/job")                          // true once every create is seen
package expectations
