package ttl

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

// DeleteOptions are the options of the garbage collector's delete of job,
// the copy it has just read from the API server: Foreground propagation
// (the job's pods and other dependents are deleted before the job
// disappears) and a precondition on the job's UID, so that a job
// recreated under the same name since the read is not deleted (the API
// server answers 409 Conflict instead). A nil job gets the propagation
// alone.
func DeleteOptions(job *vcjob.Job) metav1.DeleteOptions {
	policy := metav1.DeletePropagationForeground
	opts := metav1.DeleteOptions{PropagationPolicy: &policy}
	if job != nil {
		uid := job.UID
		opts.Preconditions = &metav1.Preconditions{UID: &uid}
	}
	return opts
}
