package validation

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vcjob/vcjob"
)

// Fields of the spec an update may change (JSON names); everything else is
// fixed at creation.
func mutableJobSpecFields() []string  { return []string{"minAvailable", "priorityClassName"} }
func mutableTaskSpecFields() []string { return []string{"replicas", "minAvailable"} }

// ValidateJobUpdate checks an update of oldJob to newJob as Volcano's
// webhook does: only spec.minAvailable, spec.priorityClassName,
// tasks[*].replicas and tasks[*].minAvailable may change, tasks may not be
// added or removed, and the new counts must be consistent (replicas >= 0,
// 0 <= minAvailable <= replicas, job minAvailable <= total replicas), and
// a task with a partition policy must keep replicas equal to
// totalPartitions*partitionSize and minAvailable equal to
// minPartitions*partitionSize (when minPartitions is set), as at creation:
// the partition policy cannot change, so neither can those counts.
func ValidateJobUpdate(newJob, oldJob *vcjob.Job) field.ErrorList {
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
		errs = append(errs, validatePartitionCounts(&newJob.Spec.Tasks[i], p)...)
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
func normalizeVolumes(spec vcjob.JobSpec) vcjob.JobSpec {
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
