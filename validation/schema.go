package validation

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vcjob/vcjob"
)

// Limits from the Job CRD's OpenAPI schema.
const (
	maxSchedulerNameLength = 63
	maxSubdomainLength     = content.DNS1123SubdomainMaxLength // queue, priorityClassName, volumeClaimName, highestTierName
)

// validateSpecSchema checks what the CRD's OpenAPI schema checks of a job
// spec (the API server does, before any webhook): bounds, enums, patterns
// and lengths. The CronJob CRD embeds the same schema for its job
// template, so this is all a CronJob's template is checked against.
func validateSpecSchema(spec *vcjob.JobSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(spec.SchedulerName) > maxSchedulerNameLength {
		errs = append(errs, field.TooLong(path.Child("schedulerName"), spec.SchedulerName, maxSchedulerNameLength))
	}
	if spec.MinAvailable < 0 {
		errs = append(errs, field.Invalid(path.Child("minAvailable"), spec.MinAvailable, content.MinError(0)))
	}
	if len(spec.Tasks) == 0 {
		errs = append(errs, field.Required(path.Child("tasks"), "at least one task is required"))
	}
	errs = append(errs, validateSubdomain(path.Child("queue"), spec.Queue)...)
	errs = append(errs, validateSubdomain(path.Child("priorityClassName"), spec.PriorityClassName)...)
	if spec.MaxRetry < 0 {
		errs = append(errs, field.Invalid(path.Child("maxRetry"), spec.MaxRetry, content.MinError(0)))
	}
	if ttl := spec.TTLSecondsAfterFinished; ttl != nil && *ttl < 0 {
		errs = append(errs, field.Invalid(path.Child("ttlSecondsAfterFinished"), *ttl, content.MinError(0)))
	}
	if ms := spec.MinSuccess; ms != nil && *ms < 1 {
		errs = append(errs, field.Invalid(path.Child("minSuccess"), *ms, content.MinError(1)))
	}
	errs = append(errs, validateNetworkTopologySchema(spec.NetworkTopology, path.Child("networkTopology"))...)
	for i, vol := range spec.Volumes {
		p := path.Child("volumes").Index(i)
		switch {
		case vol.MountPath == "":
			errs = append(errs, field.Required(p.Child("mountPath"), ""))
		case strings.Contains(vol.MountPath, ":"):
			errs = append(errs, field.Invalid(p.Child("mountPath"), vol.MountPath, "must not contain ':'"))
		}
		if len(vol.VolumeClaimName) > maxSubdomainLength {
			errs = append(errs, field.TooLong(p.Child("volumeClaimName"), vol.VolumeClaimName, maxSubdomainLength))
		}
	}
	errs = append(errs, validatePolicyActionsSchema(spec.Policies, path.Child("policies"))...)

	for i := range spec.Tasks {
		task := &spec.Tasks[i]
		p := path.Child("tasks").Index(i)
		// An empty name is an absent one to the schema (the webhook
		// refuses it; vcjob.SetDefaults names the task).
		if msgs := content.IsDNS1123Label(task.Name); task.Name != "" && len(msgs) > 0 {
			errs = append(errs, field.Invalid(p.Child("name"), task.Name, strings.Join(msgs, "; ")))
		}
		if task.Replicas < 0 {
			errs = append(errs, field.Invalid(p.Child("replicas"), task.Replicas, content.MinError(0)))
		}
		if ma := task.MinAvailable; ma != nil && *ma < 0 {
			errs = append(errs, field.Invalid(p.Child("minAvailable"), *ma, content.MinError(0)))
		}
		if task.MaxRetry < 0 {
			errs = append(errs, field.Invalid(p.Child("maxRetry"), task.MaxRetry, content.MinError(0)))
		}
		switch task.TopologyPolicy {
		case "", vcjob.NumaPolicyNone, vcjob.NumaPolicyBestEffort, vcjob.NumaPolicyRestricted, vcjob.NumaPolicySingleNumaNode:
		default:
			errs = append(errs, field.NotSupported(p.Child("topologyPolicy"), task.TopologyPolicy,
				[]vcjob.NumaPolicy{vcjob.NumaPolicyNone, vcjob.NumaPolicyBestEffort, vcjob.NumaPolicyRestricted, vcjob.NumaPolicySingleNumaNode}))
		}
		if pp := task.PartitionPolicy; pp != nil {
			pp := task.PartitionPolicy
			ppPath := p.Child("partitionPolicy")
			if pp.TotalPartitions < 1 {
				errs = append(errs, field.Invalid(ppPath.Child("totalPartitions"), pp.TotalPartitions, content.MinError(1)))
			}
			if pp.PartitionSize < 1 {
				errs = append(errs, field.Invalid(ppPath.Child("partitionSize"), pp.PartitionSize, content.MinError(1)))
			}
			if pp.MinPartitions < 0 {
				errs = append(errs, field.Invalid(ppPath.Child("minPartitions"), pp.MinPartitions, content.MinError(0)))
			}
			errs = append(errs, validateNetworkTopologySchema(pp.NetworkTopology, ppPath.Child("networkTopology"))...)
		}
		errs = append(errs, validatePolicyActionsSchema(task.Policies, p.Child("policies"))...)
	}
	return errs
}

// validatePolicyActionsSchema: the schema's enum of actions, for a policy
// that names one (the webhook requires one only of policies that match
// events).
func validatePolicyActionsSchema(policies []vcjob.LifecyclePolicy, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, policy := range policies {
		if policy.Action != "" && !slices.Contains(vcjob.PolicyActions(), policy.Action) {
			errs = append(errs, field.NotSupported(path.Index(i).Child("action"), policy.Action, vcjob.PolicyActions()))
		}
	}
	return errs
}

func validateNetworkTopologySchema(nt *vcjob.NetworkTopologySpec, path *field.Path) field.ErrorList {
	if nt == nil {
		return nil
	}
	var errs field.ErrorList
	switch nt.Mode {
	case "", vcjob.HardNetworkTopologyMode, vcjob.SoftNetworkTopologyMode:
	default:
		errs = append(errs, field.NotSupported(path.Child("mode"), nt.Mode,
			[]vcjob.NetworkTopologyMode{vcjob.HardNetworkTopologyMode, vcjob.SoftNetworkTopologyMode}))
	}
	if nt.HighestTierAllowed != nil && *nt.HighestTierAllowed < 0 {
		errs = append(errs, field.Invalid(path.Child("highestTierAllowed"), *nt.HighestTierAllowed, content.MinError(0)))
	}
	if len(nt.HighestTierName) > maxSubdomainLength {
		errs = append(errs, field.TooLong(path.Child("highestTierName"), nt.HighestTierName, maxSubdomainLength))
	}
	return errs
}

// validateSubdomain checks an optional name against the CRD's
// DNS-subdomain pattern and length.
func validateSubdomain(path *field.Path, value string) field.ErrorList {
	switch {
	case value == "":
		return nil
	case len(value) > maxSubdomainLength:
		return field.ErrorList{field.TooLong(path, value, maxSubdomainLength)}
	}
	if msgs := content.IsDNS1123Subdomain(value); len(msgs) > 0 {
		return field.ErrorList{field.Invalid(path, value, strings.Join(msgs, "; "))}
	}
	return nil
}
