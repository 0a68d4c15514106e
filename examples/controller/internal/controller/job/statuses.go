package job

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/vcjob/vcjob"
	jobcache "github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"

	"github.com/vcjob/vcjob/examples/controller/pkg/applier"
)

// Held-back status writes (Config.CoalesceStatus).
//
// In Volcano's semantics every request of a Completed, Failed or
// Terminated job is a kill that bumps status.version and writes the
// status. When a job's pods finish faster than the worker gets through
// their events, the whole backlog of the job's requests turns into such
// kills, one status write each: 3000 of the 3250 writes of 50 jobs of 20
// pods. Nothing a finished job decides reads its status: every action is
// KillJob with the soft retain set and no phase change. Likewise, while a
// job runs, most writes only move its pod counts, which every SyncJob
// recounts from the pods.
//
// So a worker sends such a status once per pass over its queue: the
// step's status goes into the cache at once (the next step starts from
// it, as after a real write: the version bumps add up, the equality check
// sees it), and a flush item queued behind the requests already waiting
// writes the last one. The job's final status, version included, is the
// one every write would have left; the API server does not see the
// states in between. Everything else is written at once: a change of
// phase, state, retryCount, conditions, minAvailable, controlled
// resources or running duration, and a version bump of a job that is not
// finished (it goes with pod deletes). A sync that keeps a job in its
// phase stamps the state and its condition with the sync's time: the last
// stamp is the one written. Such a write carries the held-back
// counts along and replaces them, and a pod created or deleted for the
// job, or a write of the job itself, first sends what is held back, so no
// pod reaches the API server ahead of the status it was decided on.

// heldStatuses are one worker's held-back status writes. Only the worker's
// goroutine uses them (the debug view takes the worker's lock first).
type heldStatuses struct {
	jobs    *jobcache.Cache
	applier *applier.Applier
	// queueFlush queues a flush of the job's held-back status on the
	// worker's queue, behind what it holds.
	queueFlush func(namespace, name string)

	// pending are status writes held back, by job key.
	pending map[string]*pendingStatus
	// flushed are the held-back statuses written during the current item
	// (rebase).
	flushed map[string]flushedWrite
}

// newHeldStatuses makes a worker's heldStatuses: held-back statuses go
// into jobs, and out through a; queueFlush queues the flush item that
// later calls Flush.
func newHeldStatuses(jobs *jobcache.Cache, a *applier.Applier, queueFlush func(namespace, name string)) *heldStatuses {
	return &heldStatuses{jobs: jobs, applier: a, queueFlush: queueFlush}
}

// Applier is the worker's Applier: the shared one, with the worker's
// held-back status writes in front of it.
func (s *heldStatuses) Applier() statemachine.Applier { return heldApplier{Applier: s.applier, s: s} }

// NextItem starts a new item of the worker's queue: the flushes of the
// last one no longer rebase a step's job.
func (s *heldStatuses) NextItem() { clear(s.flushed) }

// Held reports whether a status of the job of key waits to be written.
func (s *heldStatuses) Held(key string) bool { return s.pending[key] != nil }

// Drop forgets the job's held-back status (the job is gone, or its flush
// was given up).
func (s *heldStatuses) Drop(key string) { delete(s.pending, key) }

// pendingStatus is a job's status written into the cache but not yet to
// the API server.
type pendingStatus struct {
	// job is the object the worker put into the cache, holding the status
	// to write. When the cache holds another object (the informer
	// delivered one, which has the API server's older status), the worker
	// puts the status back before its next step.
	job *vcjob.Job
}

// rebase moves job, the step's copy, onto the resourceVersion of a status
// this step's flush wrote (before a pod write) over the very object the
// step started from: that write sent the status the step holds, and
// without the move the step's own write would conflict with it. A job
// the flush did not start from is left as it is (its write conflicts, as
// it should: someone else changed the job).
func (s *heldStatuses) rebase(key string, job *vcjob.Job) {
	if f, ok := s.flushed[key]; ok && job.ResourceVersion == f.from {
		job.ResourceVersion = f.to
	}
}

// defer_ records job (holding the status to write) as key's pending
// status, puts it into the cache, and queues a flush behind what waits.
func (s *heldStatuses) defer_(ctx context.Context, key string, job *vcjob.Job) {
	if err := s.jobs.Update(job); err != nil {
		klog.FromContext(ctx).V(4).Info("Deferred status not cached", "err", err)
	}
	if s.pending == nil {
		s.pending = map[string]*pendingStatus{}
	}
	if p := s.pending[key]; p != nil {
		p.job = job
		return
	}
	s.pending[key] = &pendingStatus{job: job}
	s.queueFlush(job.Namespace, job.Name)
}

// flushFor writes the deferred status of pod's job, if any.
func (s *heldStatuses) flushFor(ctx context.Context, pod *corev1.Pod) error {
	if len(s.pending) == 0 {
		return nil
	}
	name := pod.Labels[vcjob.JobNameKey]
	if name == "" {
		name = pod.Annotations[vcjob.JobNameKey]
	}
	return s.Flush(ctx, request.JobKey(pod.Namespace, name))
}

// Flush writes key's deferred status, on the newest job the cache holds.
// A job that is gone drops it. On failure it stays deferred.
func (s *heldStatuses) Flush(ctx context.Context, key string) error {
	p := s.pending[key]
	if p == nil {
		return nil
	}
	ns, name, _ := cache.SplitMetaNamespaceKey(key) // never fails on a job key
	ji, err := s.jobs.Lease(ns, name)
	if err != nil {
		delete(s.pending, key)
		return nil
	}
	job := *ji.Job
	ji.Release()
	status := p.job.Status
	if job.DeletionTimestamp != nil {
		// Volcano writes nothing for a job being deleted; neither would
		// the steps after the informer showed it.
		delete(s.pending, key)
		return nil
	}
	klog.FromContext(ctx).V(4).Info("Writing a held-back status", "version", status.Version)
	from := job.ResourceVersion
	err = s.applier.WriteStatus(ctx, &job, &status)
	switch {
	case apierrors.IsNotFound(err):
		delete(s.pending, key)
		return nil
	case err != nil:
		return err
	}
	delete(s.pending, key)
	if s.flushed == nil {
		s.flushed = map[string]flushedWrite{}
	}
	s.flushed[key] = flushedWrite{from: from, to: job.ResourceVersion}
	return nil
}

// flushedWrite is a held-back status a flush wrote during the current
// item: over resourceVersion from, making to.
type flushedWrite struct{ from, to string }

// Overlay puts key's deferred status back into the cache when the cache
// holds another object for the job (the informer delivered the echo of an
// earlier write, or a change of the job's spec or metadata): the next
// step must see the status it would have seen had every write been sent.
func (s *heldStatuses) Overlay(ctx context.Context, namespace, name string) {
	if len(s.pending) == 0 {
		return
	}
	key := request.JobKey(namespace, name)
	p := s.pending[key]
	if p == nil {
		return
	}
	ji, err := s.jobs.Lease(namespace, name)
	if err != nil {
		return
	}
	cur := ji.Job
	ji.Release()
	if cur == p.job {
		return
	}
	next := *cur
	next.Status = p.job.Status
	p.job = &next
	if err := s.jobs.Update(&next); err != nil {
		klog.FromContext(ctx).V(4).Info("Deferred status not cached", "err", err)
	}
}

// FlushAll writes every deferred status (on shutdown: ctx is not
// cancelled with the controller's).
func (s *heldStatuses) FlushAll(ctx context.Context) {
	logger := klog.FromContext(ctx)
	for key := range s.pending {
		ns, name, _ := cache.SplitMetaNamespaceKey(key) // never fails on a job key
		jobLogger := klog.LoggerWithValues(logger, "job", klog.KRef(ns, name))
		if err := s.Flush(klog.NewContext(ctx, jobLogger), key); err != nil {
			jobLogger.Error(err, "Deferred status not written on shutdown")
		}
	}
}

// The worker's side: the flush items on its queue.

// queueFlush queues the flush of a job's held-back status behind what
// the queue holds, or after Config.StatusHold.
func (s *shard) queueFlush(namespace, name string) {
	flush := item{Kind: kindFlush, Req: request.Request{Namespace: namespace, JobName: name}}
	if h := s.c.cfg.StatusHold; h > 0 {
		s.queue.AddAfter(flush, h)
		return
	}
	s.queue.Add(flush)
}

// flushItem handles a flush item: the deferred status is written; a
// failure is retried with the queue's rate limiting, and given up (with
// the status left to the job's next write) after MaxRequeue tries.
func (s *shard) flushItem(ctx context.Context, it item) {
	key := request.JobKey(it.Req.Namespace, it.Req.JobName)
	if err := s.statuses.Flush(ctx, key); err != nil {
		n := s.queue.NumRequeues(it)
		if s.c.cfg.MaxRequeue < 0 || n < s.c.cfg.MaxRequeue {
			klog.FromContext(ctx).V(2).Info("Deferred status write failed; retried", "tries", n+1, "err", err)
			s.queue.AddRateLimited(it)
			return
		}
		klog.FromContext(ctx).Error(err, "Deferred status write failed too often; dropped")
		s.statuses.Drop(key)
	}
	s.queue.Forget(it)
}
