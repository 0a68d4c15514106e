package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/cronjob"
)

const publicCronVectors = "testdata/cronjob/vectors-cron-public.jsonl.gz"

// TestPublicCronVectors replays Volcano's recorded CronJob syncs; every
// case must pass in every area.
func TestPublicCronVectors(t *testing.T) {
	if _, err := os.Stat(publicCronVectors); err != nil {
		t.Fatalf("no CronJob vectors at %s: %v", publicCronVectors, err)
	}
	var out bytes.Buffer
	tally := newAreaTally("CronJob", cronAreas)
	passed, failed, err := runCronFile(publicCronVectors, &out, false, tally)
	if err != nil {
		t.Fatal(err)
	}
	if failed > 0 || passed == 0 || tally.cases != passed {
		t.Fatalf("%d passed, %d failed (%d tallied):\n%s", passed, failed, tally.cases, out.String())
	}
	for _, area := range cronAreas {
		if tally.wrong[area] > 0 {
			t.Errorf("%s: %d wrong", area, tally.wrong[area])
		}
	}
}

// cronCases reads every public CronJob case.
func cronCases(t *testing.T) []*cronCase {
	t.Helper()
	f, err := openVectors(publicCronVectors)
	if err != nil {
		t.Fatalf("no CronJob vectors at %s: %v", publicCronVectors, err)
	}
	defer f.Close()
	var cases []*cronCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		c, err := decodeCronCase(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// The informational parts agree as well: the API calls in order, and the
// status the sync computed (written or not).
func TestPublicCronVectorsCallsAndComputedStatus(t *testing.T) {
	for _, c := range cronCases(t) {
		d := cronjob.Decide(&c.CronJob, c.Jobs, c.Now)
		if got := callStrings(d); !slices.Equal(got, c.Expect.Calls) {
			t.Errorf("%s: calls %q, want %q", c.Name, got, c.Expect.Calls)
		}
		computed := c.Expect.ComputedStatus
		if computed == nil {
			continue // syncCronJob was not reached
		}
		if got, want := activeNames(d.Status), activeNames(*computed); !slices.Equal(got, want) {
			t.Errorf("%s: computed status.active %v, want %v", c.Name, got, want)
		}
		if diff := diffTime(computed.LastScheduleTime, d.Status.LastScheduleTime); diff != "" {
			t.Errorf("%s: computed lastScheduleTime: %s", c.Name, diff)
		}
		if diff := diffTime(computed.LastSuccessfulTime, d.Status.LastSuccessfulTime); diff != "" {
			t.Errorf("%s: computed lastSuccessfulTime: %s", c.Name, diff)
		}
	}
}

// fullCronCase is the first public case that has something in every
// area: a job created, one deleted, events, a status written with both
// times, and a requeue.
func fullCronCase(t *testing.T) (*cronCase, cronjob.Decision) {
	for _, c := range cronCases(t) {
		e := c.Expect
		if len(e.Created) == 0 || len(e.Deleted) == 0 || len(e.Events) == 0 || !e.StatusWritten || e.RequeueAfterNs == nil ||
			e.Status.LastSuccessfulTime == nil || e.Status.LastSuccessfulTime.IsZero() || len(e.Status.Active) == 0 {
			continue
		}
		d := cronjob.Decide(&c.CronJob, c.Jobs, c.Now)
		diffs, err := diffCron(c, d)
		if err != nil || len(diffs) > 0 {
			t.Fatalf("%s does not pass: %v %v", c.Name, err, diffs)
		}
		return c, d
	}
	t.Skip("no case has something in every area")
	return nil, cronjob.Decision{}
}

// TestDiffCronSeesEachArea: a change in any compared area is reported in
// that area (and only there), so a passing run means agreement.
func TestDiffCronSeesEachArea(t *testing.T) {
	base, d := fullCronCase(t)
	editJob := func(c *cronCase, edit func(*vcjob.Job)) {
		var j vcjob.Job
		if err := json.Unmarshal(c.Expect.Created[0].Job, &j); err != nil {
			t.Fatal(err)
		}
		edit(&j)
		raw, err := json.Marshal(&j)
		if err != nil {
			t.Fatal(err)
		}
		c.Expect.Created[0].Job = raw
	}
	for _, tc := range []struct {
		area string
		edit func(*cronCase)
	}{
		{"create", func(c *cronCase) { c.Expect.Created = c.Expect.Created[:0] }},
		{"create", func(c *cronCase) { editJob(c, func(j *vcjob.Job) { j.Name += "x" }) }},
		{"create", func(c *cronCase) { editJob(c, func(j *vcjob.Job) { j.Namespace = "ns" }) }},
		{"create", func(c *cronCase) { editJob(c, func(j *vcjob.Job) { j.Labels = map[string]string{"a": "b"} }) }},
		{"create", func(c *cronCase) {
			editJob(c, func(j *vcjob.Job) { j.Annotations[vcjob.CronJobScheduledTimeKey] = "x" })
		}},
		{"create", func(c *cronCase) { editJob(c, func(j *vcjob.Job) { j.OwnerReferences[0].UID = "x" }) }},
		{"create", func(c *cronCase) { editJob(c, func(j *vcjob.Job) { j.Spec.Queue = "elsewhere" }) }},
		{"deleted", func(c *cronCase) { c.Expect.Deleted[0].Name += "x" }},
		{"deleted", func(c *cronCase) { c.Expect.Deleted = c.Expect.Deleted[1:] }},
		{"deleted", func(c *cronCase) { c.Expect.Deleted[0].Options.GracePeriodSeconds = new(int64(0)) }},
		{"status.active", func(c *cronCase) { c.Expect.Status.Active[0].Name += "x" }},
		{"status.active", func(c *cronCase) { c.Expect.Status.Active = nil }},
		{"status.lastScheduleTime", func(c *cronCase) {
			c.Expect.Status.LastScheduleTime.Time = c.Expect.Status.LastScheduleTime.Add(time.Second)
		}},
		{"status.lastScheduleTime", func(c *cronCase) { c.Expect.Status.LastScheduleTime = nil }},
		{"status.lastSuccessfulTime", func(c *cronCase) {
			c.Expect.Status.LastSuccessfulTime.Time = c.Expect.Status.LastSuccessfulTime.Add(time.Second)
		}},
		{"statusWrite", func(c *cronCase) { c.Expect.StatusWritten = false }},
		{"requeueAfter", func(c *cronCase) { c.Expect.RequeueAfterNs = new(*c.Expect.RequeueAfterNs + 1) }},
		{"requeueAfter", func(c *cronCase) { c.Expect.RequeueAfterNs = nil }},
		{"events", func(c *cronCase) { c.Expect.Events[0].Message += "x" }},
		{"events", func(c *cronCase) { c.Expect.Events[0].Type = "Warning" + c.Expect.Events[0].Type }},
		{"events", func(c *cronCase) { c.Expect.Events = c.Expect.Events[1:] }},
		{"error", func(c *cronCase) { c.Expect.Error = true }},
		{"error", func(c *cronCase) { c.Expect.Panic = new("runtime error") }},
	} {
		var c cronCase
		raw, err := json.Marshal(base)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		tc.edit(&c)
		diffs, err := diffCron(&c, d)
		if err != nil {
			t.Fatal(err)
		}
		var areas []string
		for area := range diffs {
			areas = append(areas, area)
		}
		if !slices.Equal(areas, []string{tc.area}) {
			t.Errorf("an edit of %s is reported in %v: %v", tc.area, areas, diffs)
		}
	}
}

// A key the case format does not have is refused, not ignored.
func TestCronCaseIsDecodedStrictly(t *testing.T) {
	_, err := decodeCronCase([]byte(`{"name":"x","cronJob":{},"expect":{"requeueAfterSeconds":1}}`))
	if err == nil || !strings.Contains(err.Error(), "requeueAfterSeconds") {
		t.Errorf("an unknown key: %v", err)
	}
}
