package manifest

import (
	"testing"

	"github.com/vcjob/vcjob"
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
		// Nulls: a template, a plugin, a list item, inside a template.
		"apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: j}\nspec:\n  plugins: {ssh: null, svc: [null]}\n" +
			"  tasks:\n  - {name: a, template: null}\n  - null\n  - {name: c, template: {spec: {containers: [null], nodeSelector: {a: null}}}}\n",
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
			jobs, err = DecodeJobsWith(data, Options{AllowUnknownFields: true})
		}
		if err != nil {
			return
		}
		for _, job := range jobs {
			vcjob.SetDefaults(job)
			assertRoundTrip(t, job)
		}
	})
}
