package validation

import (
	"testing"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/internal/testfiles"
	"github.com/vcjob/vcjob/manifest"
)

const fuzzJob = `apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: j}
spec:
  plugins: {mpi: ["--master", "launcher"]}
  tasks:
  - name: launcher
    template: {spec: {containers: [{name: c, image: i, ports: [{containerPort: 22, name: ssh}]}]}}
`

// FuzzValidate feeds arbitrary bytes through decoding, defaulting and
// every validation. Any input may be refused, none may panic, and what
// create validation admits, an update to itself admits too.
func FuzzValidate(f *testing.F) {
	for _, data := range testfiles.ManifestSeeds(manifestsDir) {
		f.Add(data)
	}
	for _, seed := range []string{
		fuzzJob,
		`{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"Job","metadata":{"name":"j"},"spec":{"tasks":[{"replicas":-1,"minAvailable":-2}]}}`,
		"apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: j}\nspec:\n  volumes: [{mountPath: '/a:b'}]\n" +
			"  policies: [{event: '*', exitCode: 0}, {events: [PodFailed, PodFailed]}]\n" +
			"  networkTopology: {mode: soft, highestTierAllowed: -1, highestTierName: x}\n" +
			"  tasks:\n  - name: a\n    replicas: 6\n    topologyPolicy: restricted\n    dependsOn: {name: [b, a]}\n" +
			"    partitionPolicy: {totalPartitions: 2, partitionSize: 0, minPartitions: 5}\n" +
			"    template: {spec: {resources: {requests: {cpu: 1, hugepages-2Mi: 3Mi}}, volumes: [{name: v, hostPath: {path: /x/../y}, emptyDir: {}}]," +
			" containers: [{name: c, resources: {limits: {cpu: 1.5, memory: 1Gi, example.com/gpu: 0.5}}, volumeMounts: [{name: v, mountPath: /m, subPath: /abs}]}]," +
			" initContainers: [{name: c, ports: [{containerPort: 70000, hostPort: 80}, {containerPort: 1, hostPort: 80}]}]}}\n" +
			"  - name: b\n    dependsOn: {name: [a]}\n",
		"apiVersion: v1\nkind: Pod\n",
		"",
	} {
		f.Add([]byte(seed))
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		jobs, err := manifest.DecodeJobsWith(data, manifest.Options{AllowUnknownFields: true})
		if err != nil {
			return
		}
		for _, job := range jobs {
			created := job.DeepCopy()
			ValidateJob(job)
			vcjob.SetDefaults(job)
			if len(ValidateJob(job)) == 0 {
				if errs := ValidateJobUpdate(job.DeepCopy(), job); len(errs) > 0 {
					t.Fatalf("an admitted job refuses an update to itself: %v", errs)
				}
			}
			ValidateJobUpdate(job, created)
		}
	})
}

// FuzzValidateCronJob: any CronJob manifest may be refused, none may
// panic.
func FuzzValidateCronJob(f *testing.F) {
	for _, seed := range []string{
		cronManifest,
		"apiVersion: batch.volcano.sh/v1alpha1\nkind: CronJob\nmetadata: {name: c}\nspec: {schedule: 'TZ=UTC', timeZone: 'a/../b'}\n",
		"apiVersion: batch.volcano.sh/v1alpha1\nkind: CronJob\nmetadata: {name: c}\nspec: {schedule: '*/0 * * * *', concurrencyPolicy: Never, timeZone: Local}\n",
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cj, err := manifest.DecodeCronJob(data)
		if err != nil {
			return
		}
		ValidateCronJob(cj)
		vcjob.SetCronJobDefaults(cj)
		ValidateCronJob(cj)
	})
}
