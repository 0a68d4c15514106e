package statemachine

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/plugins"
	"github.com/vcjob/vcjob/podgroup"
)

// PlanOptions are what the plans need beyond the job info: the job's
// plugins (built from spec.plugins, e.g. by plugins.Registry.Build) and the
// priority-class lookup for the PodGroup's minResources.
type PlanOptions struct {
	Plugins    []plugins.Plugin
	Priorities podgroup.PriorityLookup
	// Recount plans by walking every pod of the job, as Volcano's
	// controller does, instead of reading the counts the job info keeps
	// (vcjob.TaskPods). The answers are the same; the walk is the oracle
	// the counted plans are tested against, and costs O(pods) per plan.
	Recount bool
	// PodGroup is the job's desired PodGroup (podgroup.Desired) when the
	// caller has it already; Applied keeps one per job object. It is
	// shared, not copied: nobody may change it. nil computes it.
	PodGroup *podgroup.PodGroup
}

// Claim is a volume claim a job's pods mount. Spec is set for a claim the
// controller creates when missing; without it the claim must already
// exist, and the job waits (the sync fails) until it does.
type Claim struct {
	Name string                            `json:"name"`
	Spec *corev1.PersistentVolumeClaimSpec `json:"spec,omitempty"`
}

// ControlledClaimKey is the status.controlledResources key that records a
// claim the job uses.
func ControlledClaimKey(name string) string { return "volume-pvc-" + name }

// claims lists the job's volume claims and records them in the job's
// controlled resources.
func claims(job *vcjob.Job) []Claim {
	var out []Claim
	for i, v := range job.Spec.Volumes {
		name := VolumeClaimName(job, i)
		c := Claim{Name: name}
		if v.VolumeClaimName == "" && v.VolumeClaim != nil {
			c.Spec = v.VolumeClaim.DeepCopy()
		}
		out = append(out, c)
		if job.Status.ControlledResources == nil {
			job.Status.ControlledResources = map[string]string{}
		}
		job.Status.ControlledResources[ControlledClaimKey(name)] = name
	}
	return out
}

// merge appends b's objects to a's.
func merge(a *plugins.Objects, b plugins.Objects) {
	a.Apply = append(a.Apply, b.Apply...)
	a.Delete = append(a.Delete, b.Delete...)
}
