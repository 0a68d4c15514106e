package manifest

import (
	"strings"
	"testing"

	"github.com/vcjob/vcjob"
)

// FuzzDecodeCronJob feeds arbitrary bytes through everything a caller does
// with a CronJob manifest: decode and default (package validation fuzzes
// validation, package cronjob the schedule and the sync).
// Any input may be refused; none may panic.
//
//	go test -run '^$' -fuzz FuzzDecodeCronJob -fuzztime 30s ./manifest
func FuzzDecodeCronJob(f *testing.F) {
	for _, seed := range []string{
		cronManifest,
		strings.Replace(cronManifest, `"30 2 * * *"`, `"TZ=Asia/Tokyo @every 90m"`, 1),
		strings.Replace(cronManifest, `"30 2 * * *"`, `"TZ=UTC"`, 1), // robfig/cron panics on this one
		strings.Replace(cronManifest, `"30 2 * * *"`, `"CRON_TZ=Local 0 0 30 2 *"`, 1),
		strings.Replace(cronManifest, "America/New_York", "../../etc/passwd", 1),
		`{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"CronJob","metadata":{"name":"c"},"spec":{"schedule":"@yearly",` +
			`"startingDeadlineSeconds":-9223372036854775808,"successfulJobsHistoryLimit":-1,"jobTemplate":{"spec":{"tasks":[{"replicas":-1}]}}}}`,
		"apiVersion: batch.volcano.sh/v1alpha1\nkind: CronJob\nmetadata: {name: c}\nspec: {schedule: '*/0 * * * *', concurrencyPolicy: Never}\n",
		"apiVersion: batch.volcano.sh/v1alpha1\nkind: CronJob\nmetadata: {name: c}\nspec:\n  schedule: '@daily'\n  jobTemplate:\n" +
			"    metadata: {labels: {a: null}, finalizers: [null]}\n    spec: {plugins: {ssh: null}, tasks: [{name: a, template: null}, null]}\n",
		"apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\n",
		"- 1\n",
		"",
	} {
		f.Add([]byte(seed))
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		cj, err := DecodeCronJob(data)
		if err != nil {
			return
		}
		vcjob.SetCronJobDefaults(cj)
		if cj.DeepCopy() == nil {
			t.Fatal("DeepCopy of a decoded cronjob is nil")
		}
	})
}
