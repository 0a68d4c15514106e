// Package vcjob holds the batch.volcano.sh/v1alpha1 Job API and the plain
// values the rest of the library acts on: the job types with DeepCopy and
// their scheme registration (AddToScheme: Job, CronJob and Command with
// their lists, for client-go's and controller-runtime's typed clients),
// events and actions, the well-known label and annotation keys, strict
// manifest decoding, the webhook's defaults, the request a controller
// works on, and the job info (a job with its pods grouped by task and
// partition). Validation lives in package validation, which points here.
//
// A JobInfo keeps, pod by pod, the counts the plans read (TaskPods: pods
// by phase, terminating, ready, missing, out of sync, beyond the replicas,
// by partition), so that a plan costs the same for ten pods as for ten
// thousand. Its pods live in persistent maps: Clone and Lease hand out
// O(1) snapshots that never move, and a JobInfo that leases changes its
// maps in place while no lease is out:
//
//	ji, _ := vcjob.NewJobInfo(job, pods...)
//	snap := ji.Lease()              // what a worker decides on
//	_ = ji.AddPod(updated)          // copies the path snap shares
//	snap.Release()                  // ji edits in place again
//	c := ji.Task("worker").Counts() // c.InRange, c.Phases.Running, c.Ready...
//
// Every other package points here and never the other way:
//
//	job, err := vcjob.DecodeJob(manifest) // strict YAML or JSON
//	vcjob.SetDefaults(job)                // what Volcano's mutating webhook writes
//	if errs := validation.ValidateJob(job); len(errs) > 0 { // package validation
//		return errs.ToAggregate()
//	}
//
// Where vcjob may decide otherwise than Volcano, on request: Semantics
// (corrections of Volcano behaviour that looks like a bug, each a switch,
// chosen by the embedder and per job by the vcjob.dev/semantics
// annotation) and Extensions (policies Volcano lacks, from the
// vcjob.dev/policy annotation). Both are off by default:
//
//	sem := vcjob.Corrected().For(job) // the job's annotation on top
//	ext, err := vcjob.ExtensionsOf(job)
package vcjob

// The marker below asks deepcopy-gen for DeepCopy on every type of the
// package (but those marked +k8s:deepcopy-gen=false); it stands apart from
// the package comment so that go doc does not show it.

// +k8s:deepcopy-gen=package

//go:generate go run k8s.io/code-generator/cmd/deepcopy-gen@v0.37.2 --output-file zz_generated.deepcopy.go --go-header-file hack/boilerplate.go.txt .
