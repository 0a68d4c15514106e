package podgroup

import "github.com/vcjob/vcjob"

// Find looks up a job's PodGroup the way Volcano's controller does: by
// Name(job) first and, only when that is not found, by LegacyName(job).
// get fetches one PodGroup by name from the job's namespace (a lister, a
// client, a map) and reports whether it exists; an error from get ends the
// search at once and is returned (no fallback). The legacy PodGroup is not
// checked for an owner reference, as Volcano does not.
//
// T is whatever the caller holds a PodGroup as (this package's PodGroup,
// Volcano's type, an unstructured object). found is false, with T's zero
// value, when neither name exists.
func Find[T any](job *vcjob.Job, get func(name string) (pg T, found bool, err error)) (pg T, found bool, err error) {
	if pg, found, err = get(Name(job)); err != nil || found {
		return pg, found, err
	}
	return get(LegacyName(job))
}
