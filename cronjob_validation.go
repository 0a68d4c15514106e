package vcjob

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// CronJob limits.
const (
	// MaxCronJobNameLength leaves room in a job name's 63 characters for
	// the "-<minutes since the epoch>" suffix (Volcano's webhook rule).
	MaxCronJobNameLength = 52
	// cronJobNameSample stands for the suffix when the job template is
	// validated as a job: eight digits, the width of the scheduled minute
	// since the epoch until the year 2160.
	cronJobNameSample = "-99999999"
)

// ValidateCronJob checks a CronJob about to be created or updated the way
// the CRD schema and Volcano's webhook do, plus its job template as the
// Job each run will create, and returns every problem with the path of the
// field at fault:
//   - metadata.name: required, a qualified name of at most
//     MaxCronJobNameLength characters;
//   - spec.schedule: a standard cron schedule (descriptors such as @hourly
//     included) that fires at least once; a TZ=/CRON_TZ= prefix must name a
//     loadable zone;
//   - spec.timeZone: when set, a loadable IANA zone (not "" or "Local"),
//     even when the schedule's own prefix overrides it;
//   - spec.startingDeadlineSeconds and both history limits >= 0;
//   - spec.concurrencyPolicy: Allow, Forbid or Replace ("" is Allow);
//   - spec.jobTemplate.spec: ValidateJob on the template after SetDefaults,
//     as the API server will see each job.
//
// Run SetCronJobDefaults first, as the API server does.
func ValidateCronJob(cj *CronJob) field.ErrorList {
	if cj == nil {
		return field.ErrorList{field.Required(field.NewPath("cronjob"), "no cronjob was given")}
	}
	var errs field.ErrorList
	nameErrs := validateCronJobName(cj)
	errs = append(errs, nameErrs...)
	errs = append(errs, validateCronJobSpec(&cj.Spec)...)
	// A bad name would make every pod name bad too: say it once.
	name := cj.Name
	if name == "" {
		name = cj.GenerateName + "xxxxx"
	}
	if len(nameErrs) > 0 {
		name = "cronjob"
	}
	errs = append(errs, validateJobTemplate(cj, name)...)
	return errs
}

func validateCronJobName(cj *CronJob) field.ErrorList {
	path, written, name := field.NewPath("metadata", "name"), cj.Name, cj.Name
	if name == "" && cj.GenerateName != "" {
		// The API server appends five random characters.
		path, written, name = field.NewPath("metadata", "generateName"), cj.GenerateName, cj.GenerateName+"xxxxx"
	}
	switch {
	case name == "":
		return field.ErrorList{field.Required(path, "name or generateName is required")}
	case len(name) > MaxCronJobNameLength:
		return field.ErrorList{field.Invalid(path, written, fmt.Sprintf(
			"must be no more than %d characters, so that job names (<name>-<scheduled minute since the epoch>) fit in 63",
			MaxCronJobNameLength))}
	}
	if msgs := content.IsQualifiedName(name); len(msgs) > 0 {
		return field.ErrorList{field.Invalid(path, written, strings.Join(msgs, "; "))}
	}
	return nil
}

func validateCronJobSpec(spec *CronJobSpec) field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath("spec")

	// Both zones must load: timeZone is checked on its own, and the
	// schedule is parsed in it only when it is valid, so that each problem
	// is reported once, at its own field.
	zone := spec.TimeZone
	if zone != nil {
		if _, err := loadZone(*zone); err != nil {
			errs = append(errs, field.Invalid(path.Child("timeZone"), *zone, err.Error()))
			zone = nil
		}
	}
	if _, err := parseCronSchedule(spec.Schedule, zone); err != nil {
		errs = append(errs, err)
	}

	if d := spec.StartingDeadlineSeconds; d != nil && *d < 0 {
		errs = append(errs, field.Invalid(path.Child("startingDeadlineSeconds"), *d, content.MinError(0)))
	}
	if p := spec.ConcurrencyPolicy; p != "" && !slices.Contains(ConcurrencyPolicies(), p) {
		errs = append(errs, field.NotSupported(path.Child("concurrencyPolicy"), p, ConcurrencyPolicies()))
	}
	for _, limit := range []struct {
		name  string
		value *int32
	}{
		{"successfulJobsHistoryLimit", spec.SuccessfulJobsHistoryLimit},
		{"failedJobsHistoryLimit", spec.FailedJobsHistoryLimit},
	} {
		if limit.value != nil && *limit.value < 0 {
			errs = append(errs, field.Invalid(path.Child(limit.name), *limit.value, content.MinError(0)))
		}
	}
	return errs
}

// validateJobTemplate validates the template as the job a run creates:
// named <name>-<minute>, defaulted as Volcano's webhook will default it.
// Its spec errors move under spec.jobTemplate; errors about the job name
// are left to validateCronJobName, which is stricter.
func validateJobTemplate(cj *CronJob, name string) field.ErrorList {
	job := &Job{
		ObjectMeta: *cj.Spec.JobTemplate.ObjectMeta.DeepCopy(),
		Spec:       *cj.Spec.JobTemplate.Spec.DeepCopy(),
	}
	job.Name, job.GenerateName, job.Namespace = name+cronJobNameSample, "", cj.Namespace
	SetDefaults(job)

	var errs field.ErrorList
	for _, err := range ValidateJob(job) {
		if err.Field != "spec" && !strings.HasPrefix(err.Field, "spec.") && !strings.HasPrefix(err.Field, "spec[") {
			continue
		}
		moved := *err
		moved.Field = "spec.jobTemplate." + err.Field
		errs = append(errs, &moved)
	}
	return errs
}
