package cronjob

import (
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/listers"
	"k8s.io/client-go/tools/cache"

	"github.com/vcjob/vcjob"
	vccronjob "github.com/vcjob/vcjob/cronjob"
)

// The informers' handlers, as Volcano's CronJob controller has them: a
// cronjob's add and delete queue its key; its update queues it as the
// library's cronjob.OnUpdate says (by the new schedule when the schedule
// or the zone changed); a job's add, update and delete queue the cronjob that
// controls it (both, when an update changed the controller). None calls
// the API server.

func (c *Controller) enqueue(obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		c.logger.Error(err, "Cannot key cronjob")
		return
	}
	c.queue.Add(key)
}

func (c *Controller) updateCronJob(oldObj, newObj any) {
	old, ok1 := oldObj.(*vcjob.CronJob)
	cur, ok2 := newObj.(*vcjob.CronJob)
	if !ok1 || !ok2 {
		c.logger.Error(nil, "Not a CronJob", "old", oldObj, "new", newObj)
		return
	}
	u := vccronjob.OnUpdate(old, cur, c.cfg.Clock.Now(), c.cfg.Options)
	c.events.Record(cur, u.Events)
	switch {
	case !u.Enqueue:
	case u.After > 0:
		c.queue.AddAfter(cache.MetaObjectToName(cur).String(), u.After)
	default:
		c.queue.Add(cache.MetaObjectToName(cur).String())
	}
}

func (c *Controller) addJob(obj any) {
	job, ok := obj.(*vcjob.Job)
	if !ok {
		c.logger.Error(nil, "Not a Job", "object", obj)
		return
	}
	// A job that arrives being deleted is handled as its delete.
	c.enqueueController(job)
}

func (c *Controller) updateJob(oldObj, newObj any) {
	old, ok1 := oldObj.(*vcjob.Job)
	cur, ok2 := newObj.(*vcjob.Job)
	if !ok1 || !ok2 || old.ResourceVersion == cur.ResourceVersion {
		return
	}
	c.enqueueController(cur)
	if !reflect.DeepEqual(metav1.GetControllerOfNoCopy(old), metav1.GetControllerOfNoCopy(cur)) {
		c.enqueueController(old)
	}
}

func (c *Controller) deleteJob(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	if job, ok := obj.(*vcjob.Job); ok {
		c.enqueueController(job)
	}
}

// enqueueController queues the cronjob controlling job, if the lister
// holds it: the job's controller reference names a batch.volcano.sh/v1alpha1
// CronJob of the cronjob's name and UID (Volcano's isControlledBy).
func (c *Controller) enqueueController(job *vcjob.Job) {
	if cj := c.controllerOf(job); cj != nil {
		c.queue.Add(cache.MetaObjectToName(cj).String())
	}
}

func (c *Controller) controllerOf(job *vcjob.Job) *vcjob.CronJob {
	ref := metav1.GetControllerOfNoCopy(job)
	if ref == nil || ref.APIVersion != vcjob.APIVersion || ref.Kind != vcjob.CronJobKind {
		return nil
	}
	cj, err := listers.NewNamespaced(c.cronJobs, job.Namespace).Get(ref.Name)
	if err != nil || cj.UID != ref.UID {
		return nil
	}
	return cj
}
