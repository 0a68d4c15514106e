package cronjob

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/listers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/vcjob/vcjob"
	vccronjob "github.com/vcjob/vcjob/cronjob"

	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
)

// callTimeout bounds each API call of a sync.
const callTimeout = 30 * time.Second

// sync is one sync of the cronjob of key, as Volcano's: none for a
// cronjob the lister does not hold; else the library's Decision on the
// cronjob and the jobs the lister holds, applied call by call. It returns
// the Decision's requeue and error.
func (c *Controller) sync(ctx context.Context, key string) (*time.Duration, error) {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil, err
	}
	cj, err := listers.NewNamespaced(c.cronJobs, ns).Get(name)
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, err
	}
	jobs, err := c.listJobs(cj)
	if err != nil {
		return nil, err
	}
	d := c.apply(ctx, cj, jobs, vccronjob.DecideWith(cj, jobs, c.cfg.Clock.Now(), c.cfg.Options))
	c.events.Record(cj, d.Events)
	result := string(d.Skipped)
	switch {
	case d.Err != nil:
		result = "error"
	case result == "":
		result = "started"
	}
	c.cfg.Metrics.CronJobSyncs.WithLabelValues(result).Inc()
	if v := klog.FromContext(ctx).V(3); v.Enabled() {
		v.Info("CronJob synced", "result", result, "calls", len(d.Calls), "events", len(d.Events), "requeueAfter", d.RequeueAfter, "err", d.Err)
	}
	return d.RequeueAfter, d.Err
}

// listJobs is what the Decision reads the jobs from: the jobs the lister
// holds in the cronjob's namespace (where its own are) and those that
// status.active names elsewhere (the sync looks them up by name). The
// other namespaces' jobs change nothing in the Decision, so they are left
// out rather than copied into every sync.
func (c *Controller) listJobs(cj *vcjob.CronJob) ([]*vcjob.Job, error) {
	jobs, err := listers.NewNamespaced(c.jobs, cj.Namespace).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	for _, ref := range cj.Status.Active {
		if ref.Namespace == cj.Namespace || ref.Namespace == "" {
			continue
		}
		if j, err := listers.NewNamespaced(c.jobs, ref.Namespace).Get(ref.Name); err == nil {
			jobs = append(jobs, j)
		}
	}
	return jobs, nil
}

// apply makes d's calls in order through the typed clients. Whenever the
// API server answers a call otherwise than the lister predicted (any
// error, the created job with its UID, a get that finds another version
// than the lister's, a delete of a job the lister did not hold), the
// answer goes to Decision.Answer, which gives the rest of the sync; the
// Decision returned is the final one.
func (c *Controller) apply(ctx context.Context, cj *vcjob.CronJob, listed []*vcjob.Job, d vccronjob.Decision) vccronjob.Decision {
	lister := make(map[string]*vcjob.Job, len(listed))
	for _, j := range listed {
		lister[j.Namespace+"/"+j.Name] = j
	}
	base := cj // the cronjob the status write goes onto
	for i := 0; i < len(d.Calls); i++ {
		call := d.Calls[i]
		a, unforeseen := c.call(ctx, base, call, d.Status, lister)
		if a.CronJob != nil {
			base = a.CronJob
		}
		if unforeseen {
			d = d.Answer(i, a)
		}
	}
	return d
}

// call makes one call (status: the Decision's, for the status write);
// unforeseen says the answer is not the one the lister predicted.
func (c *Controller) call(ctx context.Context, base *vcjob.CronJob, call vccronjob.Call, status vcjob.CronJobStatus, lister map[string]*vcjob.Job) (a vccronjob.Answer, unforeseen bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), callTimeout)
	defer cancel()
	jobsAPI := c.cfg.Volcano.Jobs(call.Namespace)
	switch {
	case call.Verb == vccronjob.VerbGet && call.Resource == vccronjob.ResourceJobs:
		job, err := jobsAPI.Get(ctx, call.Name, metav1.GetOptions{})
		if err != nil {
			return vccronjob.Answer{Err: err}, true
		}
		cached := lister[call.Namespace+"/"+call.Name]
		return vccronjob.Answer{Job: job}, cached == nil || cached.UID != job.UID || cached.ResourceVersion != job.ResourceVersion
	case call.Verb == vccronjob.VerbGet && call.Resource == vccronjob.ResourceCronJobs:
		got, err := c.cfg.Volcano.CronJobs(call.Namespace).Get(ctx, call.Name, metav1.GetOptions{})
		if err != nil {
			return vccronjob.Answer{Err: err}, true
		}
		if got.ResourceVersion == base.ResourceVersion && got.UID == base.UID {
			return vccronjob.Answer{}, false
		}
		return vccronjob.Answer{CronJob: got}, true
	case call.Verb == vccronjob.VerbCreate:
		created, err := jobsAPI.Create(ctx, call.Job, metav1.CreateOptions{FieldManager: clients.FieldManager})
		if err != nil {
			return vccronjob.Answer{Err: err}, true
		}
		return vccronjob.Answer{Job: created}, true // its UID goes into status.active
	case call.Verb == vccronjob.VerbDelete:
		opts := metav1.DeleteOptions{}
		if call.DeleteOptions != nil {
			opts = *call.DeleteOptions
		}
		if err := jobsAPI.Delete(ctx, call.Name, opts); err != nil {
			return vccronjob.Answer{Err: err}, true
		}
		return vccronjob.Answer{}, lister[call.Namespace+"/"+call.Name] == nil
	case call.Verb == vccronjob.VerbUpdate && call.Resource == vccronjob.ResourceCronJobsStatus:
		// The Decision's status on the cronjob the sync read: a Conflict
		// when it changed since (the Decision goes on as Volcano does).
		out := base.DeepCopy()
		out.Status = *status.DeepCopy()
		if _, err := c.cfg.Volcano.CronJobs(call.Namespace).UpdateStatus(ctx, out, metav1.UpdateOptions{FieldManager: clients.FieldManager}); err != nil {
			return vccronjob.Answer{Err: err}, true
		}
		return vccronjob.Answer{}, false
	}
	return vccronjob.Answer{}, false
}
