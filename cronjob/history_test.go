package cronjob

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/vcjob/vcjob"
)

func TestHistoryToDelete(t *testing.T) {
	// jobAt is a job named name created at t (zero: no creation time).
	jobAt := func(name string, t time.Time, phase vcjob.JobPhase) JobState {
		return JobState{Name: name, CreationTimestamp: t, Phase: phase}
	}
	three := []JobState{
		jobAt("c", t0010, vcjob.Completed), jobAt("a", t0000, vcjob.Completed), jobAt("b", t0005, vcjob.Completed),
	}
	for _, tc := range []struct {
		name               string
		jobs               []JobState
		successful, failed *int32
		want               []string
	}{
		{"within the limits", three, new(int32(3)), new(int32(1)), nil},
		{"the oldest Completed beyond the limit", three, new(int32(2)), new(int32(1)), []string{"a"}},
		{"limit 0 deletes every Completed job, oldest first", three, new(int32(0)), new(int32(1)), []string{"a", "b", "c"}},
		{"no limit keeps everything", three, nil, nil, nil},
		{
			"ties in creation time go by name",
			[]JobState{jobAt("x2", t0005, vcjob.Failed), jobAt("x10", t0005, vcjob.Failed), jobAt("x1", t0005, vcjob.Failed)},
			nil, new(int32(1)), []string{"x1", "x10"},
		},
		{
			"jobs without a creation time are the newest",
			[]JobState{jobAt("new", time.Time{}, vcjob.Completed), jobAt("old", t0010, vcjob.Completed), jobAt("older", t0005, vcjob.Completed)},
			new(int32(1)), nil, []string{"older", "old"},
		},
		{
			"Failed, Terminated and Aborted share the failed limit",
			[]JobState{
				jobAt("f", t0000, vcjob.Failed), jobAt("t", t0005, vcjob.Terminated), jobAt("ab", t0010, vcjob.Aborted),
				jobAt("ok", t0000, vcjob.Completed),
			},
			new(int32(1)), new(int32(1)), []string{"f", "t"},
		},
		{
			"Completed jobs go first, then the others",
			[]JobState{jobAt("f1", t0000, vcjob.Failed), jobAt("f2", t0005, vcjob.Failed), jobAt("c1", t0005, vcjob.Completed), jobAt("c2", t0010, vcjob.Completed)},
			new(int32(1)), new(int32(1)), []string{"c1", "f1"},
		},
		{
			"jobs still running count against no limit",
			[]JobState{
				jobAt("p", t0000, vcjob.Pending), jobAt("r", t0000, vcjob.Running), jobAt("e", t0000, ""),
				jobAt("rs", t0000, vcjob.Restarting), jobAt("ab", t0000, vcjob.Aborting), jobAt("cg", t0000, vcjob.Completing),
				jobAt("tg", t0000, vcjob.Terminating),
			},
			new(int32(0)), new(int32(0)), nil,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			jobs := append([]JobState(nil), tc.jobs...)
			assert.Equal(t, tc.want, historyToDelete(jobs, tc.successful, tc.failed))
			assert.Equal(t, tc.jobs, jobs, "the caller's slice keeps its order")
		})
	}
}

// Through Decide: history cleanup runs on every sync, whatever else the
// decision is.
func TestDecideHistoryLimits(t *testing.T) {
	var jobs []JobState
	for i := range 6 {
		scheduled := t0000.Add(time.Duration(i) * time.Minute)
		phase := vcjob.Completed
		if i%2 == 1 {
			phase = vcjob.Failed
		}
		jobs = append(jobs, job(scheduled, phase))
	}
	name := func(minute int) string { return JobName("nightly", t0000.Add(time.Duration(minute)*time.Minute)) }

	d := Decide(cronJob(every5, created, withLastSchedule(t0005)), jobs, at("2026-01-05T00:06:00Z"))
	assert.Equal(t, []string{name(1), name(3)}, d.Delete, "defaults keep 3 Completed and 1 Failed")

	d = Decide(cronJob(every5, created, withLastSchedule(t0005), withLimits(1, 0)), jobs, at("2026-01-05T00:06:00Z"))
	assert.Equal(t, []string{name(0), name(2), name(1), name(3), name(5)}, d.Delete)
}
