package podgroup

import "github.com/vcjob/vcjob"

// Name is the PodGroup of a job: <job>-<job uid>. Pods point at it through
// their scheduling.k8s.io/group-name annotation.
func Name(job *vcjob.Job) string {
	return job.Name + "-" + string(job.UID)
}

// LegacyName is the name older Volcano releases gave the PodGroup (the job's
// name); a controller still finds a PodGroup by it when none has Name.
func LegacyName(job *vcjob.Job) string {
	return job.Name
}

// Phase is a PodGroup's phase as the scheduler sets it.
type Phase string

// The PodGroup phases.
const (
	PhasePending   Phase = "Pending"
	PhaseRunning   Phase = "Running"
	PhaseUnknown   Phase = "Unknown"
	PhaseInqueue   Phase = "Inqueue"
	PhaseCompleted Phase = "Completed"
)

// ReconcilesPods reports whether a controller that sees a PodGroup in phase
// p creates and counts pods (Inqueue, Running, Unknown, and any phase other
// than Pending). With no PodGroup (exists false), an empty phase or Pending,
// it only re-judges the job's phase on the stored counts: the scheduler has
// not admitted the gang yet.
func ReconcilesPods(p Phase, exists bool) bool {
	return exists && p != "" && p != PhasePending
}
