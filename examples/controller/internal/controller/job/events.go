package job

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/vcjob/vcjob"
	vcrecord "github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/request"
)

// recordEvents records evs, the library's Events of a step or a Command,
// on the job of req (Config.Events).
func (c *Controller) recordEvents(req request.Request, evs []vcrecord.Event) {
	if c.events == nil || len(evs) == 0 {
		return
	}
	c.events.Record(c.eventObject(req), evs)
}

// eventObject is the job an Event of req is about: the job as the
// informer holds it (its UID and resourceVersion go into the Event's
// involvedObject, as Volcano records on its cached job), or, once the
// informer has let it go, a reference by name and the request's UID.
func (c *Controller) eventObject(req request.Request) runtime.Object {
	if obj, ok, err := c.jobStore.GetByKey(req.Namespace + "/" + req.JobName); err == nil && ok {
		if job, isJob := obj.(*vcjob.Job); isJob {
			return job
		}
	}
	return &corev1.ObjectReference{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind,
		Namespace: req.Namespace, Name: req.JobName, UID: req.JobUID}
}
