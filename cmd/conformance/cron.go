package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/cronjob"
	"github.com/vcjob/vcjob/record"
)

// cronAreas are the areas a CronJob case is compared in (FORMAT-cron.md),
// in the order a difference is reported.
var cronAreas = []string{"create", "deleted", "status.active", "status.lastScheduleTime", "status.lastSuccessfulTime", "statusWrite", "requeueAfter", "events", "error"}

// cronCase is one recorded sync of Volcano's CronJob controller
// (FORMAT-cron.md).
type cronCase struct {
	Name    string         `json:"name"`
	Tags    []string       `json:"tags"`
	Now     time.Time      `json:"now"`
	CronJob vcjob.CronJob  `json:"cronJob"`
	Jobs    []*vcjob.Job   `json:"jobs"`
	Webhook webhookVerdict `json:"webhook"`
	Expect  cronExpect     `json:"expect"`
}

// cronExpect is what Volcano's sync did.
type cronExpect struct {
	RequeueAfter       *float64             `json:"requeueAfter"`
	RequeueAfterNs     *int64               `json:"requeueAfterNs"`
	ReachedSyncCronJob bool                 `json:"reachedSyncCronJob"`
	UpdateStatus       *bool                `json:"updateStatus"`
	StatusWritten      bool                 `json:"statusWritten"`
	Error              bool                 `json:"error"`
	ErrorText          string               `json:"errorText,omitempty"`
	Panic              *string              `json:"panic,omitempty"`
	Status             vcjob.CronJobStatus  `json:"status"`
	ComputedStatus     *vcjob.CronJobStatus `json:"computedStatus"`
	Created            []struct {
		Job     json.RawMessage `json:"job"`
		Outcome string          `json:"outcome"`
	} `json:"created"`
	Deleted []struct {
		Namespace string               `json:"namespace"`
		Name      string               `json:"name"`
		Options   metav1.DeleteOptions `json:"options"`
	} `json:"deleted"`
	Events      []record.Event  `json:"events"`
	Calls       []string        `json:"calls"`
	Diagnostics json.RawMessage `json:"diagnostics"`
}

// runCronFile replays every CronJob sync of a file through cronjob.Decide
// and compares it in each area.
func runCronFile(path string, out io.Writer, verbose bool, tally *areaTally) (passed, failed int, err error) {
	f, err := openVectors(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		c, err := decodeCronCase(sc.Bytes())
		if err != nil {
			return passed, failed, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		d := cronjob.Decide(&c.CronJob, c.Jobs, c.Now)
		diffs, err := diffCron(c, d)
		if err != nil {
			return passed, failed, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if tally != nil {
			for _, area := range cronAreas {
				if diffs[area] != "" {
					tally.add(area)
				}
			}
			tally.cases++
		}
		if first := firstDiff(diffs); first != "" {
			failed++
			fmt.Fprintf(out, "FAIL %s (%s:%d): %s\n", c.Name, path, line, first)
		} else {
			passed++
			if verbose {
				fmt.Fprintf(out, "ok   %s\n", c.Name)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return passed, failed, fmt.Errorf("%s: %w", path, err)
	}
	return passed, failed, nil
}

// decodeCronCase reads one case strictly: a misspelt key would otherwise
// leave a field empty and the case quietly testing something else.
func decodeCronCase(raw []byte) (*cronCase, error) {
	var c cronCase
	if err := decodeStrict(raw, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

func decodeStrict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// firstDiff is the difference of the first area that differs, "" for none.
func firstDiff(diffs map[string]string) string {
	for _, area := range cronAreas {
		if diffs[area] != "" {
			return area + ": " + diffs[area]
		}
	}
	return ""
}

// diffCron compares a decision with the recorded sync, area by area; an
// area that agrees has no entry.
func diffCron(c *cronCase, d cronjob.Decision) (map[string]string, error) {
	diffs := map[string]string{}
	want := c.Expect
	put := func(area, format string, args ...any) {
		if diffs[area] == "" {
			diffs[area] = fmt.Sprintf(format, args...)
		}
	}

	// create: one job passed to Create, or none.
	var wantJob *vcjob.Job
	switch len(want.Created) {
	case 0:
	case 1:
		wantJob = &vcjob.Job{}
		if err := decodeStrict(want.Created[0].Job, wantJob); err != nil {
			return nil, fmt.Errorf("expect.created[0].job: %w", err)
		}
	default:
		return nil, fmt.Errorf("expect.created: %d jobs, a sync creates one at most", len(want.Created))
	}
	if diff := diffCreated(wantJob, d.JobToCreate()); diff != "" {
		put("create", "%s", diff)
	}

	// deleted: namespace, name and options of each delete, in order.
	var wantDeleted, gotDeleted []string
	for _, del := range want.Deleted {
		wantDeleted = append(wantDeleted, deleteString(del.Namespace, del.Name, &del.Options))
	}
	for _, call := range d.JobsToDelete() {
		gotDeleted = append(gotDeleted, deleteString(call.Namespace, call.Name, call.DeleteOptions))
	}
	if !slices.Equal(wantDeleted, gotDeleted) {
		put("deleted", "got %v, want %v", gotDeleted, wantDeleted)
	}

	// The status as stored after the sync: the one written, else the
	// input's.
	stored := c.CronJob.Status
	if d.WriteStatus {
		stored = d.Status
	}
	if got, want := activeNames(stored), activeNames(want.Status); !slices.Equal(got, want) {
		put("status.active", "got %v, want %v", got, want)
	}
	if diff := diffTime(want.Status.LastScheduleTime, stored.LastScheduleTime); diff != "" {
		put("status.lastScheduleTime", "%s", diff)
	}
	if diff := diffTime(want.Status.LastSuccessfulTime, stored.LastSuccessfulTime); diff != "" {
		put("status.lastSuccessfulTime", "%s", diff)
	}
	if d.WriteStatus != want.StatusWritten {
		put("statusWrite", "got written %v, want %v", d.WriteStatus, want.StatusWritten)
	}

	switch {
	case (d.RequeueAfter == nil) != (want.RequeueAfterNs == nil):
		put("requeueAfter", "got %s, want %s", durationString(d.RequeueAfter), nsString(want.RequeueAfterNs))
	case d.RequeueAfter != nil && int64(*d.RequeueAfter) != *want.RequeueAfterNs:
		put("requeueAfter", "got %s, want %s", durationString(d.RequeueAfter), nsString(want.RequeueAfterNs))
	}

	if diff := diffEventList("", want.Events, d.Events); diff != "" {
		put("events", "%s", diff)
	}

	wantFailed := want.Error || want.Panic != nil
	if (d.Err != nil) != wantFailed {
		wantText := want.ErrorText
		if want.Panic != nil {
			wantText = "panic: " + *want.Panic
		}
		put("error", "got %v, want failed %v (%s)", d.Err, wantFailed, wantText)
	}
	return diffs, nil
}

// diffCreated compares the job passed to Create: name, namespace, labels,
// annotations, owner references and spec.
func diffCreated(want, got *vcjob.Job) string {
	switch {
	case want == nil && got == nil:
		return ""
	case want == nil:
		return "created " + got.Name + ", want none"
	case got == nil:
		return "created none, want " + want.Name
	case want.Name != got.Name:
		return fmt.Sprintf("created %s, want %s", got.Name, want.Name)
	case want.Namespace != got.Namespace:
		return fmt.Sprintf("%s: namespace %q, want %q", got.Name, got.Namespace, want.Namespace)
	case !maps.Equal(want.Labels, got.Labels):
		return fmt.Sprintf("%s: labels %v, want %v", got.Name, got.Labels, want.Labels)
	case !maps.Equal(want.Annotations, got.Annotations):
		return fmt.Sprintf("%s: annotations %v, want %v", got.Name, got.Annotations, want.Annotations)
	case !equality.Semantic.DeepEqual(want.OwnerReferences, got.OwnerReferences):
		return fmt.Sprintf("%s: owner references %+v, want %+v", got.Name, got.OwnerReferences, want.OwnerReferences)
	case !equality.Semantic.DeepEqual(want.Spec, got.Spec):
		w, _ := json.Marshal(want.Spec)
		g, _ := json.Marshal(got.Spec)
		return fmt.Sprintf("%s: spec %s, want %s", got.Name, g, w)
	}
	return ""
}

func deleteString(namespace, name string, opts *metav1.DeleteOptions) string {
	o, _ := json.Marshal(opts)
	return fmt.Sprintf("%s/%s %s", namespace, name, o)
}

func activeNames(status vcjob.CronJobStatus) []string {
	names := []string{}
	for _, ref := range status.Active {
		names = append(names, ref.Name)
	}
	return names
}

// diffTime compares status times as written: an unset time (a pointer to
// the zero time is written as null) equals none.
func diffTime(want, got *metav1.Time) string {
	unset := func(t *metav1.Time) bool { return t == nil || t.IsZero() }
	switch {
	case unset(want) && unset(got):
		return ""
	case unset(want):
		return "got " + got.UTC().Format(time.RFC3339Nano) + ", want none"
	case unset(got):
		return "got none, want " + want.UTC().Format(time.RFC3339Nano)
	case !want.Equal(got):
		return "got " + got.UTC().Format(time.RFC3339Nano) + ", want " + want.UTC().Format(time.RFC3339Nano)
	}
	return ""
}

func durationString(d *time.Duration) string {
	if d == nil {
		return "none"
	}
	return fmt.Sprintf("%dns (%s)", int64(*d), *d)
}

func nsString(ns *int64) string {
	if ns == nil {
		return "none"
	}
	return durationString(new(time.Duration(*ns)))
}

// callStrings are a decision's calls as the vectors write them
// (informational).
func callStrings(d cronjob.Decision) []string {
	calls := []string{}
	for _, c := range d.Calls {
		calls = append(calls, c.String())
	}
	return calls
}
