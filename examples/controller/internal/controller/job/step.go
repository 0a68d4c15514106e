package job

import (
	"context"
	"time"

	"k8s.io/klog/v2"

	"github.com/vcjob/vcjob/delay"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/worker"
)

// Every call into the vcjob library's processing step is here: the
// worker's context is at hand for each.

// newStep is one worker's processing step: its own delay.Queue and
// statemachine.Applied (neither is safe for concurrent use) on the
// controller's cache, plugins and priority lookup.
func newStep(c *Controller, applier statemachine.Applier) *worker.Step {
	return &worker.Step{Jobs: c.jobs, Delays: delay.New(), Cluster: &statemachine.Applied{
		Applier: applier, Plugins: c.plugins, Priorities: c.priority,
		// Claim names nobody can predict, as Volcano's.
		Names:    statemachine.RandomNames(),
		Behavior: c.cfg.Behavior,
	}}
}

// process runs the step on one request and records what it did.
func (s *shard) process(ctx context.Context, req request.Request) worker.Record {
	rec := s.step.Process(ctx, req, s.c.now())
	s.record(ctx, rec)
	return rec
}

// fire runs a delayed action that came due and records what it did.
func (s *shard) fire(ctx context.Context, e delay.Entry, now time.Time) worker.Record {
	rec := s.step.Fire(ctx, e, now)
	s.c.metrics.DelayFired.WithLabelValues(string(e.Action)).Inc()
	s.record(ctx, rec)
	return rec
}

// record counts and logs what a step did, and records its Events on the
// job. Its log lines carry ctx's worker and job.
func (s *shard) record(ctx context.Context, rec worker.Record) {
	s.c.recordEvents(rec.Request, rec.Events)
	s.count(rec)
	logger := klog.FromContext(ctx)
	for _, w := range rec.Effects.Warnings {
		// Volcano logs a plugin's bad argument on every sync too.
		logger.V(2).Info("Plugin argument ignored", "warning", w)
	}
	// The log lines' arguments are built only at a level that logs them:
	// a record's text costs more than the rest of this function.
	if rec.Skipped != "" {
		if v := logger.V(4); v.Enabled() {
			v.Info("Request skipped", "request", rec.Request.String(), "reason", rec.Skipped)
		}
		return
	}
	level := 3
	if rec.Registered != nil || rec.Fired != nil || len(rec.Cancelled) > 0 || rec.PhaseBefore != rec.PhaseAfter || rec.Err != nil {
		level = 1
	}
	if v := logger.V(level); v.Enabled() {
		v.Info("Step", "record", rec.String(), "created", len(rec.Effects.Created), "deleted", len(rec.Effects.Deleted),
			"statusWritten", rec.Effects.StatusWritten)
	}
}

// count counts what a step did in the controller's metrics.
func (s *shard) count(rec worker.Record) {
	m := s.c.metrics
	event := string(rec.Request.Event)
	if event == "" {
		event = "none"
	}
	action := string(rec.Action)
	if rec.Skipped != "" {
		action = "skipped"
	}
	m.Requests.WithLabelValues(event, action).Inc()
	if rec.Registered != nil {
		m.DelayRegistered.WithLabelValues(string(rec.Registered.Action)).Inc()
	}
	if n := len(rec.Cancelled); n > 0 {
		m.DelayCancelled.Add(float64(n))
	}
	if rec.Err != nil {
		m.RequestErrors.Inc()
	}
}
