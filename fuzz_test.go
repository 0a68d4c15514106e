package vcjob

import (
	"math"
	"testing"

	"github.com/vcjob/vcjob/internal/testfiles"
)

// FuzzDecodeDefault feeds arbitrary bytes through decoding and defaulting
// (package validation fuzzes validation on top). Any input may be refused,
// none may panic, and a defaulted job encodes and decodes back to itself.
func FuzzDecodeDefault(f *testing.F) {
	// Real manifests, when the shared folder is there.
	for _, data := range testfiles.ManifestSeeds(manifestsDir) {
		f.Add(data)
	}
	for _, seed := range []string{
		minimalManifest,
		`{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"Job","metadata":{"name":"j"},"spec":{"tasks":[{"replicas":-1,"minAvailable":-2}]}}`,
		"apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: j}\nspec:\n  volumes: [{mountPath: '/a:b'}]\n" +
			"  policies: [{event: '*', exitCode: 0}, {events: [PodFailed, PodFailed]}]\n" +
			"  networkTopology: {mode: soft, highestTierAllowed: -1, highestTierName: x}\n" +
			"  tasks:\n  - name: a\n    replicas: 6\n    topologyPolicy: restricted\n    dependsOn: {name: [b, a]}\n" +
			"    partitionPolicy: {totalPartitions: 2, partitionSize: 0, minPartitions: 5}\n" +
			"    template: {spec: {containers: [{name: c, resources: {limits: {cpu: 1.5, memory: 1Gi}}}], initContainers: [{name: i}]}}\n" +
			"  - name: b\n    dependsOn: {name: [a]}\n",
		minimalManifest + "---\n---\n" + minimalManifest,
		"apiVersion: v1\nkind: Pod\n",
		"- 1\n- 2\n",
		"",
	} {
		f.Add([]byte(seed))
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		jobs, err := DecodeJobs(data)
		if err != nil {
			// Input with unknown fields still reaches validation this way.
			jobs, err = DecodeJobsWith(data, DecodeOptions{AllowUnknownFields: true})
		}
		if err != nil {
			return
		}
		for _, job := range jobs {
			SetDefaults(job)
			assertRoundTrip(t, job)
		}
	})
}

// FuzzPodNameIndex: PodNameIndex reads back exactly the names PodName
// writes. For any name it accepts, PodName gives that name again; any index
// PodName writes, it reads back.
func FuzzPodNameIndex(f *testing.F) {
	for _, seed := range []struct {
		name, job, task string
		index           int
	}{
		{"j-w-0", "j", "w", 0}, {"j-w-01", "j", "w", 1}, {"j-w-", "j", "w", 12}, {"a-b-c-3", "a-b", "c", 3},
		{"a-b-c-3", "a", "b-c", 3}, {"j-w-99999999999", "j", "w", 1 << 30}, {"j-w-4294967296", "j", "w", 2147483647}, {"", "", "", 0}, {"--0", "", "", 0},
	} {
		f.Add(seed.name, seed.job, seed.task, seed.index)
	}
	f.Fuzz(func(t *testing.T, name, job, task string, index int) {
		if i, ok := PodNameIndex(name, job, task); ok {
			if got := PodName(job, task, i); got != name {
				t.Fatalf("PodNameIndex(%q, %q, %q) = %d, but PodName gives %q", name, job, task, i, got)
			}
		}
		if index < 0 {
			index = -index
		}
		if index < 0 || int64(index) > math.MaxInt32 {
			return
		}
		if i, ok := PodNameIndex(PodName(job, task, index), job, task); !ok || i != index {
			t.Fatalf("PodName(%q, %q, %d) reads back as %d, %v", job, task, index, i, ok)
		}
	})
}
