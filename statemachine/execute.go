package statemachine

import (
	"context"
	"errors"
	"fmt"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/behavior"
	"github.com/vcjob/vcjob/jobinfo"
	"github.com/vcjob/vcjob/request"
)

// Execute runs action on the job in ji through cluster: it picks the state
// from the job's phase, looks up the transition and makes its call with the
// transition's status-update function, in ctx. target matters only for
// targeted restarts (see request.TargetOf).
//
// Execute holds no state of its own: the same inputs always make the same
// call. A job carrying the behavior.Annotation is decided under the
// corrections it names (see ExecuteWith).
func Execute(ctx context.Context, cluster Cluster, ji *jobinfo.Info, action vcjob.Action, target request.Target) (Transition, error) {
	return ExecuteWith(ctx, cluster, ji, action, target, Options{})
}

// Options are how ExecuteWith departs from Volcano; the zero value does
// what Volcano does.
type Options struct {
	// Behavior is the embedder's, to which the job's behavior.Annotation
	// applies (behavior.Set.For).
	Behavior behavior.Set
	// Marks are the policy extensions' marks on the decision
	// (policy.Decision.KeepRetries, FailJob): they select the table's
	// marked rows.
	Marks Mark
}

// ExecuteWith is Execute with options: the row is the one LookupFor finds
// under the job's behaviour and the decision's marks. A row whose call is
// CallKillJobUnlessIdle (behavior.LeaveFinishedJobs) makes no call when
// the job has no pod left to delete, and returns the row with CallNone.
func ExecuteWith(ctx context.Context, cluster Cluster, ji *jobinfo.Info, action vcjob.Action, target request.Target, opts Options) (Transition, error) {
	if ji == nil || ji.Job == nil {
		return Transition{}, fmt.Errorf("statemachine: execute %s: %w", action, ErrNoJob)
	}
	tr := LookupFor(StateOf(ji.Job), action, opts.Marks, opts.Behavior.For(ji.Job))
	if tr.Call == CallKillJobUnlessIdle {
		if leaveAlone(ji) {
			tr.Call, tr.To = CallNone, nil
			return tr, nil
		}
		tr.Call = CallKillJob
	}
	update := tr.Update.Func(ji.Job)
	var err error
	switch tr.Call {
	case CallSyncJob:
		err = cluster.SyncJob(ctx, ji, update)
	case CallKillJob:
		err = cluster.KillJob(ctx, ji, tr.Retain, update)
	case CallKillTarget:
		err = cluster.KillTarget(ctx, ji, target, update)
	default:
		return tr, fmt.Errorf("statemachine: no transition for %s in state %s", action, StateOf(ji.Job))
	}
	if err != nil {
		return tr, fmt.Errorf("%s %s/%s (%s in %s): %w", tr.Call, ji.Job.Namespace, ji.Job.Name, action, tr.State, err)
	}
	return tr, nil
}

// ErrNoJob is the error of a plan or call handed a job info without a job
// (or no job info at all).
var ErrNoJob = errors.New("no job in the job info")

// ErrNotStored is the error of a call handed a job without a namespace or
// a UID: the pods' labels, the PodGroup's name and the owner references
// need both, and an API server gives every job it stores both (a manifest
// has neither: memcluster.PutJob fills them in as an API server does).
var ErrNotStored = errors.New("the job has no namespace or UID: it was never stored by an API server")
