package validation

import (
	"os"
	_ "time/tzdata" // the zone tests must not depend on the machine's zoneinfo

	"github.com/vcjob/vcjob"
)

// cronManifest is a complete CronJob manifest: nightly at 02:30 New York
// time, one 2-pod task, shared with the root package's tests.
var cronManifest = readTestdata("../testdata/cronjob-nightly.yaml")

// validCronJob is a defaulted cronjob that passes validation, shared with
// the root package's tests.
func validCronJob() *vcjob.CronJob {
	cj, err := vcjob.DecodeCronJob([]byte(readTestdata("../testdata/cronjob-valid.yaml")))
	if err != nil {
		panic(err)
	}
	vcjob.SetCronJobDefaults(cj)
	return cj
}

// readTestdata is a file of testdata, which the tests cannot do without.
func readTestdata(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return string(data)
}
