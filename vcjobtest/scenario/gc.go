package scenario

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/statemachine/memcluster"
	"github.com/vcjob/vcjob/ttl"
)

// A GCObserver is told what Volcano's garbage collector does with the
// job's spec.ttlSecondsAfterFinished: each time it looks at the job, and
// the delete it sends. An Observer that is also a GCObserver is told; the
// text and JSON transcripts and cmd/internal/timeline are.
type GCObserver interface {
	Collected(r GCRecord)
}

// GCRecord is one look of the garbage collector at the job (package ttl's
// Process), after the job controller has settled.
type GCRecord struct {
	Time       time.Time
	TTLSeconds int32
	Phase      vcjob.JobPhase
	// FinishedAt and ExpiresAt are zero when the job has no finish time.
	FinishedAt, ExpiresAt time.Time
	Result                ttl.Result
}

// gcState is the garbage collector's queue for the one job: a key added
// now (queued) and one waiting to be added (the earliest wins, as in a
// delaying work queue).
type gcState struct {
	queued  bool
	waitAt  time.Time // zero: none
	deleted *GCRecord
	// removed are the cluster's changes of the delete, told after the
	// record of the look that sent it.
	removed []memcluster.Change
}

// noteJob is the garbage collector's informer seeing an add or update.
func (g *gcState) noteJob(job *vcjob.Job) {
	if ttl.Enqueues(job) {
		g.queued = true
	}
}

// addAfter is the delaying queue's AddAfter: an earlier wait wins.
func (g *gcState) addAfter(at time.Time) {
	if g.waitAt.IsZero() || at.Before(g.waitAt) {
		g.waitAt = at
	}
}

// due is when the waiting key is added, if one waits.
func (g *gcState) due() (time.Time, bool) { return g.waitAt, !g.waitAt.IsZero() }

// collect runs the garbage collector's worker on the job's key when it is
// queued. An error is reported and not retried: Volcano retries with
// backoff, and the simulated API server never fails, so a retry would
// only repeat it.
func (s *sim) collect() {
	if !s.gc.queued || s.gc.deleted != nil {
		return
	}
	s.gc.queued = false
	cached := s.cluster.Job(s.ns, s.job)
	if cached == nil {
		return
	}
	rec := GCRecord{Time: s.now, Phase: cached.Status.State.Phase}
	if t := cached.Spec.TTLSecondsAfterFinished; t != nil {
		rec.TTLSeconds = *t
	}
	if e, err := ttl.ExpiryOf(cached); err == nil {
		rec.FinishedAt, rec.ExpiresAt = e.FinishedAt, e.ExpiresAt
	}
	rec.Result = ttl.Process(s.ctx, simAPI{s}, cached, func() time.Time { return s.now })
	switch {
	case rec.Result.Next == ttl.RequeueAfter:
		s.gc.addAfter(s.now.Add(rec.Result.After))
	case rec.Result.Delete != nil && rec.Result.Err == nil:
		s.gc.deleted = &rec
	}
	if o, ok := s.out.(GCObserver); ok {
		o.Collected(rec)
	}
	if chs := s.gc.removed; len(chs) > 0 {
		s.gc.removed = nil
		s.out.Changes(chs, s.now)
	}
}

// fireGC moves the clock to the waiting key's time and processes it.
func (s *sim) fireGC(at time.Time) {
	s.setNow(at)
	s.gc.waitAt = time.Time{}
	s.gc.queued = true
	s.collect()
}

// simAPI is the API server as the garbage collector reaches it.
type simAPI struct{ s *sim }

var jobsResource = schema.GroupResource{Group: vcjob.GroupName, Resource: "jobs"}

func (a simAPI) Get(_ context.Context, namespace, name string) (*vcjob.Job, error) {
	if j := a.s.cluster.Job(namespace, name); j != nil {
		return j, nil
	}
	return nil, apierrors.NewNotFound(jobsResource, name)
}

// Delete removes the job at once with its pods and PodGroup: the
// simulator does not play the Foreground cascade step by step (the
// deletion timestamp, the dependents going, then the job). The job
// controller's cache forgets the job and its delayed actions are dropped,
// so nothing happens to the job afterwards.
func (a simAPI) Delete(_ context.Context, namespace, name string, opts metav1.DeleteOptions) error {
	s := a.s
	stored := s.cluster.StoredJob(namespace, name)
	if stored == nil {
		return apierrors.NewNotFound(jobsResource, name)
	}
	if pre := opts.Preconditions; pre != nil && pre.UID != nil && *pre.UID != stored.UID {
		return apierrors.NewConflict(jobsResource, name, fmt.Errorf("the UID in the precondition (%s) does not match the UID in record (%s)", *pre.UID, stored.UID))
	}
	removed := s.cluster.RemoveJob(namespace, name)
	s.gc.removed = s.cluster.Drain()
	_ = s.cache.OnJobDelete(removed)
	s.step.Delays.ForgetJob(namespace, name)
	s.queue = nil
	return nil
}

// gcSummary is the end of the summary for a job with a ttl: what the
// garbage collector made of it ("" without a ttl).
func (s *sim) gcSummary(job *vcjob.Job) string {
	t := job.Spec.TTLSecondsAfterFinished
	if t == nil {
		return ""
	}
	head := fmt.Sprintf("; ttlSecondsAfterFinished %d: ", *t)
	switch {
	case job.Status.State.Phase == vcjob.Aborted:
		return head + "never collected (the garbage collector cleans up Completed, Failed and Terminated jobs, not Aborted ones)"
	case !ttl.Finished(job):
		return head + "not finished"
	}
	if e, err := ttl.ExpiryOf(job); err == nil {
		return head + "the garbage collector deletes the job at " + offset(e.ExpiresAt)
	}
	return head + "no finish time"
}

// deletedSummary is the summary once the garbage collector deleted the job.
func (s *sim) deletedSummary() string {
	r := s.gc.deleted
	return fmt.Sprintf("job deleted by the garbage collector at %s (%s at %s, ttlSecondsAfterFinished %d): nothing of it is left; delayed %d",
		offset(r.Time), r.Phase, offset(r.FinishedAt), r.TTLSeconds, s.step.Delays.Len())
}

// DescribeGC is a garbage collector's look as the transcripts and the
// timeline show it.
func DescribeGC(r GCRecord) string {
	res := r.Result
	head := fmt.Sprintf("%s at %s, ttlSecondsAfterFinished %d", r.Phase, offset(r.FinishedAt), r.TTLSeconds)
	switch {
	case res.Err != nil:
		return fmt.Sprintf("error: %v (Volcano retries with backoff)", res.Err)
	case res.Delete != nil:
		uid := ""
		if p := res.Delete.Options.Preconditions; p != nil && p.UID != nil {
			uid = string(*p.UID)
		}
		policy := ""
		if p := res.Delete.Options.PropagationPolicy; p != nil {
			policy = string(*p)
		}
		return fmt.Sprintf("%s: expired at %s; delete job %s/%s (propagation %s, precondition uid %s)",
			head, offset(r.ExpiresAt), res.Delete.Namespace, res.Delete.Name, policy, uid)
	case res.Next == ttl.RequeueAfter:
		return fmt.Sprintf("%s: expires at %s, looks again in %s", head, offset(r.ExpiresAt), res.After)
	}
	return "nothing to clean up"
}

func (t textTranscript) Collected(r GCRecord) {
	fmt.Fprintf(t.w, "  gc       %s\n", DescribeGC(r))
}

func (t jsonTranscript) Collected(r GCRecord) {
	type del struct {
		Namespace string               `json:"namespace"`
		Name      string               `json:"name"`
		Options   metav1.DeleteOptions `json:"options"`
	}
	out := struct {
		Phase      string     `json:"phase"`
		TTL        int32      `json:"ttlSecondsAfterFinished"`
		FinishedAt *time.Time `json:"finishedAt,omitempty"`
		ExpiresAt  *time.Time `json:"expiresAt,omitempty"`
		Next       ttl.Next   `json:"next"`
		After      string     `json:"after,omitempty"`
		Error      string     `json:"error,omitempty"`
		Delete     *del       `json:"delete,omitempty"`
	}{Phase: string(r.Phase), TTL: r.TTLSeconds, Next: r.Result.Next}
	if !r.FinishedAt.IsZero() {
		out.FinishedAt, out.ExpiresAt = &r.FinishedAt, &r.ExpiresAt
	}
	if r.Result.Next == ttl.RequeueAfter {
		out.After = r.Result.After.String()
	}
	if r.Result.Err != nil {
		out.Error = r.Result.Err.Error()
	}
	if d := r.Result.Delete; d != nil {
		out.Delete = &del{Namespace: d.Namespace, Name: d.Name, Options: d.Options}
	}
	_ = t.enc.Encode(map[string]any{"gc": out, "time": r.Time})
}
