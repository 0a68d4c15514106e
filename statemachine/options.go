package statemachine

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/plugins"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/policy"
)

// PlanOptions are what the plans need beyond the job info: the job's
// plugins (built from spec.plugins, e.g. by plugins.Registry.Build) and the
// priority-class lookup for the PodGroup's minResources.
type PlanOptions struct {
	Plugins    []plugins.Plugin
	Priorities podgroup.PriorityLookup
	// Recount plans by walking every pod of the job, as Volcano's
	// controller does, instead of reading the counts the job info keeps
	// (jobinfo.TaskPods). The answers are the same; the walk is the oracle
	// the counted plans are tested against, and costs O(pods) per plan.
	Recount bool
	// PodGroup is the job's desired PodGroup (podgroup.Desired) when the
	// caller has it already; Applied keeps one per job object. It is
	// shared, not copied: nobody may change it. nil computes it.
	PodGroup *podgroup.PodGroup
	// Names makes the random parts of generated names (claims, the pods'
	// job volumes); nil uses SeededNames seeded by the job's UID, so that
	// a plan is reproducible.
	Names NameSource
	// ClaimExists looks a volume claim up in the job's namespace, as
	// Volcano's claim lister does: a generated claim name that exists is
	// drawn again. nil finds none.
	ClaimExists func(namespace, name string) (bool, error)
	// Choices are vcjob's own choices where it departs from Volcano.
	Choices Choices
	// Behavior is the job's behaviour, already resolved
	// (behavior.Set.For): the plans read CountFinishedAfterKill and
	// OutOfSyncCountedOnce. The zero value decides as Volcano does.
	Behavior behavior.Set
	// Extensions are the job's policy extensions (policy.Extensions); the
	// plans read RestartBackoff: after a restart, SyncJob creates no pod
	// until the backoff has passed (SyncPlan.HeldUntil). nil: none.
	Extensions *policy.Extensions
}

// Choices are where vcjob departs from Volcano on request; the zero value
// does what Volcano does. Each is listed in the README with its reason.
type Choices struct {
	// DeterministicClaimNames names the claim of a volume that names
	// none <job>-volume-<i>, mounts it in pods under the same name, and
	// writes nothing back into the job: plans stay reproducible and
	// initiating such a job costs one API write less. Volcano draws
	// <job>-pvc-<12 random>, writes it into spec.volumes with an update of
	// the job, and mounts it under <job>-<12 random>, per pod.
	DeterministicClaimNames bool
	// RequestsOnlyMinResources sizes the PodGroup by the pods' requests
	// (podgroup.SizeByRequests), the figures a scheduler reads. Volcano
	// charges what the quota evaluator charges (count/pods, pods,
	// requests.*, limits.* besides the bare names).
	RequestsOnlyMinResources bool
}

// podGroupOptions are the PodGroup options the choices and priorities say.
func (o *PlanOptions) podGroupOptions() podgroup.Options {
	po := podgroup.Options{Priorities: o.Priorities}
	if o.Choices.RequestsOnlyMinResources {
		po.Sizing = podgroup.SizeByRequests
	}
	return po
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

// claims lists the job's volume claims, in spec order, and records them
// in the job's controlled resources, as Volcano's createJobIOIfNotExist
// does: a volume that names no claim gets a generated name, written into
// job's spec (generated reports it), and its claim is created when it
// has a spec; a named claim must exist. job is the plan's own copy.
func claims(job *vcjob.Job, opts *PlanOptions) (out []Claim, generated bool, err error) {
	var names NameSource
	for i := range job.Spec.Volumes {
		v := &job.Spec.Volumes[i]
		name := v.VolumeClaimName
		create := false
		switch {
		case name != "":
		case opts.Choices.DeterministicClaimNames:
			name, create = VolumeClaimName(job, i), v.VolumeClaim != nil
		default:
			if names == nil {
				names = namesFor(opts.Names, string(job.UID))
			}
			for {
				name = job.Name + "-pvc-" + names.RandomString(12)
				exists := false
				if opts.ClaimExists != nil {
					if exists, err = opts.ClaimExists(job.Namespace, name); err != nil {
						return out, generated, fmt.Errorf("look up claim %s: %w", name, err)
					}
				}
				if !exists {
					break
				}
			}
			v.VolumeClaimName, generated = name, true
			create = v.VolumeClaim != nil
			if !create {
				// Volcano neither creates nor checks such a claim.
				recordClaim(job, name)
				continue
			}
		}
		c := Claim{Name: name}
		if create {
			c.Spec = v.VolumeClaim.DeepCopy()
		}
		out = append(out, c)
		recordClaim(job, name)
	}
	return out, generated, nil
}

func recordClaim(job *vcjob.Job, name string) {
	if job.Status.ControlledResources == nil {
		job.Status.ControlledResources = map[string]string{}
	}
	job.Status.ControlledResources[ControlledClaimKey(name)] = name
}

// merge appends b's objects to a's.
func merge(a *plugins.Objects, b plugins.Objects) {
	a.Apply = append(a.Apply, b.Apply...)
	a.Delete = append(a.Delete, b.Delete...)
}
