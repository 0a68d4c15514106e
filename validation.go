package vcjob

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Limits from the Job CRD's OpenAPI schema.
const (
	maxSchedulerNameLength = 63
	maxSubdomainLength     = content.DNS1123SubdomainMaxLength // queue, priorityClassName, volumeClaimName, highestTierName
)

// +k8s:deepcopy-gen=false

// ValidationOptions tunes ValidateJobWith.
type ValidationOptions struct {
	// ExtraPlugins are plugin names accepted besides BuiltinPluginNames,
	// for controllers that register plugins of their own.
	ExtraPlugins []string
}

// ValidateJob checks a job about to be created the way the API server (the
// CRD schema) and Volcano's validating webhook do, and returns every
// problem found, each with the path of the field at fault. Checks that need
// cluster state (does the queue exist and is it open) are left out. Run
// SetDefaults first, as the API server runs the mutating webhook first.
func ValidateJob(job *Job) field.ErrorList {
	return ValidateJobWith(job, ValidationOptions{})
}

// ValidateJobWith is ValidateJob with options.
func ValidateJobWith(job *Job, opts ValidationOptions) field.ErrorList {
	if job == nil {
		return field.ErrorList{field.Required(field.NewPath("job"), "no job was given")}
	}
	var errs field.ErrorList
	errs = append(errs, validateNames(job)...)
	errs = append(errs, validateSpecFields(&job.Spec, opts)...)
	errs = append(errs, validateTasks(job.Spec.Tasks, field.NewPath("spec", "tasks"))...)
	errs = append(errs, validateDependencies(job.Spec.Tasks, field.NewPath("spec", "tasks"))...)
	if phase := job.Status.State.Phase; phase != "" && !phase.IsKnown() {
		errs = append(errs, field.NotSupported(field.NewPath("status", "state", "phase"), phase, Phases()))
	}
	return errs
}

// validateNames checks the job name and the name of every pod the job will
// create: Volcano requires both to be qualified names (at most 63
// characters), so a long job or task name is refused up front rather than
// failing at pod creation.
func validateNames(job *Job) field.ErrorList {
	var errs field.ErrorList
	namePath, written, name := field.NewPath("metadata", "name"), job.Name, job.Name
	if name == "" && job.GenerateName != "" {
		// The API server appends five random characters before the
		// webhook sees the job.
		namePath, written, name = field.NewPath("metadata", "generateName"), job.GenerateName, job.GenerateName+"xxxxx"
	}
	if name == "" {
		return field.ErrorList{field.Required(namePath, "name or generateName is required")}
	}
	if msgs := content.IsQualifiedName(name); len(msgs) > 0 {
		detail := strings.Join(msgs, "; ")
		if written != name {
			detail = "with the 5 characters the API server appends: " + detail
		}
		errs = append(errs, field.Invalid(namePath, written, detail))
	}

	tasksPath := field.NewPath("spec", "tasks")
	for i, task := range job.Spec.Tasks {
		// The highest index gives the longest name, so it stands for all.
		index := max(int(task.Replicas)-1, 0)
		podName := PodName(name, task.Name, index)
		if msgs := content.IsQualifiedName(podName); len(msgs) > 0 {
			errs = append(errs, field.Invalid(tasksPath.Index(i).Child("name"), task.Name,
				fmt.Sprintf("pod name %q (<job>-<task>-<index>) is not a qualified name: %s", podName, strings.Join(msgs, "; "))))
		}
	}
	return errs
}

func validateSpecFields(spec *JobSpec, opts ValidationOptions) field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath("spec")

	if len(spec.SchedulerName) > maxSchedulerNameLength {
		errs = append(errs, field.TooLong(path.Child("schedulerName"), spec.SchedulerName, maxSchedulerNameLength))
	}
	if spec.MinAvailable < 0 {
		errs = append(errs, field.Invalid(path.Child("minAvailable"), spec.MinAvailable, content.MinError(0)))
	} else if total := totalReplicas(spec.Tasks); int64(spec.MinAvailable) > total {
		errs = append(errs, field.Invalid(path.Child("minAvailable"), spec.MinAvailable,
			fmt.Sprintf("must not be greater than the total replicas of all tasks (%d)", total)))
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
	errs = append(errs, validateNetworkTopology(spec.NetworkTopology, path.Child("networkTopology"))...)
	errs = append(errs, validateVolumes(spec.Volumes, path.Child("volumes"))...)
	errs = append(errs, validatePolicies(spec.Policies, path.Child("policies"))...)
	errs = append(errs, validatePlugins(spec.Plugins, opts, path.Child("plugins"))...)
	return errs
}

// totalReplicas adds up in 64 bits so that huge replica counts cannot wrap
// around and slip past the minAvailable check.
func totalReplicas(tasks []TaskSpec) int64 {
	var total int64
	for _, task := range tasks {
		total += int64(task.Replicas)
	}
	return total
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

func validatePlugins(plugins map[string][]string, opts ValidationOptions, path *field.Path) field.ErrorList {
	known := append(BuiltinPluginNames(), opts.ExtraPlugins...)
	names := make([]string, 0, len(plugins))
	for name := range plugins {
		names = append(names, name)
	}
	sort.Strings(names) // map order is random; errors should not be
	var errs field.ErrorList
	for _, name := range names {
		if !slices.Contains(known, name) {
			errs = append(errs, field.NotSupported(path.Key(name), name, known))
		}
	}
	return errs
}

func validateNetworkTopology(nt *NetworkTopologySpec, path *field.Path) field.ErrorList {
	if nt == nil {
		return nil
	}
	var errs field.ErrorList
	switch nt.Mode {
	case "", HardNetworkTopologyMode, SoftNetworkTopologyMode:
	default:
		errs = append(errs, field.NotSupported(path.Child("mode"), nt.Mode,
			[]NetworkTopologyMode{HardNetworkTopologyMode, SoftNetworkTopologyMode}))
	}
	if nt.HighestTierAllowed != nil && *nt.HighestTierAllowed < 0 {
		errs = append(errs, field.Invalid(path.Child("highestTierAllowed"), *nt.HighestTierAllowed, content.MinError(0)))
	}
	if len(nt.HighestTierName) > maxSubdomainLength {
		errs = append(errs, field.TooLong(path.Child("highestTierName"), nt.HighestTierName, maxSubdomainLength))
	}
	if nt.HighestTierAllowed != nil && nt.HighestTierName != "" {
		errs = append(errs, field.Forbidden(path.Child("highestTierName"),
			"may not be set together with highestTierAllowed: bound the tier by number or by name, not both"))
	}
	return errs
}

func validateVolumes(volumes []VolumeSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	mountPaths := map[string]bool{}
	for i, vol := range volumes {
		p := path.Index(i)
		switch {
		case vol.MountPath == "":
			errs = append(errs, field.Required(p.Child("mountPath"), ""))
		case strings.Contains(vol.MountPath, ":"):
			errs = append(errs, field.Invalid(p.Child("mountPath"), vol.MountPath, "must not contain ':'"))
		case mountPaths[vol.MountPath]:
			errs = append(errs, field.Duplicate(p.Child("mountPath"), vol.MountPath))
		}
		mountPaths[vol.MountPath] = true

		switch {
		case vol.VolumeClaim == nil && vol.VolumeClaimName == "":
			errs = append(errs, field.Required(p.Child("volumeClaimName"),
				"one of volumeClaimName (an existing claim) or volumeClaim (a new one) is required"))
		case vol.VolumeClaim != nil && vol.VolumeClaimName != "":
			errs = append(errs, field.Forbidden(p.Child("volumeClaimName"),
				"may not be set together with volumeClaim: name an existing claim, or describe a new one"))
		}
		if vol.VolumeClaimName != "" {
			errs = append(errs, validateSubdomain(p.Child("volumeClaimName"), vol.VolumeClaimName)...)
		}
	}
	return errs
}

// validatePolicies checks one list of lifecycle policies (the job's, or one
// task's): each policy matches on events or on an exit code, no event is
// claimed by two policies, and "*" (every event) stands alone.
func validatePolicies(policies []LifecyclePolicy, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	eventAt := map[Event]*field.Path{} // first place each event appears
	exitCodes := map[int32]bool{}
	for i, policy := range policies {
		p := path.Index(i)
		hasEvents := policy.Event != "" || len(policy.Events) > 0
		switch {
		case hasEvents && policy.ExitCode != nil:
			errs = append(errs, field.Forbidden(p.Child("exitCode"), "may not be set together with event or events"))
		case !hasEvents && policy.ExitCode == nil:
			errs = append(errs, field.Required(p, "one of event, events or exitCode is required"))
		}

		switch {
		case policy.Action == "":
			errs = append(errs, field.Required(p.Child("action"), ""))
		case !slices.Contains(PolicyActions(), policy.Action):
			errs = append(errs, field.NotSupported(p.Child("action"), policy.Action, PolicyActions()))
		}

		// event and events together are one set: repeating an event inside
		// one policy is harmless, naming it in two policies is not.
		inPolicy := map[Event]bool{}
		checkEvent := func(e Event, ep *field.Path) {
			if inPolicy[e] {
				return
			}
			inPolicy[e] = true
			switch {
			case !slices.Contains(PolicyEvents(), e):
				errs = append(errs, field.NotSupported(ep, e, PolicyEvents()))
			case eventAt[e] != nil:
				errs = append(errs, field.Duplicate(ep, e))
			default:
				eventAt[e] = ep
			}
		}
		if policy.Event != "" {
			checkEvent(policy.Event, p.Child("event"))
		}
		for k, e := range policy.Events {
			checkEvent(e, p.Child("events").Index(k))
		}

		if code := policy.ExitCode; code != nil {
			switch {
			case *code == 0:
				errs = append(errs, field.Invalid(p.Child("exitCode"), *code, "0 means success and cannot trigger an action"))
			case exitCodes[*code]:
				errs = append(errs, field.Duplicate(p.Child("exitCode"), *code))
			}
			exitCodes[*code] = true
		}
	}
	if at := eventAt[AnyEvent]; at != nil && len(eventAt) > 1 {
		errs = append(errs, field.Invalid(at, AnyEvent, "\"*\" matches every event, so no other event may appear in the same list of policies"))
	}
	return errs
}

func validateTasks(tasks []TaskSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i := range tasks {
		task := &tasks[i]
		p := path.Index(i)

		switch msgs := content.IsDNS1123Label(task.Name); {
		case task.Name == "":
			errs = append(errs, field.Required(p.Child("name"), ""))
		case len(msgs) > 0:
			errs = append(errs, field.Invalid(p.Child("name"), task.Name, strings.Join(msgs, "; ")))
		case names[task.Name]:
			errs = append(errs, field.Duplicate(p.Child("name"), task.Name))
		}
		names[task.Name] = true

		if task.Replicas < 0 {
			errs = append(errs, field.Invalid(p.Child("replicas"), task.Replicas, content.MinError(0)))
		}
		if ma := task.MinAvailable; ma != nil {
			if *ma < 0 {
				errs = append(errs, field.Invalid(p.Child("minAvailable"), *ma, content.MinError(0)))
			} else if task.Replicas >= 0 && *ma > task.Replicas {
				errs = append(errs, field.Invalid(p.Child("minAvailable"), *ma,
					fmt.Sprintf("must not be greater than replicas (%d)", task.Replicas)))
			}
		}
		if task.MaxRetry < 0 {
			errs = append(errs, field.Invalid(p.Child("maxRetry"), task.MaxRetry, content.MinError(0)))
		}
		errs = append(errs, validatePolicies(task.Policies, p.Child("policies"))...)
		errs = append(errs, validatePartitionPolicy(task, p)...)
		errs = append(errs, validateTopologyPolicy(task, p)...)
	}
	return errs
}

func validatePartitionPolicy(task *TaskSpec, taskPath *field.Path) field.ErrorList {
	pp := task.PartitionPolicy
	if pp == nil {
		return nil
	}
	var errs field.ErrorList
	p := taskPath.Child("partitionPolicy")
	if pp.TotalPartitions < 1 {
		errs = append(errs, field.Invalid(p.Child("totalPartitions"), pp.TotalPartitions, content.MinError(1)))
	}
	if pp.PartitionSize < 1 {
		errs = append(errs, field.Invalid(p.Child("partitionSize"), pp.PartitionSize, content.MinError(1)))
	}
	if pp.MinPartitions < 0 {
		errs = append(errs, field.Invalid(p.Child("minPartitions"), pp.MinPartitions, content.MinError(0)))
	}
	// Products in 64 bits: int32 overflow must not make a bad spec match.
	if pp.TotalPartitions >= 1 && pp.PartitionSize >= 1 {
		if want := int64(pp.TotalPartitions) * int64(pp.PartitionSize); int64(task.Replicas) != want {
			errs = append(errs, field.Invalid(taskPath.Child("replicas"), task.Replicas,
				fmt.Sprintf("must equal partitionPolicy.totalPartitions * partitionPolicy.partitionSize (%d * %d = %d)",
					pp.TotalPartitions, pp.PartitionSize, want)))
		}
	}
	if task.MinAvailable != nil && pp.MinPartitions > 0 {
		if want := int64(pp.MinPartitions) * int64(pp.PartitionSize); int64(*task.MinAvailable) != want {
			errs = append(errs, field.Invalid(taskPath.Child("minAvailable"), *task.MinAvailable,
				fmt.Sprintf("must equal partitionPolicy.minPartitions * partitionPolicy.partitionSize (%d * %d = %d) when minPartitions is set",
					pp.MinPartitions, pp.PartitionSize, want)))
		}
	}
	errs = append(errs, validateNetworkTopology(pp.NetworkTopology, p.Child("networkTopology"))...)
	return errs
}

// validateTopologyPolicy checks a NUMA-aware task: the kubelet only pins
// whole CPUs of Guaranteed pods, so Volcano requires the task's pods to be
// of Guaranteed QoS class and every container (init containers too) to
// request a whole, non-zero number of CPUs. As in Volcano, a container with
// no requests at all is taken to request its limits.
func validateTopologyPolicy(task *TaskSpec, taskPath *field.Path) field.ErrorList {
	p := taskPath.Child("topologyPolicy")
	switch task.TopologyPolicy {
	case "", NumaPolicyNone:
		return nil
	case NumaPolicyBestEffort, NumaPolicyRestricted, NumaPolicySingleNumaNode:
	default:
		return field.ErrorList{field.NotSupported(p, task.TopologyPolicy,
			[]NumaPolicy{NumaPolicyNone, NumaPolicyBestEffort, NumaPolicyRestricted, NumaPolicySingleNumaNode})}
	}

	specPath := taskPath.Child("template", "spec")
	var containers []containerResources
	for _, list := range []struct {
		name       string
		containers []corev1.Container
	}{{"containers", task.Template.Spec.Containers}, {"initContainers", task.Template.Spec.InitContainers}} {
		for i, c := range list.containers {
			requests := c.Resources.Requests
			if len(requests) == 0 {
				requests = c.Resources.Limits
			}
			containers = append(containers, containerResources{
				path:     specPath.Child(list.name).Index(i),
				requests: requests,
				limits:   c.Resources.Limits,
			})
		}
	}

	if qos := qosClass(containers); qos != corev1.PodQOSGuaranteed {
		return field.ErrorList{field.Invalid(p, task.TopologyPolicy, fmt.Sprintf(
			"needs pods of Guaranteed QoS class (cpu and memory limits on every container, requests equal to limits), but the template's pods are %s", qos))}
	}
	var errs field.ErrorList
	for _, c := range containers {
		cpu := c.requests[corev1.ResourceCPU]
		if !isWholePositive(cpu) {
			errs = append(errs, field.Invalid(c.path.Child("resources", "requests").Key(string(corev1.ResourceCPU)), cpu.String(),
				fmt.Sprintf("must be a whole number of CPUs, at least 1, when topologyPolicy is %s", task.TopologyPolicy)))
		}
	}
	return errs
}

type containerResources struct {
	path     *field.Path
	requests corev1.ResourceList
	limits   corev1.ResourceList
}

// qosClass is the pod QoS class as Kubernetes computes it from container
// resources: only cpu and memory count; Guaranteed needs both limited in
// every container and the summed requests equal to the summed limits.
func qosClass(containers []containerResources) corev1.PodQOSClass {
	requests, limits := corev1.ResourceList{}, corev1.ResourceList{}
	guaranteed := true
	for _, c := range containers {
		addQoSResources(requests, c.requests)
		limited := addQoSResources(limits, c.limits)
		if !limited[corev1.ResourceCPU] || !limited[corev1.ResourceMemory] {
			guaranteed = false
		}
	}
	if len(requests) == 0 && len(limits) == 0 {
		return corev1.PodQOSBestEffort
	}
	if guaranteed && len(requests) == len(limits) {
		for name, req := range requests {
			if lim, ok := limits[name]; !ok || lim.Cmp(req) != 0 {
				guaranteed = false
			}
		}
		if guaranteed {
			return corev1.PodQOSGuaranteed
		}
	}
	return corev1.PodQOSBurstable
}

// addQoSResources adds the positive cpu and memory amounts of from to sum
// and reports which of the two it found.
func addQoSResources(sum, from corev1.ResourceList) map[corev1.ResourceName]bool {
	found := map[corev1.ResourceName]bool{}
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		q, ok := from[name]
		if !ok || q.Sign() <= 0 {
			continue
		}
		found[name] = true
		total := sum[name]
		total.Add(q)
		sum[name] = total
	}
	return found
}

func isWholePositive(q resource.Quantity) bool {
	if q.Sign() <= 0 {
		return false
	}
	whole := resource.NewQuantity(q.Value(), resource.DecimalSI) // Value rounds up
	return q.Cmp(*whole) == 0
}

// validateDependencies checks dependsOn: every name is another task of the
// job (named once), and the dependencies form a directed acyclic graph, or
// no task of a cycle could ever start.
func validateDependencies(tasks []TaskSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	indexOf := map[string]int{}
	for i := range slices.Backward(tasks) {
		indexOf[tasks[i].Name] = i // first task of a name wins
	}

	type edge struct{ to, nameIndex int }
	deps := make([][]edge, len(tasks))
	for i, task := range tasks {
		if task.DependsOn == nil {
			continue
		}
		seen := map[string]bool{}
		for k, name := range task.DependsOn.Name {
			p := path.Index(i).Child("dependsOn", "name").Index(k)
			j, ok := indexOf[name]
			switch {
			case seen[name]:
				errs = append(errs, field.Duplicate(p, name))
			case !ok:
				errs = append(errs, field.NotFound(p, name))
			default:
				deps[i] = append(deps[i], edge{to: j, nameIndex: k})
			}
			seen[name] = true
		}
	}

	// Depth-first search; an edge back to a task still on the stack closes
	// a cycle, reported at the dependsOn entry that closes it.
	const (
		unvisited = iota
		onStack
		done
	)
	state := make([]int, len(tasks))
	var stack []int
	var visit func(i int)
	visit = func(i int) {
		state[i] = onStack
		stack = append(stack, i)
		for _, e := range deps[i] {
			switch state[e.to] {
			case unvisited:
				visit(e.to)
			case onStack:
				start := slices.Index(stack, e.to)
				cycle := make([]string, 0, len(stack)-start+1)
				for _, t := range stack[start:] {
					cycle = append(cycle, tasks[t].Name)
				}
				cycle = append(cycle, tasks[e.to].Name)
				errs = append(errs, field.Invalid(path.Index(i).Child("dependsOn", "name").Index(e.nameIndex),
					tasks[e.to].Name, fmt.Sprintf("dependency cycle %s (each task depends on the next): dependsOn must form a directed acyclic graph",
						strings.Join(cycle, " -> "))))
			}
		}
		stack = stack[:len(stack)-1]
		state[i] = done
	}
	for i := range tasks {
		if state[i] == unvisited {
			visit(i)
		}
	}
	return errs
}

// Fields of the spec an update may change (JSON names); everything else is
// fixed at creation.
func mutableJobSpecFields() []string  { return []string{"minAvailable", "priorityClassName"} }
func mutableTaskSpecFields() []string { return []string{"replicas", "minAvailable"} }

// ValidateJobUpdate checks an update of oldJob to newJob as Volcano's
// webhook does: only spec.minAvailable, spec.priorityClassName,
// tasks[*].replicas and tasks[*].minAvailable may change, tasks may not be
// added or removed, and the new counts must be consistent (replicas >= 0,
// 0 <= minAvailable <= replicas, job minAvailable <= total replicas).
func ValidateJobUpdate(newJob, oldJob *Job) field.ErrorList {
	if newJob == nil || oldJob == nil {
		return field.ErrorList{field.Required(field.NewPath("job"), "both the new and the old job are required")}
	}
	var errs field.ErrorList
	specPath := field.NewPath("spec")
	tasksPath := specPath.Child("tasks")

	for i, task := range newJob.Spec.Tasks {
		p := tasksPath.Index(i)
		if task.Replicas < 0 {
			errs = append(errs, field.Invalid(p.Child("replicas"), task.Replicas, content.MinError(0)))
		}
		if ma := task.MinAvailable; ma != nil {
			if *ma < 0 {
				errs = append(errs, field.Invalid(p.Child("minAvailable"), *ma, content.MinError(0)))
			} else if *ma > task.Replicas {
				errs = append(errs, field.Invalid(p.Child("minAvailable"), *ma,
					fmt.Sprintf("must not be greater than replicas (%d)", task.Replicas)))
			}
		}
	}
	if ma := newJob.Spec.MinAvailable; ma < 0 {
		errs = append(errs, field.Invalid(specPath.Child("minAvailable"), ma, content.MinError(0)))
	} else if total := totalReplicas(newJob.Spec.Tasks); int64(ma) > total {
		errs = append(errs, field.Invalid(specPath.Child("minAvailable"), ma,
			fmt.Sprintf("must not be greater than the total replicas of all tasks (%d)", total)))
	}

	newSpec, oldSpec := normalizeVolumes(newJob.Spec), normalizeVolumes(oldJob.Spec)
	errs = append(errs, immutableFieldChanges(reflect.ValueOf(newSpec), reflect.ValueOf(oldSpec), specPath,
		append(mutableJobSpecFields(), "tasks"))...)
	if len(newSpec.Tasks) != len(oldSpec.Tasks) {
		errs = append(errs, field.Forbidden(tasksPath, fmt.Sprintf(
			"tasks may not be added or removed (%d before, %d now)", len(oldSpec.Tasks), len(newSpec.Tasks))))
	} else {
		for i := range newSpec.Tasks {
			errs = append(errs, immutableFieldChanges(reflect.ValueOf(newSpec.Tasks[i]), reflect.ValueOf(oldSpec.Tasks[i]),
				tasksPath.Index(i), mutableTaskSpecFields())...)
		}
	}
	return errs
}

// normalizeVolumes returns spec with volumeClaimName cleared wherever
// volumeClaim is set: the controller writes the name of the claim it
// created there, which is not a user's change. The volumes are copied.
func normalizeVolumes(spec JobSpec) JobSpec {
	spec.Volumes = slices.Clone(spec.Volumes)
	for i := range spec.Volumes {
		if spec.Volumes[i].VolumeClaim != nil {
			spec.Volumes[i].VolumeClaimName = ""
		}
	}
	return spec
}

// immutableFieldChanges compares two structs field by field (semantically:
// nil equals empty, quantities by value) and reports every changed field
// not in skip, named by its JSON name. Walking the struct keeps fields
// added to the API later immutable without touching this code.
func immutableFieldChanges(newV, oldV reflect.Value, path *field.Path, skip []string) field.ErrorList {
	var errs field.ErrorList
	for i := range newV.NumField() {
		name, _, _ := strings.Cut(newV.Type().Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" || slices.Contains(skip, name) {
			continue
		}
		if !equality.Semantic.DeepEqual(newV.Field(i).Interface(), oldV.Field(i).Interface()) {
			errs = append(errs, field.Forbidden(path.Child(name),
				"may not be changed after creation; an update may change only minAvailable, priorityClassName, tasks[*].replicas and tasks[*].minAvailable"))
		}
	}
	return errs
}
