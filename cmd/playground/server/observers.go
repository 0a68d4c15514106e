package server

import (
	"time"

	"github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine/memcluster"
	"github.com/vcjob/vcjob/vcjobtest/scenario"
	"github.com/vcjob/vcjob/worker"
)

func (b both) Command(line int, text string, now time.Time) {
	b[0].Command(line, text, now)
	b[1].Command(line, text, now)
}

func (b both) Record(r worker.Record) { b[0].Record(r); b[1].Record(r) }

func (b both) Recorded(events []record.Event, now time.Time) {
	b[0].Recorded(events, now)
	b[1].Recorded(events, now)
}

func (b both) Requeued(req request.Request, requeues int, due time.Time) {
	b[0].Requeued(req, requeues, due)
	b[1].Requeued(req, requeues, due)
}

func (b both) Changes(chs []memcluster.Change, now time.Time) {
	b[0].Changes(chs, now)
	b[1].Changes(chs, now)
}

func (b both) PodGroup(phase string, now time.Time) {
	b[0].PodGroup(phase, now)
	b[1].PodGroup(phase, now)
}

func (b both) End(summary string) { b[0].End(summary); b[1].End(summary) }

// Collected tells each observer that takes the garbage collector's looks.
func (b both) Collected(r scenario.GCRecord) {
	for _, o := range b {
		if g, ok := o.(scenario.GCObserver); ok {
			g.Collected(r)
		}
	}
}
