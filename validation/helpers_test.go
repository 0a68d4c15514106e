package validation

import (
	_ "time/tzdata" // the zone tests must not depend on the machine's zoneinfo

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/internal/testfiles"
	"github.com/vcjob/vcjob/manifest"
)

// cronManifest is a complete CronJob manifest: nightly at 02:30 New York
// time, one 2-pod task, shared with the root package's tests.
var cronManifest = testfiles.MustRead("../testdata/cronjob-nightly.yaml")

// validCronJob is a defaulted cronjob that passes validation, shared with
// the root package's tests.
func validCronJob() *vcjob.CronJob {
	cj, err := manifest.DecodeCronJob([]byte(testfiles.MustRead("../testdata/cronjob-valid.yaml")))
	if err != nil {
		panic(err)
	}
	vcjob.SetCronJobDefaults(cj)
	return cj
}
