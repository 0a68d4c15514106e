package worker

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/delay"
	"github.com/vcjob/vcjob/jobinfo"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
)

// Jobs is where the step takes its job snapshot from; *cache.Cache is one.
type Jobs interface {
	Get(key string) (*jobinfo.Info, error)
}

// Leaser is Jobs that can lend a snapshot for the length of one step
// instead of giving it away (*cache.Cache is one): the step releases it
// when done, and the cache goes back to updating the job in place. The
// step's cluster must not keep the job info beyond its call.
type Leaser interface {
	Lease(namespace, name string) (*jobinfo.Info, error)
}

// Step holds what the processing step acts on. All three are injected.
// The step decides under Cluster.Behavior (with each
// job's behavior.Annotation on top): the state machine's transitions
// and the delayed actions' keying (behavior.DelaysByPodUID) follow
// them.
type Step struct {
	Jobs    Jobs
	Delays  *delay.Queue
	Cluster *statemachine.Applied

	// histories are what the retry budget and the escalation remember,
	// per job UID, for jobs whose policy extensions have them.
	histories map[types.UID]*policy.History
}

// History is what the step remembers of the job of uid for its retry
// budget and escalation (policy.History); nil when nothing.
func (s *Step) History(uid types.UID) *policy.History { return s.histories[uid] }

// ForgetHistory drops what the step remembers of the job of uid: call it
// when the job is deleted.
func (s *Step) ForgetHistory(uid types.UID) { delete(s.histories, uid) }

func (s *Step) history(job *vcjob.Job) *policy.History {
	h := s.histories[job.UID]
	if h == nil {
		if s.histories == nil {
			s.histories = map[types.UID]*policy.History{}
		}
		h = &policy.History{}
		s.histories[job.UID] = h
	}
	return h
}

// Record is what one step decided and did.
type Record struct {
	Time    time.Time       `json:"time"`
	Request request.Request `json:"request"`
	// Fired is the delayed action this step ran, for Fire.
	Fired *delay.Entry `json:"fired,omitempty"`
	// Cancelled are the delayed actions the step cancelled: those a pod
	// event made moot, then those of the same level as the action it ran.
	Cancelled []delay.Entry `json:"cancelled,omitempty"`
	// Skipped says why nothing was done (the job is not in the cache).
	Skipped string `json:"skipped,omitempty"`

	Rule   policy.Rule    `json:"rule"`
	Action vcjob.Action   `json:"action,omitempty"`
	Target request.Target `json:"target"`
	Delay  time.Duration  `json:"delay,omitempty"`
	// KeepRetries: the restart counts no retry (a disruption under the
	// policy extensions).
	KeepRetries bool `json:"keepRetries,omitempty"`
	// FailJob: the restart was beyond the retry budget and failed the job;
	// Escalated: the escalation widened the restart (policy.Stateful).
	FailJob   bool `json:"failJob,omitempty"`
	Escalated bool `json:"escalated,omitempty"`
	// FailureFirst is the pod failure whose policy the step ran instead
	// of the sync it was asked (behavior.FailurePolicyBeforeSync):
	// Rule, Action and Target are that failure's.
	FailureFirst *request.Request `json:"failureFirst,omitempty"`
	// Registered is the delayed action registered instead of running;
	// DelayDropped says the pod already had one for the same action.
	Registered   *delay.Entry `json:"registered,omitempty"`
	DelayDropped bool         `json:"delayDropped,omitempty"`

	PhaseBefore vcjob.JobPhase           `json:"phaseBefore,omitempty"`
	PhaseAfter  vcjob.JobPhase           `json:"phaseAfter,omitempty"`
	Transition  *statemachine.Transition `json:"transition,omitempty"`
	Effects     statemachine.Effects     `json:"effects"`
	// Extended are the delayed actions the step registered for the job's
	// policy extensions: its deadline, the end of a restart backoff.
	Extended []delay.Entry `json:"extended,omitempty"`
	// Events are the Kubernetes Events Volcano's worker records in the
	// step, in its order: first processNextReq's ExecuteAction (for a
	// delayed action registered, or an action other than SyncJob run at
	// once; a delayed action that fires records none), or GiveUp's
	// retry-limit one, then the call's (Effects.Events). A step that
	// records none builds nothing. They are Events on the job of the
	// request: record them with the job as the involved object.
	Events []record.Event `json:"events,omitempty"`
	Err    error          `json:"-"`
}

// Error is Err's text, for JSON.
func (r Record) Error() string {
	if r.Err == nil {
		return ""
	}
	return r.Err.Error()
}

// Process handles one request at now; the cluster calls it makes run in
// ctx.
func (s *Step) Process(ctx context.Context, req request.Request, now time.Time) Record {
	rec := Record{Time: now, Request: req}
	// Before anything else: the pod moving on makes its pending timeout
	// moot (CancelForPodEvent picks the events that do).
	rec.Cancelled = append(rec.Cancelled, s.Delays.CancelForPodEvent(req)...)
	ji, ok := s.snapshot(req.Namespace, req.JobName, &rec)
	if !ok {
		return rec
	}
	defer ji.Release()
	ext := s.Cluster.ExtensionsFor(ji.Job)
	set := s.Cluster.Behavior.For(ji.Job)
	d := policy.ResolveWith(ji.Job, req, ext)
	decided := req
	if d.Action == vcjob.SyncJobAction && d.Delay == 0 && set.Has(behavior.FailurePolicyBeforeSync) {
		if f, fd, ok := unhandledFailure(ji, ext, set); ok {
			rec.FailureFirst, decided, d = &f, f, fd
		}
	}
	if d.Delay == 0 && ext != nil && policy.NeedsHistory(ext) {
		d = policy.Stateful(ext, s.history(ji.Job), d, decided, now)
		rec.Escalated, rec.FailJob = d.Escalated, d.FailJob
	}
	rec.Rule, rec.Action, rec.Target, rec.Delay, rec.KeepRetries = d.Rule, d.Action, d.Target, d.Delay, d.KeepRetries
	// Recorded before anything else, so a delayed action that is dropped
	// as a duplicate, or a call that fails, records it too.
	rec.Events = DecisionEvents(d.Action, d.Delay)
	if d.Delay > 0 {
		register := s.Delays.Register
		if set.Has(behavior.DelaysByPodUID) {
			register = s.Delays.RegisterByPodUID
		}
		e, added := register(req, d.Action, d.Target, d.Delay, now)
		if added {
			rec.Registered = &e
		} else {
			rec.DelayDropped = true
		}
		rec.PhaseAfter = rec.PhaseBefore
		if ext != nil {
			s.extend(ji.Job, ext, &rec, now)
		}
		return rec
	}
	s.execute(ctx, ji, &rec, set, ext, now)
	if ext != nil {
		s.extend(ji.Job, ext, &rec, now)
	}
	return rec
}

// Fire runs a delayed action that came due at now, on the job's state at
// that time, in ctx.
func (s *Step) Fire(ctx context.Context, e delay.Entry, now time.Time) Record {
	rec := Record{Time: now, Request: e.Request, Fired: &e, Action: e.Action, Target: e.Target, Rule: policy.Rule{Kind: RuleDelayed}}
	ji, ok := s.snapshot(e.Request.Namespace, e.Request.JobName, &rec)
	if !ok {
		return rec
	}
	defer ji.Release()
	if e.Request.Event == DeadlineEvent && ending(ji.Job.Status.State.Phase) {
		rec.Skipped = "the job is ending already: its deadline has nothing to do"
		return rec
	}
	ext := s.Cluster.ExtensionsFor(ji.Job)
	s.execute(ctx, ji, &rec, s.Cluster.Behavior.For(ji.Job), ext, now)
	if ext != nil {
		s.extend(ji.Job, ext, &rec, now)
	}
	return rec
}

// GiveUp is what Volcano's worker does once the request of failed (a
// Process or Fire record with an error) has failed as often as the
// requeue limit allows (see Requeue): it records "Job failed on action
// <action> for retry limit reached" and terminates the job, TerminateJob
// through the state machine, without policies and without cancelling
// delayed actions. The record's rule is RuleGiveUp.
//
// The job is terminated as the cache holds it now; Volcano terminates it
// as the failed step found it, and a real API server then refuses the
// kill's status write as a conflict if the failed step wrote one.
func (s *Step) GiveUp(ctx context.Context, failed Record, now time.Time) Record {
	req := failed.Request
	rec := Record{Time: now, Request: req, Action: vcjob.TerminateJobAction, Target: request.Target{Level: vcjob.JobLevel}, Rule: policy.Rule{Kind: RuleGiveUp}}
	ji, ok := s.snapshot(req.Namespace, req.JobName, &rec)
	if !ok {
		return rec
	}
	defer ji.Release()
	rec.Events = []record.Event{RetryLimitEvent(failed.Action)}
	s.Cluster.Now = metav1.NewTime(now)
	tr, err := statemachine.ExecuteWith(ctx, s.Cluster, ji, vcjob.TerminateJobAction, rec.Target, statemachine.Options{Behavior: s.Cluster.Behavior})
	s.done(&rec, tr, err)
	return rec
}

// RuleGiveUp marks the record of GiveUp: the job is terminated because a
// request failed too often.
const RuleGiveUp policy.RuleKind = "GiveUp"

// RuleDelayed marks a record of a delayed action that fired: the rule that
// chose it is in the record of the step that registered it.
const RuleDelayed policy.RuleKind = "Delayed"

func (s *Step) snapshot(namespace, name string, rec *Record) (*jobinfo.Info, bool) {
	var ji *jobinfo.Info
	var err error
	if l, ok := s.Jobs.(Leaser); ok {
		ji, err = l.Lease(namespace, name)
	} else {
		ji, err = s.Jobs.Get(request.JobKey(namespace, name))
	}
	if err != nil {
		// A job that is gone has nothing left to do; Volcano drops the
		// request too.
		rec.Skipped = err.Error()
		return nil, false
	}
	rec.PhaseBefore = ji.Job.Status.State.Phase
	return ji, true
}

// execute runs the record's action under the job's behaviour set, with
// the policy extensions' marks the record carries; ext are the job's
// extensions (nil: none).
func (s *Step) execute(ctx context.Context, ji *jobinfo.Info, rec *Record, set behavior.Set, ext *policy.Extensions, now time.Time) {
	s.Cluster.Now = metav1.NewTime(now)
	var marks statemachine.Mark
	if rec.KeepRetries {
		marks |= statemachine.MarkKeepRetries
	}
	if rec.FailJob {
		marks |= statemachine.MarkFailJob
	}
	tr, err := statemachine.ExecuteWith(ctx, s.Cluster, ji, rec.Action, rec.Target, statemachine.Options{Behavior: set, Marks: marks})
	if !s.done(rec, tr, err) {
		return
	}
	rec.Cancelled = append(rec.Cancelled, s.Delays.CleanupAfter(ji.Job.Namespace, ji.Job.Name, rec.Action, rec.Target)...)
	if ext != nil && tr.Call != statemachine.CallNone && policy.NeedsHistory(ext) {
		s.history(ji.Job).Record(ext, rec.Action, rec.Target, now)
	}
}

// done fills rec in from a call's transition and error, the call's
// Events after those the step recorded before it; it reports whether the
// call succeeded.
func (s *Step) done(rec *Record, tr statemachine.Transition, err error) bool {
	rec.Transition = &tr
	rec.Effects = s.Cluster.Last
	if tr.Call == statemachine.CallNone {
		// No call was made: the cluster's last effects are another step's.
		rec.Effects = statemachine.Effects{Call: statemachine.CallNone}
	}
	if len(rec.Events) == 0 {
		rec.Events = rec.Effects.Events
	} else if len(rec.Effects.Events) > 0 {
		rec.Events = append(rec.Events, rec.Effects.Events...)
	}
	rec.PhaseAfter = rec.PhaseBefore
	if rec.Effects.Status != nil {
		rec.PhaseAfter = rec.Effects.Status.State.Phase
	}
	if err != nil {
		rec.Err = err
		return false
	}
	return true
}

// Requeue says whether a request that failed after requeues earlier
// requeues goes back on the queue (rate-limited). maxRequeues −1 means
// always. When it does not, the job is terminated (Step.GiveUp).
func Requeue(requeues, maxRequeues int) bool {
	return maxRequeues < 0 || requeues < maxRequeues
}

// Delete-retry backoff of a pod whose delete failed: exponential from
// DeleteBackoffBase, capped at DeleteBackoffMax, at most DeleteRetries
// times.
const (
	DeleteBackoffBase = 5 * time.Millisecond
	DeleteBackoffMax  = 180 * time.Second
	DeleteRetries     = 10
)

// DeleteBackoff is how long to wait before retry number attempt (0-based)
// of a failed pod delete; ok is false once DeleteRetries are used up.
func DeleteBackoff(attempt int) (wait time.Duration, ok bool) {
	if attempt < 0 || attempt >= DeleteRetries {
		return 0, false
	}
	wait = DeleteBackoffBase
	for i := 0; i < attempt; i++ {
		wait *= 2
		if wait >= DeleteBackoffMax {
			return DeleteBackoffMax, true
		}
	}
	return wait, true
}

// String is a one-line summary of the record.
func (r Record) String() string {
	if r.Skipped != "" {
		return fmt.Sprintf("%s: skipped: %s", r.Request, r.Skipped)
	}
	s := fmt.Sprintf("%s -> %s by %s", r.Request, r.Action, r.Rule)
	if r.Registered != nil {
		return s + fmt.Sprintf(", delayed %s", r.Delay)
	}
	if r.DelayDropped {
		return s + ", delay dropped (already pending)"
	}
	s += fmt.Sprintf(", %s -> %s", r.PhaseBefore, r.PhaseAfter)
	if r.Err != nil {
		s += ": " + r.Err.Error()
	}
	return s
}
