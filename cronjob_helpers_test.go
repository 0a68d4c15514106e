package vcjob

import (
	"sigs.k8s.io/yaml"

	"github.com/vcjob/vcjob/internal/testfiles"
)

// validCronJob is a defaulted cronjob that passes validation. The fixture
// is read with sigs.k8s.io/yaml, strictly: package manifest, which decodes
// manifests, imports this one.
func validCronJob() *CronJob {
	cj := &CronJob{}
	if err := yaml.UnmarshalStrict([]byte(testfiles.MustRead("testdata/cronjob-valid.yaml")), cj); err != nil {
		panic(err)
	}
	SetCronJobDefaults(cj)
	return cj
}
