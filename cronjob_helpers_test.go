package vcjob

import (
	"os"
	_ "time/tzdata" // the zone tests must not depend on the machine's zoneinfo
)

// cronManifest is a complete CronJob manifest: nightly at 02:30 New York
// time, one 2-pod task. Package validation's tests read the same file.
var cronManifest = readTestdata("testdata/cronjob-nightly.yaml")

// validCronJob is a defaulted cronjob that passes validation.
func validCronJob() *CronJob {
	cj, err := DecodeCronJob([]byte(readTestdata("testdata/cronjob-valid.yaml")))
	if err != nil {
		panic(err)
	}
	SetCronJobDefaults(cj)
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
