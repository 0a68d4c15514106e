package vcjob

import (
	_ "time/tzdata" // the zone tests must not depend on the machine's zoneinfo

	"github.com/vcjob/vcjob/internal/testfiles"
)

// cronManifest is a complete CronJob manifest: nightly at 02:30 New York
// time, one 2-pod task. Package validation's tests read the same file.
var cronManifest = testfiles.MustRead("testdata/cronjob-nightly.yaml")

// validCronJob is a defaulted cronjob that passes validation.
func validCronJob() *CronJob {
	cj, err := DecodeCronJob([]byte(testfiles.MustRead("testdata/cronjob-valid.yaml")))
	if err != nil {
		panic(err)
	}
	SetCronJobDefaults(cj)
	return cj
}
