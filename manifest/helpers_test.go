package manifest

import "github.com/vcjob/vcjob/internal/testfiles"

// cronManifest is a complete CronJob manifest: nightly at 02:30 New York
// time, one 2-pod task. Package validation's tests read the same file.
var cronManifest = testfiles.MustRead("../testdata/cronjob-nightly.yaml")
