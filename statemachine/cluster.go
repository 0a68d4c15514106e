package statemachine

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/jobinfo"
	"github.com/vcjob/vcjob/request"
)

// UpdateStatusFunc is the state's verdict on a freshly counted status: it
// may change the phase (and retry count) and reports whether it changed
// the phase. It must not keep status: the plan reuses it.
type UpdateStatusFunc func(status *vcjob.JobStatus) (phaseChanged bool)

// Retain is the set of pod phases a whole-job kill leaves alone.
type Retain string

// The retain sets.
const (
	// RetainNone kills every pod.
	RetainNone Retain = "none"
	// RetainSoft keeps Succeeded and Failed pods, so their results and logs
	// survive the job's end.
	RetainSoft Retain = "soft"
)

// Keeps reports whether a pod in phase is retained.
func (r Retain) Keeps(phase corev1.PodPhase) bool {
	return r == RetainSoft && (phase == corev1.PodSucceeded || phase == corev1.PodFailed)
}

// Cluster is what the state machine acts through: the three calls of
// Volcano's controller. Each is handed the job info the decision was made
// on and the state's status-update function; what the call does to pods,
// the PodGroup and the job status is computed by PlanSync and PlanKill, so
// an implementation only applies those plans.
//
// ctx is the caller's: an implementation hands it to every API call it
// makes, so that a controller shutting down or losing its lease stops the
// call, and a logger or trace in it reaches the clients (see the package
// doc for what a cancelled context leaves behind).
type Cluster interface {
	SyncJob(ctx context.Context, ji *jobinfo.Info, update UpdateStatusFunc) error
	KillJob(ctx context.Context, ji *jobinfo.Info, retain Retain, update UpdateStatusFunc) error
	KillTarget(ctx context.Context, ji *jobinfo.Info, target request.Target, update UpdateStatusFunc) error
}
