package perturb

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/plugins"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/statemachine"
)

// Wrap is the Applier a controller of the run acts through: w's calls,
// counted as crash points, checked as they write (a pod created for a job
// in a terminal phase, two live pods of one version with one index, a
// status that lowers the version or the retry count), and refused once
// the controller has crashed.
func (r *Run) Wrap(w World) statemachine.Applier {
	r.world = w
	return &applier{r: r, w: w}
}

type applier struct {
	r *Run
	w World
}

// call makes one counted call: refused after the crash, else made, and
// then perhaps the crash point.
func (a *applier) call(what string, do func() error) error {
	if err := a.r.dead(); err != nil {
		return err
	}
	err := do()
	a.r.tick(what)
	return err
}

func (a *applier) PodGroupState(ctx context.Context, job *vcjob.Job) (statemachine.PodGroupState, error) {
	var st statemachine.PodGroupState
	err := a.call("reading the PodGroup", func() (err error) { st, err = a.w.PodGroupState(ctx, job); return err })
	return st, err
}

func (a *applier) ApplyPodGroup(ctx context.Context, desired *podgroup.PodGroup) error {
	return a.call("writing the PodGroup", func() error { return a.w.ApplyPodGroup(ctx, desired) })
}

func (a *applier) ApplyObjects(ctx context.Context, objs plugins.Objects) error {
	return a.call("writing the plugins' objects", func() error { return a.w.ApplyObjects(ctx, objs) })
}

func (a *applier) EnsureClaim(ctx context.Context, job *vcjob.Job, claim statemachine.Claim) error {
	return a.call("ensuring claim "+claim.Name, func() error { return a.w.EnsureClaim(ctx, job, claim) })
}

func (a *applier) ClaimExists(ctx context.Context, namespace, name string) (bool, error) {
	var ok bool
	err := a.call("looking up claim "+name, func() (err error) { ok, err = a.w.ClaimExists(ctx, namespace, name); return err })
	return ok, err
}

func (a *applier) UpdateJob(ctx context.Context, job *vcjob.Job) error {
	return a.call("writing the job's spec", func() error { return a.w.UpdateJob(ctx, job) })
}

func (a *applier) DeletePodGroup(ctx context.Context, job *vcjob.Job) (bool, error) {
	var ok bool
	err := a.call("deleting the PodGroup", func() (err error) { ok, err = a.w.DeletePodGroup(ctx, job); return err })
	return ok, err
}

func (a *applier) CreatePod(ctx context.Context, pod *corev1.Pod) error {
	return a.call("creating "+pod.Name, func() error {
		a.r.checkCreate(pod)
		err := a.w.CreatePod(ctx, pod)
		if err == nil {
			a.r.checkIndexes(pod.Namespace, pod.Annotations[vcjob.JobNameKey])
		}
		return err
	})
}

// DeletePod is two crash points when the world is a Marker: after the
// out-of-sync mark, and after the delete.
func (a *applier) DeletePod(ctx context.Context, pod *corev1.Pod) error {
	m, ok := a.w.(Marker)
	if !ok {
		return a.call("deleting "+pod.Name, func() error { return a.w.DeletePod(ctx, pod) })
	}
	if a.r.Plan.Kind == Crash && a.r.calls == a.r.Plan.At {
		if err := a.call("marking "+pod.Name+" out of sync", func() error { return m.MarkOutOfSync(ctx, pod) }); err != nil {
			return err
		}
		return a.call("deleting "+pod.Name, func() error { return a.w.DeletePod(ctx, pod) })
	}
	if err := a.r.dead(); err != nil {
		return err
	}
	a.r.tick("marking " + pod.Name + " out of sync") // made inside the delete
	return a.call("deleting "+pod.Name, func() error { return a.w.DeletePod(ctx, pod) })
}

func (a *applier) UpdateStatus(ctx context.Context, job *vcjob.Job, status *vcjob.JobStatus) error {
	return a.call("writing the status ("+string(status.State.Phase)+")", func() error {
		// Judged against what was stored before, once the write is made:
		// a write the world refuses (a conflict) lowers nothing.
		var before *vcjob.Job
		if stored := a.w.StoredJob(job.Namespace, job.Name); stored != nil {
			before = stored
		}
		err := a.w.UpdateStatus(ctx, job, status)
		if err == nil {
			a.r.checkStatus(before, job, status)
		}
		return err
	})
}
