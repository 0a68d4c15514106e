package validation

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vcjob/vcjob"
)

// MaxCronJobNameLength leaves room in a job name's 63 characters for the
// "-<minutes since the epoch>" suffix (Volcano's webhook rule).
const MaxCronJobNameLength = 52

// timeZonePart is what Volcano's webhook (like Kubernetes' CronJob
// validation) accepts as one "/"-separated element of a zone name.
var timeZonePart = regexp.MustCompile(`^[A-Za-z\.\-_0-9+]{1,14}$`)

// ValidateCronJob checks a CronJob about to be created or updated and says
// exactly what Volcano's admission says (the CRD schema and the CronJob
// webhook), returning every problem with the path of the field at fault:
//   - metadata.name: a DNS subdomain (the API server's rule for custom
//     resources) and a qualified name of at most MaxCronJobNameLength
//     characters;
//   - spec.schedule: required, a standard cron schedule (descriptors such
//     as @hourly included) parsed by robfig/cron; a schedule that contains
//     TZ anywhere (TZ=..., CRON_TZ=...) is refused: the zone belongs in
//     spec.timeZone. A schedule that never fires (30 February) is accepted,
//     as Volcano accepts it; lint.LintCronJob warns;
//   - spec.timeZone: when set, not empty, every "/" element of 1 to 14
//     letters, digits or . - _ + that is neither "." nor ".." nor starts
//     with "-", not Local, and loadable from the zone database;
//   - spec.startingDeadlineSeconds and both history limits >= 0;
//   - spec.concurrencyPolicy: Allow, Forbid or Replace (vcjob.SetCronJobDefaults
//     turns "" into Allow);
//   - spec.jobTemplate.spec: only what the CRD schema checks (bounds,
//     enums, patterns): Volcano's CronJob webhook does not validate the
//     template as a Job, so a template that makes every run's Job fail
//     Volcano's Job webhook is admitted. lint.LintCronJob reports that.
//     A task template given as null is one left out (the API server
//     prunes the null, and manifest.DecodeCronJob decodes it so): it is
//     admitted.
//
// Run vcjob.SetCronJobDefaults first, as the API server does.
func ValidateCronJob(cj *vcjob.CronJob) field.ErrorList {
	if cj == nil {
		return field.ErrorList{field.Required(field.NewPath("cronjob"), "no cronjob was given")}
	}
	var errs field.ErrorList
	errs = append(errs, validateCronJobName(cj)...)
	errs = append(errs, validateCronJobSpec(&cj.Spec)...)
	errs = append(errs, validateSpecSchema(&cj.Spec.JobTemplate.Spec, field.NewPath("spec", "jobTemplate", "spec"))...)
	return errs
}

func validateCronJobName(cj *vcjob.CronJob) field.ErrorList {
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
	if msgs := objectNameProblems(name); len(msgs) > 0 {
		return field.ErrorList{field.Invalid(path, written, strings.Join(msgs, "; "))}
	}
	return nil
}

func validateCronJobSpec(spec *vcjob.CronJobSpec) field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath("spec")

	schedulePath := path.Child("schedule")
	switch {
	case spec.Schedule == "":
		errs = append(errs, field.Required(schedulePath, "a cron schedule such as \"0 2 * * *\" or \"@hourly\" is required"))
	case strings.Contains(spec.Schedule, "TZ"):
		errs = append(errs, field.Invalid(schedulePath, spec.Schedule,
			"schedule should not contain TZ or CRON_TZ, TZ should only be set in the timeZone field"))
	default:
		if _, err := cron.ParseStandard(spec.Schedule); err != nil {
			errs = append(errs, field.Invalid(schedulePath, spec.Schedule, "schedule is not a valid cron expression: "+err.Error()))
		}
	}

	if zone := spec.TimeZone; zone != nil {
		if detail := timeZoneProblem(*zone); detail != "" {
			errs = append(errs, field.Invalid(path.Child("timeZone"), *zone, detail))
		}
	}

	if d := spec.StartingDeadlineSeconds; d != nil && *d < 0 {
		errs = append(errs, field.Invalid(path.Child("startingDeadlineSeconds"), *d, content.MinError(0)))
	}
	switch p := spec.ConcurrencyPolicy; {
	case p == "":
		errs = append(errs, field.Required(path.Child("concurrencyPolicy"), "must be Allow, Forbid or Replace, got an empty string"))
	case !slices.Contains(vcjob.ConcurrencyPolicies(), p):
		errs = append(errs, field.NotSupported(path.Child("concurrencyPolicy"), p, vcjob.ConcurrencyPolicies()))
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

// timeZoneProblem says why Volcano's webhook refuses a timeZone, or "".
func timeZoneProblem(zone string) string {
	if zone == "" {
		return "timeZone must be nil or non-empty string, got empty string"
	}
	for _, part := range strings.Split(zone, "/") {
		if part == "." || part == ".." || strings.HasPrefix(part, "-") || !timeZonePart.MatchString(part) {
			return "unknown timeZone: each /-separated element must be 1 to 14 letters, digits or . - _ +, not . or .., not starting with -"
		}
	}
	if strings.EqualFold(zone, "Local") {
		return "timeZone can't be Local, and must be defined in https://www.iana.org/time-zones"
	}
	if _, err := time.LoadLocation(zone); err != nil {
		return "invalid timeZone: " + err.Error()
	}
	return ""
}
