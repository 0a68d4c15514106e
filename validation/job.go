package validation

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vcjob/vcjob"
)

// ValidateJob checks a job about to be created and says exactly what
// Volcano's admission says of it: the CRD's OpenAPI schema, then Volcano's
// validating webhook (which runs Kubernetes' pod template validation on
// every task's template). It returns every problem found, each with the
// path of the field at fault; an empty list means Volcano admits the job.
// Checks stricter than Volcano's are lint.Lint findings, not errors.
//
// The queue is assumed to exist, be open and be a leaf queue (pass
// Options.Queues to check it), but the root queue is refused. Run
// vcjob.SetDefaults first, as the API server runs the mutating webhook
// first.
func ValidateJob(job *vcjob.Job) field.ErrorList {
	return ValidateJobWith(job, Options{})
}

// ValidateJobWith is ValidateJob with options.
func ValidateJobWith(job *vcjob.Job, opts Options) field.ErrorList {
	if job == nil {
		return field.ErrorList{field.Required(field.NewPath("job"), "no job was given")}
	}
	specPath := field.NewPath("spec")
	var errs field.ErrorList
	errs = append(errs, validateNames(job)...)
	errs = append(errs, validateSpecSchema(&job.Spec, specPath)...)
	errs = append(errs, validateSpecWebhook(&job.Spec, specPath, opts)...)
	if phase := job.Status.State.Phase; phase != "" && !phase.IsKnown() {
		errs = append(errs, field.NotSupported(field.NewPath("status", "state", "phase"), phase, vcjob.Phases()))
	}
	return errs
}

// validateNames checks the job name (a DNS subdomain, as the API server
// requires of every custom resource, and a qualified name of at most 63
// characters, as Volcano's webhook does) and the pod names Volcano's
// webhook checks, which must be qualified names too. The webhook
// builds one pod name per task, <job>-<task>-<i> with i the task's
// position in the list (not a replica index); lint.Lint warns when a
// higher replica index makes a pod name too long.
func validateNames(job *vcjob.Job) field.ErrorList {
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
	if msgs := objectNameProblems(name); len(msgs) > 0 {
		detail := strings.Join(msgs, "; ")
		if written != name {
			detail = "with the 5 characters the API server appends: " + detail
		}
		errs = append(errs, field.Invalid(namePath, written, detail))
	}

	tasksPath := field.NewPath("spec", "tasks")
	for i, task := range job.Spec.Tasks {
		podName := vcjob.PodName(name, task.Name, i)
		if msgs := content.IsQualifiedName(podName); len(msgs) > 0 {
			errs = append(errs, field.Invalid(tasksPath.Index(i).Child("name"), task.Name,
				fmt.Sprintf("pod name %q (<job>-<task>-<task position>, as Volcano's webhook builds it) is not a qualified name: %s",
					podName, strings.Join(msgs, "; "))))
		}
	}
	return errs
}

// objectNameProblems: the API server requires the name of a custom
// resource to be a DNS subdomain (lower case), and Volcano's webhook a
// qualified name (at most 63 characters).
func objectNameProblems(name string) []string {
	msgs := content.IsDNS1123Subdomain(name)
	for _, msg := range content.IsQualifiedName(name) {
		if !slices.Contains(msgs, msg) {
			msgs = append(msgs, msg)
		}
	}
	return msgs
}

// validateSpecWebhook checks what Volcano's validating webhook checks of a
// job spec beyond the schema.
func validateSpecWebhook(spec *vcjob.JobSpec, path *field.Path, opts Options) field.ErrorList {
	var errs field.ErrorList
	if spec.MinAvailable >= 0 {
		if total := totalReplicas(spec.Tasks); int64(spec.MinAvailable) > total {
			errs = append(errs, field.Invalid(path.Child("minAvailable"), spec.MinAvailable,
				fmt.Sprintf("must not be greater than the total replicas of all tasks (%d)", total)))
		}
	}
	errs = append(errs, validateMPIMaster(spec, path)...)
	errs = append(errs, validateQueue(spec.Queue, path.Child("queue"), opts.Queues)...)
	errs = append(errs, validateNetworkTopologyTiers(spec.NetworkTopology, path.Child("networkTopology"))...)
	errs = append(errs, validateVolumes(spec.Volumes, path.Child("volumes"))...)
	errs = append(errs, validatePolicies(spec.Policies, path.Child("policies"))...)
	errs = append(errs, validatePlugins(spec.Plugins, opts, path.Child("plugins"))...)
	errs = append(errs, validateTasks(spec.Tasks, path.Child("tasks"), opts)...)
	errs = append(errs, validateDependencies(spec.Tasks, path.Child("tasks"))...)
	return errs
}

// totalReplicas adds up in 64 bits so that huge replica counts cannot wrap
// around and slip past the minAvailable check.
func totalReplicas(tasks []vcjob.TaskSpec) int64 {
	var total int64
	for _, task := range tasks {
		total += int64(task.Replicas)
	}
	return total
}

// validateMPIMaster: with the mpi plugin, Volcano's webhook requires the
// master task (--master, default master) to exist. It does not require the
// worker task.
func validateMPIMaster(spec *vcjob.JobSpec, path *field.Path) field.ErrorList {
	args, ok := spec.Plugins[vcjob.PluginMPI]
	if !ok {
		return nil
	}
	master := pluginArg(args, "master", "master")
	for _, task := range spec.Tasks {
		if task.Name == master {
			return nil
		}
	}
	return field.ErrorList{field.Invalid(path.Child("plugins").Key(vcjob.PluginMPI), strings.Join(args, " "),
		fmt.Sprintf("The specified mpi master task was not found: no task is named %q", master))}
}

// pluginArg reads a plugin argument as Go's flag package does (-name=v,
// --name=v, or -name v / --name v); the last one wins.
func pluginArg(args []string, name, def string) string {
	value := def
	for i := 0; i < len(args); i++ {
		arg := strings.TrimPrefix(strings.TrimPrefix(args[i], "-"), "-")
		if arg == args[i] {
			continue // not a flag
		}
		if k, v, ok := strings.Cut(arg, "="); ok {
			if k == name {
				value = v
			}
			continue
		}
		if arg == name && i+1 < len(args) {
			value = args[i+1]
			i++
		}
	}
	return value
}

// validateQueue applies Volcano's queue rules: the root queue never takes
// jobs; with a lookup, the queue must exist, be Open and have no children.
func validateQueue(queue string, path *field.Path, lookup QueueLookup) field.ErrorList {
	if lookup == nil {
		if queue == RootQueue {
			return field.ErrorList{field.Invalid(path, queue, "can not submit job to root queue")}
		}
		return nil
	}
	state, exists, err := lookup.Queue(queue)
	switch {
	case err != nil:
		return field.ErrorList{field.InternalError(path, fmt.Errorf("looking up queue %q: %w", queue, err))}
	case !exists:
		return field.ErrorList{field.NotFound(path, queue)}
	}
	var errs field.ErrorList
	if state != QueueStateOpen {
		errs = append(errs, field.Invalid(path, queue,
			fmt.Sprintf("can only submit job to queue with state `Open`, queue `%s` status is `%s`", queue, state)))
	}
	if queue == RootQueue {
		return append(errs, field.Invalid(path, queue, "can not submit job to root queue"))
	}
	children, err := lookup.Children(queue)
	switch {
	case err != nil:
		errs = append(errs, field.InternalError(path, fmt.Errorf("listing the child queues of %q: %w", queue, err)))
	case children > 0:
		errs = append(errs, field.Invalid(path, queue,
			fmt.Sprintf("can only submit job to leaf queue, queue `%s` has %d child queues", queue, children)))
	}
	return errs
}

func validatePlugins(plugins map[string][]string, opts Options, path *field.Path) field.ErrorList {
	known := append(vcjob.BuiltinPluginNames(), opts.ExtraPlugins...)
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

// validateNetworkTopologyTiers: the tier is bounded by number or by name,
// not both.
func validateNetworkTopologyTiers(nt *vcjob.NetworkTopologySpec, path *field.Path) field.ErrorList {
	if nt != nil && nt.HighestTierAllowed != nil && nt.HighestTierName != "" {
		return field.ErrorList{field.Forbidden(path.Child("highestTierName"),
			"may not be set together with highestTierAllowed: bound the tier by number or by name, not both")}
	}
	return nil
}

// validateVolumes: mount paths are unique, and each volume names an
// existing claim or describes a new one, not both.
func validateVolumes(volumes []vcjob.VolumeSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	mountPaths := map[string]bool{}
	for i, vol := range volumes {
		p := path.Index(i)
		if vol.MountPath != "" && mountPaths[vol.MountPath] {
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
		if name := vol.VolumeClaimName; name != "" && len(name) <= maxSubdomainLength {
			if msgs := content.IsDNS1123Subdomain(name); len(msgs) > 0 {
				errs = append(errs, field.Invalid(p.Child("volumeClaimName"), name, strings.Join(msgs, "; ")))
			}
		}
	}
	return errs
}

// validatePolicies checks one list of lifecycle policies (the job's, or one
// task's): each policy matches on events or on an exit code, no event is
// claimed by two policies, "*" (every event) stands alone, exit codes are
// not 0 and not repeated.
func validatePolicies(policies []vcjob.LifecyclePolicy, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	eventAt := map[vcjob.Event]*field.Path{} // first place each event appears
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

		// Volcano's webhook checks the action only of policies that match
		// events; an exit-code policy may leave it out (lint.Lint warns),
		// and the schema's enum refuses an unknown one anywhere.
		if hasEvents && policy.Action == "" {
			errs = append(errs, field.Required(p.Child("action"), "a policy that matches events needs an action"))
		}

		// event and events together are one set: repeating an event inside
		// one policy is harmless, naming it in two policies is not.
		inPolicy := map[vcjob.Event]bool{}
		checkEvent := func(e vcjob.Event, ep *field.Path) {
			if inPolicy[e] {
				return
			}
			inPolicy[e] = true
			switch {
			case !slices.Contains(vcjob.PolicyEvents(), e):
				errs = append(errs, field.NotSupported(ep, e, vcjob.PolicyEvents()))
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
	if at := eventAt[vcjob.AnyEvent]; at != nil && len(eventAt) > 1 {
		errs = append(errs, field.Invalid(at, vcjob.AnyEvent, "\"*\" matches every event, so no other event may appear in the same list of policies"))
	}
	return errs
}

func validateTasks(tasks []vcjob.TaskSpec, path *field.Path, opts Options) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i := range tasks {
		task := &tasks[i]
		p := path.Index(i)
		if task.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		} else if names[task.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), task.Name))
		}
		names[task.Name] = true

		if ma := task.MinAvailable; ma != nil && *ma >= 0 && task.Replicas >= 0 && *ma > task.Replicas {
			errs = append(errs, field.Invalid(p.Child("minAvailable"), *ma,
				fmt.Sprintf("must not be greater than replicas (%d)", task.Replicas)))
		}
		errs = append(errs, validatePolicies(task.Policies, p.Child("policies"))...)
		errs = append(errs, validatePartitionCounts(task, p)...)
		if pp := task.PartitionPolicy; pp != nil {
			errs = append(errs, validateNetworkTopologyTiers(pp.NetworkTopology, p.Child("partitionPolicy", "networkTopology"))...)
		}
		templatePath := p.Child("template")
		if opts.PodTemplate != nil {
			errs = append(errs, opts.PodTemplate(&task.Template, templatePath)...)
		} else {
			errs = append(errs, ValidatePodTemplateSpec(&task.Template, templatePath)...)
		}
		errs = append(errs, validateTopologyPolicy(task, p)...)
	}
	return errs
}

// validatePartitionCounts: a partitioned task's replicas are
// totalPartitions*partitionSize, and its minAvailable, when set and
// minPartitions is, minPartitions*partitionSize.
func validatePartitionCounts(task *vcjob.TaskSpec, taskPath *field.Path) field.ErrorList {
	pp := task.PartitionPolicy
	if pp == nil {
		return nil
	}
	var errs field.ErrorList
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
	return errs
}

// validateTopologyPolicy checks a NUMA-aware task as Volcano's webhook
// does: every container and init container requests a whole, non-zero
// number of CPUs (a container with no requests at all is taken to request
// its limits). Volcano does not require Guaranteed QoS, though the kubelet
// pins CPUs only for Guaranteed pods: lint.Lint warns about that.
func validateTopologyPolicy(task *vcjob.TaskSpec, taskPath *field.Path) field.ErrorList {
	switch task.TopologyPolicy {
	case vcjob.NumaPolicyBestEffort, vcjob.NumaPolicyRestricted, vcjob.NumaPolicySingleNumaNode:
	default:
		return nil // none, unset, or refused by the schema
	}
	specPath := taskPath.Child("template", "spec")
	var errs field.ErrorList
	for _, list := range []struct {
		name       string
		containers []corev1.Container
	}{{"containers", task.Template.Spec.Containers}, {"initContainers", task.Template.Spec.InitContainers}} {
		for i, c := range list.containers {
			requests := c.Resources.Requests
			if len(requests) == 0 {
				requests = c.Resources.Limits
			}
			cpu := requests[corev1.ResourceCPU]
			if !isWholePositive(cpu) {
				errs = append(errs, field.Invalid(specPath.Child(list.name).Index(i).Child("resources", "requests").Key(string(corev1.ResourceCPU)), cpu.String(),
					fmt.Sprintf("must be a whole number of CPUs, at least 1, when topologyPolicy is %s", task.TopologyPolicy)))
			}
		}
	}
	return errs
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
func validateDependencies(tasks []vcjob.TaskSpec, path *field.Path) field.ErrorList {
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
